"""The rules pages under docs/rules/ cover every numbered rule and every rule option of each game.

The numbered rules come from ``../shared/rules/<game id>.md`` (the rules the code follows, kept next to
the repository) when that folder exists, else from ``RULE_IDS`` below; the options come from the
game's rules class. A rule or an option added without its entry in ``docs/rules/<game id>.md`` fails
here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import envs

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "rules"
SHARED = ROOT.parent / "shared" / "rules"

#: Per game id: the prefix of its rule numbers and the numbers in ../shared/rules (the fallback when a
#: clone has no shared folder; ``test_fallback_ids_match_shared_rules`` keeps it current).
RULE_IDS = {
    "airport-scramble": ("AS", tuple(range(1, 20))),
    "flight-tycoon": ("FT", tuple(range(1, 18))),
}


def rule_prefix(game: str) -> str:
    assert game in RULE_IDS, f"game {game!r} is registered but has no entry in RULE_IDS of {__file__}"
    return RULE_IDS[game][0]


def shared_ids(game: str) -> list[int]:
    """The numbers written as bold rule ids (``**AS-7 ...**``) in the shared rules file of ``game``."""
    text = (SHARED / f"{game}.md").read_text(encoding="utf-8")
    return [int(n) for n in re.findall(rf"\*\*{rule_prefix(game)}-(\d+)\b", text)]


def expected_ids(game: str) -> set[int]:
    """The rule numbers ``game`` must define: the shared rules' when present, else ``RULE_IDS``."""
    if SHARED.is_dir():
        return set(shared_ids(game))
    return set(RULE_IDS[game][1])


def defined_ids(game: str) -> list[int]:
    """Rule numbers defined in docs/rules/<game>.md: a line opening with the bold id (``**AS-7``) or a
    heading opening with the id (``### AS-7``); mentions inside sentences or list items do not count."""
    text = (DOCS / f"{game}.md").read_text(encoding="utf-8")
    prefix = rule_prefix(game)
    return [int(n) for n in re.findall(rf"^(?:\*\*|#+[ \t]+){prefix}-(\d+)\b", text, flags=re.MULTILINE)]


@pytest.mark.parametrize("game", envs.games())
def test_every_rule_is_defined_once(game):
    """AS-n / FT-n: each number of the rules is defined exactly once in the game's rules page, and the
    page defines no number the rules lack."""
    prefix = rule_prefix(game)
    expected = expected_ids(game)
    assert expected, f"no {prefix}-n rule ids found for {game}"
    defined = defined_ids(game)
    missing = sorted(expected - set(defined))
    extra = sorted(set(defined) - expected)
    twice = sorted({n for n in defined if defined.count(n) > 1})
    assert not missing, f"docs/rules/{game}.md does not define {', '.join(f'{prefix}-{n}' for n in missing)}"
    assert not extra, f"docs/rules/{game}.md defines {', '.join(f'{prefix}-{n}' for n in extra)}, unknown to the rules"
    assert not twice, f"docs/rules/{game}.md defines {', '.join(f'{prefix}-{n}' for n in twice)} more than once"


@pytest.mark.parametrize("game", envs.games())
def test_every_rule_option_is_documented(game):
    """Each option of the game's rules class has a row in the rules page's option tables, and no row
    still calls an option of the rules class planned."""
    text = (DOCS / f"{game}.md").read_text(encoding="utf-8")
    options = envs.spec(game).rules_class().option_names()
    rows = dict(re.findall(r"^\| `(\w+)` \|(.*)$", text, flags=re.MULTILINE))
    undocumented = [name for name in options if name not in rows]
    assert not undocumented, f"docs/rules/{game}.md has no option row for {', '.join(undocumented)}"
    stale = [name for name in options if "planned" in rows[name].lower()]
    assert not stale, f"docs/rules/{game}.md calls {', '.join(stale)} planned, but the rules class has it"


@pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared/rules next to the repository")
@pytest.mark.parametrize("game", envs.games())
def test_fallback_ids_match_shared_rules(game):
    """RULE_IDS (used where ../shared/rules is absent) lists exactly the shared rules' numbers."""
    assert sorted(set(shared_ids(game))) == list(RULE_IDS[game][1]), (
        f"RULE_IDS[{game!r}] differs from the rule ids of {SHARED / (game + '.md')}: update it"
    )

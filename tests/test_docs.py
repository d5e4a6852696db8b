"""Each game's rules page (``GameSpec.docs``) defines every numbered rule and documents every rule option.

The numbered rules a game must define are its ``GameSpec.rule_ids`` (prefix ``rule_prefix``); for a
game whose rules are also kept in ``../shared/rules/<game id>.md`` next to the repository, those
ids must match the shared file's. The options come from the game's rules class. A rule or an
option added without its entry in the rules page fails here. (Which lines define a rule:
``aerodeck.testing.defined_ids``, the reading the shipped contract check uses.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aerodeck import envs
from aerodeck.testing import defined_ids, rules_page

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "rules"
GAMES = envs.games()


def shared_ids(game: str) -> list[int]:
    """The numbers written as bold rule ids (``**AS-7 ...**``) in the shared rules file of ``game``."""
    text = (SHARED / f"{game}.md").read_text(encoding="utf-8")
    return [int(n) for n in re.findall(rf"\*\*{envs.spec(game).rule_prefix}-(\d+)\b", text)]


@pytest.mark.parametrize("game", GAMES)
def test_every_rule_is_defined_once(game):
    """AS-n / FT-n / …: each number of the rules is defined exactly once in the game's rules page, and
    the page defines no number the rules lack."""
    spec = envs.spec(game)
    prefix, expected = spec.rule_prefix, set(spec.rule_ids)
    assert prefix and expected, f"GameSpec {game!r} declares no rule_prefix / rule_ids"
    defined = defined_ids(game)
    missing = sorted(expected - set(defined))
    extra = sorted(set(defined) - expected)
    twice = sorted({n for n in defined if defined.count(n) > 1})
    where = spec.docs_path().name
    assert not missing, f"{where} ({game}) does not define {', '.join(f'{prefix}-{n}' for n in missing)}"
    assert not extra, f"{where} ({game}) defines {', '.join(f'{prefix}-{n}' for n in extra)}, unknown to the rules"
    assert not twice, f"{where} ({game}) defines {', '.join(f'{prefix}-{n}' for n in twice)} more than once"


@pytest.mark.parametrize("game", GAMES)
def test_every_rule_option_is_documented(game):
    """Each option of the game's rules class has a row in the rules page's option tables, and no row
    still calls an option of the rules class planned."""
    options = envs.spec(game).rules_class().option_names()
    rows = dict(re.findall(r"^\| `(\w+)` \|(.*)$", rules_page(game), flags=re.MULTILINE))
    undocumented = [name for name in options if name not in rows]
    assert not undocumented, f"the rules page of {game} has no option row for {', '.join(undocumented)}"
    stale = [name for name in options if "planned" in rows[name].lower()]
    assert not stale, f"the rules page of {game} calls {', '.join(stale)} planned, but the rules class has it"


@pytest.mark.parametrize("game", [g for g in GAMES if (SHARED / f"{g}.md").is_file()])
def test_declared_rule_ids_match_the_shared_rules(game):
    """``GameSpec.rule_ids`` lists exactly the numbers of the shared rules file, where there is one."""
    assert sorted(set(shared_ids(game))) == list(envs.spec(game).rule_ids), (
        f"GameSpec({game!r}).rule_ids differs from the rule ids of {SHARED / (game + '.md')}: update it"
    )

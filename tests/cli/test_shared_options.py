"""Which options each command takes, as the guide says: the rule options on every command that plays
games (``compare``, ``sweep`` and ``tune``: their base rules) and none on ``replay`` (a replay file carries
its rules); ``--force`` on every command that writes an output folder but ``train`` (a run's folder is
continued with ``--resume``, never replaced); what ``compare --metric`` compares by default."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from aerodeck import envs
from aerodeck.cli import main as cli

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
RULE_OPTIONS = {"--rules", "--table", "--rule"}


def commands() -> dict[str, argparse.ArgumentParser]:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def options(command: str) -> set[str]:
    return {s for a in commands()[command]._actions for s in a.option_strings}


def guide_list(sentence_start: str) -> list[str]:
    """The commands a sentence of the guide lists in backquotes, in its first parentheses."""
    at = GUIDE.index(sentence_start)
    inside = GUIDE[at:].split("(", 1)[1].split(")", 1)[0]
    return re.findall(r"`(\w+)`", inside)


def test_the_commands_the_guide_says_play_games_take_the_rule_options():
    listed = guide_list("Every command that plays games")
    assert listed == ["run", "train", "bench", "play", "compare", "sweep", "tune"]
    for command in listed:
        assert RULE_OPTIONS <= options(command), command
    assert not RULE_OPTIONS & options("replay")
    assert "`replay` takes none: a replay file carries its rules" in GUIDE


def test_the_commands_the_guide_says_write_output_folders_take_force_and_train_does_not():
    listed = guide_list("Output folders (`--out` of")
    assert listed == ["run", "bench", "compare", "sweep", "tune"]
    for command in listed:
        assert {"--out", "--force"} <= options(command), command
    assert "--out" in options("train") and "--force" not in options("train")
    assert "`aerodeck train` takes no `--force`" in GUIDE


def test_train_refuses_a_non_empty_out_and_names_resume(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    (tmp_path / "kept.txt").write_text("a file of mine")
    game = envs.specs()[0].id
    assert cli.main(["train", game, "--steps", "8", "--out", str(tmp_path), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "exists and is not empty" in err and "--resume" in err
    assert (tmp_path / "kept.txt").read_text() == "a file of mine"


def test_compare_says_which_metrics_it_compares_by_default_as_the_metrics_page_does():
    """``compare --help`` calls the default metrics what docs/metrics.md's tables call them ('compared by
    default'); "headline metrics" are the game's few (``GameSpec.headline``) the summary opens with, and
    the metrics page names exactly those."""
    metric = next(a for a in commands()["compare"]._actions if "--metric" in a.option_strings)
    assert "compared by default" in metric.help and "default: the catalogue's headline" not in metric.help
    page = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8")
    assert "| compared by default |" in page
    paragraph = page[page.index("**Headline metrics**"):].split("\n\n", 1)[0]
    for spec in envs.specs():
        if spec.title in paragraph:
            named = re.findall(r"`(\w+)`", paragraph.split(spec.title, 1)[1].split("(", 1)[0])
            assert named == list(spec.headline), spec.id

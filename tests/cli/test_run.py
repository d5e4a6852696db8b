"""``aerodeck run``: random games of the main solo game summarised, then the ladder of every game.

The games come from the registry (``run.main_game()``, each spec's ``ladder``, ``title``, ``variants``
and rules class); what depends on the main game's own options (its ``--rule`` values, its search
knobs, its showcase) is tested in its own folder (``tests/airport_scramble/test_run_rules.py``)."""

import dataclasses
import json
import re

import pytest

from aerodeck import envs
from aerodeck.envs import registry
from aerodeck.envs.registry import PPO
from tests.games import MULTI, SOLO
from aerodeck.cli import main as cli
from aerodeck.cli import run
from aerodeck.arena.loop import agent_seed, game_seeds, play_solo
from aerodeck.stats.estimates import mean_ci


def test_run_prints_a_summary_and_writes_json(tmp_path, capsys):
    out = tmp_path / "summary.json"
    assert cli.main(["run", "--games", "300", "--batch", "64", "--no-progress", "--no-ladder", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "300 games" in text and "mean score" in text and "95% CI" in text and "games/s" in text
    summary = json.loads(out.read_text())
    assert summary["games"] == 300 and sum(summary["score_distribution"].values()) == 300
    m = summary["mean_score"]
    assert m["low"] <= m["value"] <= m["high"] and m["n"] == 300
    assert summary["mean_length"] > 1 and summary["median_score"] == run.median(summary["score_distribution"])


def test_run_plays_the_shared_loop_and_its_student_t_interval(tmp_path):
    # Before: its own play loop, seeds seed * 2**32 + i and a normal-approximation interval.
    from aerodeck.agents.random import RandomAgent

    out = tmp_path / "summary.json"
    assert cli.main(["run", "--games", "200", "--seed", "5", "--no-progress", "--no-ladder", "--json", str(out)]) == 0
    spec = run.main_game()
    scores = play_solo(spec.make_core(), RandomAgent(agent_seed(5, 0)), game_seeds(5, 200), progress=False)
    assert json.loads(out.read_text())["mean_score"] == pytest.approx(mean_ci(scores).to_dict())


def test_run_takes_the_largest_seed_and_refuses_a_negative_one(tmp_path, capsys):
    # Before: --seed 9223372036854775800 ended in an OverflowError traceback.
    assert cli.main(["run", "--games", "20", "--seed", "9223372036854775800", "--no-progress", "--no-ladder"]) == 0
    assert cli.main(["run", "--games", "20", "--seed", "-1", "--no-progress", "--no-ladder"]) == 2
    assert "--seed must be an integer in 0..2**64-1, got '-1'" in capsys.readouterr().err


def flag(name, value) -> str:
    """A ``--rule`` value: ``name=value``, a list comma-joined."""
    return f"{name}={','.join(map(str, value)) if isinstance(value, (list, tuple)) else value}"


def valid(spec, options) -> bool:
    """Whether ``options`` make rules of ``spec`` (an option may need another, say a larger grid)."""
    try:
        spec.make_rules(**options)
    except ValueError:
        return False
    return True


def test_run_takes_rule_flags_and_variant_files(tmp_path, capsys):
    main = run.main_game()
    variant = next(v for v in main.variants if len(v) >= 2)  # a file with all but one option, a flag for that one
    name = next(n for n in variant if valid(main, {k: v for k, v in variant.items() if k != n}))
    path = tmp_path / "v.toml"
    path.write_text("[rules]\n" + "".join(f"{k} = {json.dumps(v)}\n" for k, v in variant.items() if k != name))
    assert cli.main(["run", "--games", "50", "--no-progress", "--no-ladder", "--rules", str(path),
                     "--rule", flag(name, variant[name])]) == 0
    assert f"rules: {main.make_rules(**variant).label()}" in capsys.readouterr().out


def test_run_reports_bad_rules_clearly(capsys):
    fields = dataclasses.fields(run.main_game().rules_class())
    name, hi = next((f.name, f.metadata["allowed"].hi) for f in fields
                    if f.metadata["allowed"].kind == "int" and f.metadata["allowed"].hi is not None)
    assert cli.main(["run", "--rule", f"{name}={hi + 1}"]) == 2
    assert f"'{name}'" in capsys.readouterr().err


def test_the_median_of_a_score_distribution():
    assert run.median({"0": 3, "1": 1}) == 0
    assert run.median({"0": 2, "1": 2}) == 0.5
    assert run.median({"2": 1, "0": 1, "5": 1}) == 2


# --- the ladder ------------------------------------------------------------------------------------

def small(spec):
    """``spec`` with its ladder on tiny budgets, the agents as registered: a solo game's first rung
    (the bench's game count) 24 games, then one game fewer each rung down to one (each bar counts its
    own); a multi-player game one seat rotation per rung."""
    n = len(spec.ladder)
    games = [len(seats) for seats, _ in spec.ladder] if not spec.solo else [24, *range(n - 1, 0, -1)]
    return dataclasses.replace(spec, ladder=tuple((seats, g) for (seats, _), g in zip(spec.ladder, games)))


def table_rules(spec, seats, rules=None):
    """The rules a ladder rung of ``spec`` plays: ``rules`` (default rules if ``None``) in a solo game,
    the default rules for the rung's player count otherwise."""
    if spec.solo:
        return rules if rules is not None else spec.make_rules()
    return spec.make_rules(**{spec.players_option: len(seats)})


def expected(spec, rules=None):
    """``(played rungs, skip messages)`` of ``spec``'s ladder: a rung seating the shipped ppo model is
    skipped, saying why, where that model cannot play the rung's rules."""
    from aerodeck.agents.ppo import shipped_misfit

    played, skips = [], []
    for seats, games in spec.ladder:
        reason = shipped_misfit(table_rules(spec, seats, rules)) if PPO in seats else None
        if reason is None:
            played.append((seats, games))
        else:
            skips.append(f"aerodeck run: the {spec.title} ladder skips {' · '.join(seats)}: {reason}")
    return played, skips


def solo_names(played):
    """The agent names of a solo ladder's bench: the first rung's agent, the others with their games."""
    return [seats[0] if i == 0 else f"{seats[0]}{',' if ':' in seats[0] else ':'}games={games}"
            for i, (seats, games) in enumerate(played)]


def table_folder(spec, seats) -> str:
    """The folder of a multi-player ladder rung: the game, then its distinct agents."""
    return f"{spec.id}-" + "-vs-".join(dict.fromkeys(seats))


def test_run_benches_the_ladder_of_every_game_from_the_registry_with_a_bar_per_agent(tmp_path, capsys, monkeypatch):
    # Before: the ladder was argv strings handed back to the command line, game names in aerodeck/cli/run.py;
    # one bar "games" over the whole ladder, sitting at the sum of the fast agents' games while the
    # search agent played.
    monkeypatch.setattr(registry, "GAMES", {s.id: small(s) for s in envs.specs()})  # plugged-in games too
    monkeypatch.setattr(run, "COMPARE_GAMES", 6)  # the closing comparison on a tiny budget too
    main = run.main_game()
    name, value = next((n, v) for variant in main.variants for n, v in variant.items())  # not the default
    rules = main.make_rules(**{name: value})
    assert cli.main(["run", "--games", "50", "--rule", flag(name, value), "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    text, bars = captured.out, captured.err.replace("\r", "\n").splitlines()
    labels = {line.split(":  ")[0].split(": ")[0] for line in bars if "|" in line}
    assert "games" not in labels
    folders = []
    for spec in envs.specs():
        own = rules if spec.id == main.id else None  # the rules given are the main game's
        played, skips = expected(spec, own)
        for skip in skips:  # e.g. the shipped model cannot play the main game's rules given
            assert skip in captured.err
        if spec.solo:
            names = solo_names(played)
            folders.append(spec.id)
            bench = json.loads((tmp_path / spec.id / "results.json").read_text())
            assert list(bench["agents"]) == names
            assert spec.rules_class().from_options(bench["rules"]) == table_rules(spec, (), own)
            assert f"{spec.title} — rules: {table_rules(spec, (), own).label()}" in text
            assert set(names) <= labels
            for agent, (_, count) in zip(names, played):  # each bar counts its agent's games
                assert str(count) in {re.search(r"\| \d+/(\d+) \[", line)[1] for line in bars
                                      if line.startswith(f"{agent}: ")}
        else:
            for seats, count in played:
                folders.append(table_folder(spec, seats))
                bench = json.loads((tmp_path / folders[-1] / "results.json").read_text())
                assert bench["games"] == count == len(seats) and bench["lineup"] == list(seats)
                assert " vs ".join(dict.fromkeys(seats)) in labels
            for players in {len(seats) for seats, _ in played}:
                assert text.count(f"{spec.title} — {players} players") == sum(len(s) == players for s, _ in played)
    # the closing comparison: the rules in use against them with the tuned options (issue 10 item 11)
    catalogue = main.catalogue()
    assert catalogue.showcase, "the main game's catalogue showcases a variant"
    closing = tmp_path / f"compare-{main.id}"
    folders.append(closing.name)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*folders, "aerodeck-output.json"])
    assert f"wrote {', '.join(sorted(folders))} to {tmp_path}/" in text
    compared = json.loads((closing / "results.json").read_text())
    showcase = main.rules_class().from_strings([*rules.to_strings(), *catalogue.showcase])
    assert compared["variants"]["base"]["options"] == rules.changes() != showcase.changes()
    assert compared["variants"]["showcase"]["options"] == showcase.changes()
    assert compared["games"] == 6 and [t["name"] for t in compared["tables"]] == list(catalogue.default_agents[:1])
    assert f"the designer's report: {closing / 'report.md'}" in text


def test_every_registered_ladder_is_a_valid_bench_and_the_shipped_models_play_their_layout(capsys):
    for spec in envs.specs():
        plans = run.ladder_plans(spec, None, 0)
        said = capsys.readouterr().err
        assert all(plan.agents and name.startswith(spec.id) for name, plan in plans)
        if spec in (SOLO, MULTI):  # built in: the shipped models fit the default rules, no rung is skipped
            assert any(PPO in seats for seats, _ in spec.ladder) and said == ""
            names = [spec.id] if spec.solo else [table_folder(spec, seats) for seats, _ in spec.ladder]
            assert [name for name, _ in plans] == names
            if spec.solo:
                assert dict(plans)[spec.id].names == solo_names(spec.ladder)

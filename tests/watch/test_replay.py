"""Replay files (JSON lines): written and read back exactly, replayed to the recorded score, refused
with the line named when corrupt or from other rules; ``aerodeck replay`` steps and draws GIFs."""

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from tests.games import MULTI, SOLO
from tests.watch.replays import agent_games, replay_command
from aerodeck.cli import main as cli
from aerodeck.arena.replays import ReplayError, play_back, read, write


@pytest.fixture(scope="module")
def as_games():
    return agent_games(SOLO.id, [8, 2, 5], "random")


@pytest.fixture
def as_file(tmp_path, as_games):
    rules, records = as_games
    return write(tmp_path / "as.jsonl", SOLO.id, rules, records, source="test"), records


#: Each game with its default rules and with its first variant (another layout or player count).
VARIANTS = [(spec.id, options) for spec in (SOLO, MULTI) for options in spec.variants[:2]]


@pytest.mark.parametrize("game, options", VARIANTS)
def test_replay_files_round_trip_exactly(tmp_path, game, options):
    rules, records = agent_games(game, [3, 4], **options)
    path = write(tmp_path / "games.jsonl", game, rules, records, source="test")
    replay = read(path)  # replays every game and checks its result
    assert replay.game == game and replay.rules == rules and replay.source == "test"
    assert [(r.seed, r.agents, r.actions, r.result, r.game) for r in replay.records] == \
           [(r.seed, r.agents, r.actions, r.result, r.game) for r in records]
    assert [r.line for r in replay.records] == [2, 3]
    again = write(tmp_path / "again.jsonl", game, replay.rules, replay.records, source="test")
    assert again.read_text() == path.read_text()


def test_replaying_reproduces_the_score_of_the_game_as_played():
    for game in (SOLO.id, MULTI.id):
        rules, records = agent_games(game, [21, 22, 23], "heuristic")
        assert play_back(envs.spec(game), rules, [(r.seed, r.actions) for r in records]) == [r.result for r in records]


def edit(path, number, change):
    """Rewrite line ``number`` (1-based) of a file with ``change(text) -> text``."""
    lines = path.read_text().splitlines()
    lines[number - 1] = change(lines[number - 1])
    path.write_text("\n".join(lines) + "\n")


def header_with(**fields):
    def change(line):
        data = json.loads(line)
        for key, value in fields.items():
            if key in data:
                data[key] = value
            else:
                data["rules"][key] = value
        return json.dumps(data)
    return change


def game_with(**fields):
    def change(line):
        return json.dumps({**json.loads(line), **fields})
    return change


@pytest.mark.parametrize("number, change, message", [
    (3, lambda line: line[:-5], "line 3: not valid JSON"),
    (2, lambda line: "[1, 2]", "line 2: expected a JSON object, got list"),
    (1, header_with(version=2), "line 1: replay format version 2; this aerodeck reads version 1"),
    (1, header_with(format="csv"), "line 1: not a replay header"),
    (1, header_with(game="chess"), "line 1: unknown game 'chess'"),
    (1, header_with(grid_size=99), "line 1: rules: rule option 'grid_size'"),
    (1, header_with(colour=3), "line 1: rules: unknown rule option 'colour'"),
    (1, header_with(action_points=3), "line 2: "),  # other rules: the recorded actions do not replay
    (1, header_with(face_up=3, max_replace=3), "line 2: "),
    (1, header_with(grid_size=5), "line 2: actions must be a list of integers in 0..181, found"),
    (3, game_with(result={"score": [7]}), "line 3: replaying gives {'score': [0]}, the file records {'score': [7]}"),
    (2, game_with(actions=[0, 1, 2]), "line 2: decision 1: action 0 (fly N 1) is illegal"),
    (2, game_with(actions=[-1]), "line 2: actions must be a list of integers in 0..533, found -1"),
    (2, game_with(agents=["a", "b"]), "line 2: agents must list 1 agent name(s), one per seat"),
    (2, game_with(seed=-4), "line 2: seed must be an integer in 0..2**64-1"),
    (3, lambda line: json.dumps({k: v for k, v in json.loads(line).items() if k != "actions"}),
     "line 3: a game line needs actions"),
])
def test_a_corrupt_line_or_other_rules_is_refused_naming_the_line(as_file, number, change, message):
    path, _ = as_file
    edit(path, number, change)
    with pytest.raises(ReplayError) as err:
        read(path)
    assert message in str(err.value) and str(path) in str(err.value)
    if message == "line 2: ":  # the header's rules differ from those the games were played under
        assert "recorded under other rules" in str(err.value)


def test_a_second_header_is_refused(as_file):
    path, _ = as_file
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines + [lines[0]]) + "\n")
    with pytest.raises(ReplayError, match="line 5: a second header"):
        read(path)


def test_a_game_cut_short_is_refused(as_file):
    path, records = as_file
    edit(path, 3, game_with(actions=records[1].actions[:-1]))
    with pytest.raises(ReplayError, match=rf"line 3: the game is not over after its {len(records[1].actions) - 1} "):
        read(path)


@pytest.mark.parametrize("content, message", [(b"", "empty"), (b"\xff\xfe\x00", "line 1: not UTF-8 text")])
def test_files_that_are_not_replays_are_refused(tmp_path, content, message):
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    with pytest.raises(ReplayError, match=message):
        read(path)
    with pytest.raises(ReplayError, match="does not exist"):
        read(tmp_path / "missing.jsonl")


def test_replay_steps_next_back_and_jumps(as_file, monkeypatch, capsys):
    path, records = as_file
    n = len(records[1].actions)
    status, out, _ = replay_command([str(path), "--game", "1"], ["", "n", "b", "j 3", "e", "n", "q"],
                                    monkeypatch, capsys)
    assert status == 0
    assert f"{SOLO.title} · game 1 · seed 2 · the deal" in out
    shown = [line.split(":")[0] for line in out.splitlines() if line.startswith("decision ")]
    assert shown == ["decision 1/%d" % n, "decision 2/%d" % n, "decision 1/%d" % n, "decision 3/%d" % n,
                     "decision %d/%d" % (n, n)]
    assert "that was the last decision" in out and "end of the game · result {'score': [0]}" in out
    status, out, _ = replay_command([str(path)], [], monkeypatch, capsys)  # the end of input: quits cleanly
    assert status == 0 and "the deal" in out


def test_replay_gif_has_one_frame_per_decision(as_file, tmp_path, monkeypatch, capsys):
    path, records = as_file
    gif = tmp_path / "game.gif"
    status, out, _ = replay_command([str(path), "--gif", str(gif)], [], monkeypatch, capsys)
    assert status == 0 and f"({len(records[0].actions)} frames, one per decision)" in out
    with Image.open(gif) as image:
        assert image.n_frames == len(records[0].actions)


def test_replay_gif_into_a_missing_folder_is_refused_and_nothing_is_made(as_file, tmp_path, monkeypatch, capsys):
    # Before: --gif /nonexist/x.gif made /nonexist/ and exited 0.
    path, _ = as_file
    gif = tmp_path / "no" / "such" / "game.gif"
    status, _, err = replay_command([str(path), "--gif", str(gif)], [], monkeypatch, capsys)
    assert status == 2
    assert err == (f"aerodeck replay: error: --gif {str(gif)!r}: the folder {str(gif.parent)!r} does not exist "
                   "(make it first)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["as.jsonl"]


def test_replay_gif_failing_midway_leaves_no_file(as_file, tmp_path, monkeypatch, capsys):
    from PIL import Image as PILImage

    def broken(self, fp, *args, **kwargs):
        Path(fp).write_bytes(b"GIF89a half")  # a first part written, then the disk fills up
        raise OSError("No space left on device")

    path, _ = as_file
    monkeypatch.setattr(PILImage.Image, "save", broken)
    status, _, err = replay_command([str(path), "--gif", str(tmp_path / "game.gif")], [], monkeypatch, capsys)
    assert status == 2 and "No space left on device" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["as.jsonl"]


def test_the_replay_prompt_lists_every_key_the_step_through_reads(as_file, monkeypatch, capsys):
    # Before: the prompt "[0/16] n/b/j N/q>" left out s and e.
    from aerodeck.watch.replay import STEP_KEYS

    path, records = as_file
    status, out, _ = replay_command([str(path)], ["?", "e", "s", "q"], monkeypatch, capsys)
    prompts = [line.split(">")[0] for line in out.splitlines() if line.startswith("[")]
    last = len(records[0].actions)
    assert prompts == [f"[0/{last}] n/b/j N/s/e/q/?", f"[0/{last}] n/b/j N/s/e/q/?", f"[{last}/{last}] n/b/j N/s/e/q/?",
                       f"[0/{last}] n/b/j N/s/e/q/?"]  # ? shows the keys, e goes to the end, s back to the deal
    assert "e: end" in out and "s: start" in out and "?: these keys" in out
    assert [key.split()[0] for key, _ in STEP_KEYS] == ["n", "b", "j", "s", "e", "q", "?"]


@pytest.mark.parametrize("argv, message", [(["--game", "3"], "--game 3: the file holds games 0..2"),
                                           (["--fps", "0"], "--fps must be positive")])
def test_replay_refuses_bad_options(as_file, argv, message, monkeypatch, capsys):
    path, _ = as_file
    status, _, err = replay_command([str(path), *argv], [], monkeypatch, capsys)
    assert status == 2 and message in err


def test_replay_lists_the_games_of_a_file(as_file, monkeypatch, capsys):
    path, records = as_file
    status, out, _ = replay_command([str(path), "--list"], [], monkeypatch, capsys)
    assert status == 0 and f"{SOLO.title}, rules default, 3 game(s), written by test" in out
    assert f"seed 2  {len(records[1].actions)} decisions  agents random" in out


@pytest.mark.parametrize("game", [SOLO.id, MULTI.id])
def test_games_recorded_from_the_play_loop_replay_to_the_scores_it_played(game):
    from aerodeck.arena.loop import game_seeds, play_games
    from aerodeck.arena.replays import Recorder

    spec = envs.spec(game)
    rules = spec.make_rules()
    core = spec.make_core(rules, check_actions=False)
    agents = [make_agent(game, "heuristic", rules, seed=1), make_agent(game, "random", rules, seed=2)]
    seeds = game_seeds(7, 6)
    lineups = None if spec.solo else np.array([[0] + [1] * (core.n_players - 1)] * 6)
    recorder = Recorder(5)
    names = [["heuristic"]] * 6 if spec.solo else [["heuristic"] + ["random"] * (core.n_players - 1)] * 6
    scores = []
    for first in (0, 3):  # played in two chunks (and batches of 2): game numbers carry on across calls
        chunk = slice(first, first + 3)
        out = play_games(core, agents[:1] if spec.solo else agents, seeds[chunk],
                         None if lineups is None else lineups[chunk], batch_size=2, progress=False,
                         make_view=spec.make_view, summary=spec.summary_of(),
                         observers=[recorder.observer(first, seeds[chunk], names[chunk])])
        scores += out["score"].tolist()
    records = recorder.records(spec, rules)
    assert [r.game for r in records] == [0, 1, 2, 3, 4]
    assert [r.result["score"] for r in records] == scores[:5]
    assert [r.seed for r in records] == seeds[:5].tolist()


def test_bench_save_games_writes_replays_of_the_games_it_scored(tmp_path, capsys):
    import csv

    out = tmp_path / "solo"
    assert cli.main(["bench", SOLO.id, "--agent", "random", "--agent", "heuristic", "--games", "20",
                     "--seed", "4", "--save-games", "3", "--out", str(out), "--no-progress"]) == 0
    replay = read(out / "games.jsonl")  # every game replays to its recorded score, or read raises
    rows = list(csv.DictReader((out / "games.csv").open()))
    assert [(r.game, r.agents) for r in replay.records] == [(i, [a]) for a in ("random", "heuristic") for i in range(3)]
    for r in replay.records:
        assert str(r.seed) == rows[r.game]["seed"] and f"{r.result['score'][0]:g}" == rows[r.game][r.agents[0]]
    assert "games.jsonl" in capsys.readouterr().out

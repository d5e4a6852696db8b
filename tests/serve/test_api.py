"""``aerodeck serve``'s JSON API through Starlette's TestClient: bad input is a 4xx with one line (path
traversal, an unknown rule option, an illegal move, a malformed replay), games are independent, a
finished game is a replay file ``aerodeck replay`` reads, a seat sees only its own observation, and a
slow agent in one game does not hold up another (a live server in a thread)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import httpx2 as httpx
import numpy as np
import pytest
from starlette.testclient import TestClient

from aerodeck.arena.args import load_rules
from aerodeck.arena.replays import read
from aerodeck.serve.app import make_app
from tests.serve.server import running, solo_game, table_game


@pytest.fixture
def folders(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "note.txt").write_text("inside\n")
    (tmp_path / "secret.txt").write_text("TOPSECRET\n")
    return runs, tmp_path / "games"


@pytest.fixture
def client(folders):
    runs, games = folders
    return TestClient(make_app([runs], games), raise_server_exceptions=False)


def one_line_error(response, status: int) -> str:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert message and "\n" not in message and "Traceback" not in message
    return message


def play_out(client, view, choose=lambda v: v["moves"][0]["action"]) -> dict:
    """Play a game to its end: the person's moves by ``choose``, the agents' by advancing."""
    for _ in range(2000):
        if view["done"] and not view["pending"]:
            return view
        if view["pending"]:
            view = client.post(f"/api/games/{view['id']}/advance").json()
        else:
            view = client.post(f"/api/games/{view['id']}/move", json={"action": choose(view)}).json()
    raise AssertionError("the game did not end")


def test_a_path_outside_the_runs_folders_is_refused_with_one_line(client, folders, tmp_path):
    runs, _ = folders
    assert client.get("/files/0/note.txt").text == "inside\n"
    for url in ("/files/0/..%2Fsecret.txt", "/files/0/%2E%2E/secret.txt", "/files/0/sub/..%2F..%2Fsecret.txt"):
        assert "TOPSECRET" not in client.get(url).text
        one_line_error(client.get(url), 400)
    one_line_error(client.get("/api/run", params={"root": 0, "path": "../"}), 400)
    one_line_error(client.get("/api/replay", params={"root": 0, "path": str(tmp_path / "secret.txt")}), 400)
    one_line_error(client.get("/files/7/note.txt"), 404)
    one_line_error(client.get("/files/x/note.txt"), 400)
    os.symlink(tmp_path / "secret.txt", runs / "link.txt")  # a link that points out of the folder
    assert "leads outside" in one_line_error(client.get("/files/0/link.txt"), 400)


def test_an_unknown_rule_option_is_refused_with_the_clis_message(client):
    spec = solo_game()
    response = client.post("/api/games", json={"game": spec.id, "rules": ["no_such_option=1"]})
    message = one_line_error(response, 400)
    with pytest.raises(ValueError) as cli:
        load_rules(spec, None, ["no_such_option=1"])
    assert message == str(cli.value)
    assert "unknown rule option 'no_such_option'" in message
    one_line_error(client.post("/api/games", json={"game": "no-such-game"}), 400)
    one_line_error(client.post("/api/games", json={"game": spec.id, "opponents": "no_such_agent"}), 400)
    one_line_error(client.post("/api/games", content=b"not json", headers={"content-type": "application/json"}), 400)
    one_line_error(client.post("/api/games", content=b'{"game": "x"}', headers={"content-type": "text/plain"}), 400)


def test_an_illegal_move_is_refused_and_changes_nothing(client):
    spec = table_game()
    view = client.post("/api/games", json={"game": spec.id, "players": 4, "seed": 3, "opponents": "random"}).json()
    while view["pending"]:
        view = client.post(f"/api/games/{view['id']}/advance").json()
    legal = {m["action"] for m in view["moves"]}
    illegal = next(a for a in range(spec.make_core(spec.make_rules(n_players=4)).n_actions) if a not in legal)
    message = one_line_error(client.post(f"/api/games/{view['id']}/move", json={"action": illegal}), 400)
    assert "is not allowed now" in message
    one_line_error(client.post(f"/api/games/{view['id']}/move", json={"action": 10**6}), 400)
    one_line_error(client.post(f"/api/games/{view['id']}/move", json={"action": "1"}), 400)
    one_line_error(client.post(f"/api/games/{view['id']}/move", json={}), 400)
    assert client.get(f"/api/games/{view['id']}").json()["decisions"] == view["decisions"]
    one_line_error(client.post("/api/games/nosuchgame/move", json={"action": 0}), 404)


def test_a_malformed_replay_is_refused_with_the_readers_line(client, folders):
    runs, _ = folders
    (runs / "broken.jsonl").write_text('{"format": "aerodeck-replay", "version": 1}\nnot json\n')
    message = one_line_error(client.get("/api/replay", params={"root": 0, "path": "broken.jsonl"}), 400)
    assert message.startswith("cannot read the replay:") and "line 1" in message
    (runs / "empty.jsonl").write_text("")
    assert "empty" in one_line_error(client.get("/api/replay/game", params={"root": 0, "path": "empty.jsonl"}), 400)


def test_two_games_at_once_are_independent_and_each_ends_as_a_replay_file(client):
    spec = table_game()
    a = client.post("/api/games", json={"game": spec.id, "players": 4, "seed": 5}).json()
    b = client.post("/api/games", json={"game": spec.id, "players": 4, "seed": 5}).json()
    assert a["id"] != b["id"] and a["board"] == b["board"]
    a = play_out(client, a, lambda v: v["moves"][0]["action"])
    b = play_out(client, b, lambda v: v["moves"][-1]["action"])
    files = [read(Path(v["saved"])) for v in (a, b)]
    assert [f.records[0].agents[0] for f in files] == ["human", "human"]
    assert files[0].records[0].actions != files[1].records[0].actions  # the same deal, played apart


def test_a_solo_game_is_played_beside_the_agent_on_the_same_deal(client):
    spec = solo_game()
    view = play_out(client, client.post("/api/games", json={"game": spec.id, "seed": 9, "opponents": "heuristic"}).json())
    replay = read(Path(view["saved"]))
    assert [r.agents for r in replay.records] == [["human"], ["heuristic"]]
    assert {r.seed for r in replay.records} == {9}
    lines = Path(view["saved"]).read_text().splitlines()
    rated = json.loads(lines[2])["candidates"]  # the heuristic rates its moves: its candidates are kept
    assert len(rated) == len(replay.records[1].actions)
    assert all(c and len(c[0]) == 2 and isinstance(c[0][0], int) for c in rated)
    assert view["rival"]["done"] and view["summary"]


def test_a_seat_sees_only_its_own_observation(client, monkeypatch):
    """The board is drawn from the seat's observation: hiding every other seat's hand from the core's
    observation changes nothing on the page."""
    spec = table_game()
    view = client.post("/api/games", json={"game": spec.id, "players": 4, "seed": 1}).json()
    table = client.app.state.tables.get(view["id"])
    core = table.main.core
    calls = []
    original = core.observe

    def observe(state, seat=0):
        calls.append(int(np.asarray(seat).ravel()[0]) if np.ndim(seat) else int(seat))
        return original(state, seat)

    monkeypatch.setattr(core, "observe", observe)
    client.get(f"/api/games/{view['id']}")
    assert calls and set(calls) == {table.seat}


class Blocking:
    """An agent that waits for ``release`` before its move (then plays as ``inner``)."""

    def __init__(self, inner, release: threading.Event, started: threading.Event) -> None:
        self.inner, self.release, self.started = inner, release, started
        self.needs_view = inner.needs_view

    def act(self, obs, mask, view=None):
        self.started.set()
        assert self.release.wait(60)
        return self.inner.act(obs, mask, view)


def test_a_slow_agent_does_not_hold_up_another_game(folders):
    """While one game's agent is still thinking (it waits for an event), another game is made and
    played: the agents' moves run in the thread pool, not on the server's event loop."""
    runs, games = folders
    spec = table_game()
    release, started = threading.Event(), threading.Event()
    with running([runs], games) as (url, app), httpx.Client(base_url=url, timeout=30) as http:
        slow = http.post("/api/games", json={"game": spec.id, "players": 4, "seat": 1, "seed": 2}).json()
        table = app.state.tables.get(slow["id"])
        table.agents[0] = Blocking(table.agents[0], release, started)
        result = {}
        thinking = threading.Thread(target=lambda: result.update(
            view=httpx.post(f"{url}/api/games/{slow['id']}/advance", timeout=60).json()))
        thinking.start()
        try:
            assert started.wait(30)
            other = http.post("/api/games", json={"game": spec.id, "players": 4, "seed": 4}).json()
            while other["pending"]:
                other = http.post(f"/api/games/{other['id']}/advance").json()
            assert other["your_turn"] and not release.is_set()  # answered while the slow agent thinks
        finally:
            release.set()
            thinking.join(60)
        assert result["view"]["decisions"] == 1


def test_a_move_with_reply_brings_the_next_agent_decision_in_the_same_call(client):
    spec = table_game()
    view = client.post("/api/games", json={"game": spec.id, "players": 4, "seed": 6}).json()
    while view["pending"]:
        view = client.post(f"/api/games/{view['id']}/advance").json()
    answered = client.post(f"/api/games/{view['id']}/move", json={"action": view["moves"][0]["action"], "reply": True}).json()
    assert answered["moved"]["decisions"] == view["decisions"] + 1  # the person's move
    assert answered["decisions"] == view["decisions"] + 2 and answered["thought_ms"] is not None  # and the agent's
    one_line_error(client.post(f"/api/games/{view['id']}/move", json={"action": 0, "reply": "yes"}), 400)

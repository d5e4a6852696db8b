"""How fast ``aerodeck serve`` answers a person's move: p50/p95 over whole games, per game and agent.

    python benchmarks/serve_latency.py [--games 3] [--agents heuristic expert] [--seed 0]

Starts the real command (``aerodeck serve --no-browser --port 0``) in a subprocess and plays whole games
through its HTTP API as the page does: the person's move (the first legal one), then the agents'
replies one at a time. Per move it times, on the client's clock:

- ``reply``: the move sent → the first agent reply received (one request, ``"reply": true``, as the page
  sends it: the move's page and the next decision's page with the agent's move drawn on it) — the
  figure a person waits for; in a solo game the agent's decision on the same deal beside the person's;
- ``turn``: the move sent → the person's turn again (every agent reply in between);
- ``agent``: how long the agent itself took to choose that first reply (its ``act``, timed by the
  server): ``reply`` less ``agent`` is what the app adds (the HTTP round trip, the board drawn twice).

Each page is the whole board as HTML plus the legal moves with their board parts, so the times include
drawing the board on the server and the JSON on the wire.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

import numpy as np

from aerodeck import envs


def post(url: str, data: dict | None = None) -> dict:
    request = urllib.request.Request(url, data=json.dumps(data or {}).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())


def play(base: str, game: str, players, agent: str, seed: int, limit: int = 10**6) -> tuple[list, list, list]:
    """One whole game (at most ``limit`` of the person's moves); the ``reply``, ``turn`` and ``agent``
    times (seconds) of each of the person's moves."""
    view = post(f"{base}/api/games", {"game": game, "players": players, "opponents": agent, "seed": seed})
    gid = view["id"]
    while view["pending"] == "agent":
        view = post(f"{base}/api/games/{gid}/advance")
    replies, turns, thoughts = [], [], []
    while not view["done"] and len(turns) < limit:
        start = time.perf_counter()
        view = post(f"{base}/api/games/{gid}/move", {"action": view["moves"][0]["action"], "reply": True})
        first = None
        if "moved" in view:  # the move and the first reply in one round trip, as the page asks
            first = time.perf_counter()
            thought = view["rival"]["thought_ms"] if "rival" in view else view["thought_ms"]  # solo: the rival
            thoughts.append((thought or 0.0) / 1000)
        while view["pending"]:
            view = post(f"{base}/api/games/{gid}/advance")
            if first is None:
                first = time.perf_counter()
                thought = view["rival"]["thought_ms"] if "rival" in view else view["thought_ms"]  # solo: the rival
                thoughts.append((thought or 0.0) / 1000)
            if view["done"]:
                break
        end = time.perf_counter()
        replies.append((first or end) - start)
        turns.append(end - start)
    while view["pending"] and view["done"]:  # the solo rival's last decisions, untimed
        view = post(f"{base}/api/games/{gid}/advance")
    return replies, turns, thoughts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3, help="games per game and agent (default 3)")
    parser.add_argument("--agents", nargs="+", default=["heuristic", "expert"])
    parser.add_argument("--players", type=int, default=4, help="players of the multi-player games (default 4)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as games_dir:
        server = subprocess.Popen([sys.executable, "-m", "aerodeck", "serve", "--no-browser", "--port", "0",
                                   "--games", games_dir], stdout=subprocess.PIPE, text=True,
                                  env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            line = server.stdout.readline()
            match = re.search(r"(http://\S+?)/? ", line)
            if not match:
                raise SystemExit(f"the server did not start: {line!r}")
            base = match.group(1).rstrip("/")
            print(f"{'game':<18} {'agent':<10} {'moves':>5}  {'reply p50':>9} {'reply p95':>9}  {'turn p50':>8} "
                  f"{'turn p95':>8}  {'agent p50':>9} {'agent p95':>9}")
            for spec in envs.specs():
                players = None if spec.solo else args.players
                for agent in args.agents:
                    play(base, spec.id, players, agent, 10**9, limit=3)  # warm up: the agent's first moves compile
                    replies, turns, thoughts = [], [], []
                    for g in range(args.games):
                        r, t, a = play(base, spec.id, players, agent, args.seed + g)
                        replies += r
                        turns += t
                        thoughts += a
                    ms = lambda xs, q: 1000 * float(np.percentile(xs, q))  # noqa: E731
                    label = spec.id + ("" if spec.solo else f" {players}p")
                    print(f"{label:<18} {agent:<10} {len(replies):>5}  {ms(replies, 50):>7.1f}ms {ms(replies, 95):>7.1f}ms  "
                          f"{ms(turns, 50):>6.1f}ms {ms(turns, 95):>6.1f}ms  {ms(thoughts, 50):>7.1f}ms "
                          f"{ms(thoughts, 95):>7.1f}ms", flush=True)
        finally:
            server.terminate()
            server.wait(30)


if __name__ == "__main__":
    main()

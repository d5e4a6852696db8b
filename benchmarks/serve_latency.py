"""How fast ``aerodeck serve`` answers a person's move: p50/p95 over whole games, per game and agent.

    python benchmarks/serve_latency.py [--games 3] [--agents heuristic expert] [--seed 0] [--browser]

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

``--browser`` also plays the same games through the page in headless Chromium (Debian's ``chromium``,
Playwright), clicking the first listed move each time, and prints ``drawn``: the click → the agent's
answer painted on the page (the frame after it is drawn), as the page itself times it.
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
    parser.add_argument("--browser", action="store_true", help="also time the answer drawn in headless Chromium")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
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
            if args.browser:
                drawn(base, args)
        finally:
            server.terminate()
            server.wait(30)


def drawn(base: str, args) -> None:
    """The same games played through the page in headless Chromium: p50/p95 of the click → the agent's
    answer painted (``window.aerodeckReplies``, timed by the page)."""
    from playwright.sync_api import sync_playwright

    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync"]
    print(f"{'game':<18} {'agent':<10} {'moves':>5}  {'drawn p50':>9} {'drawn p95':>9}   (in Chromium)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=flags)
        page = browser.new_page(viewport={"width": 1360, "height": 900})
        for spec in envs.specs():
            players = None if spec.solo else args.players
            for agent in args.agents:
                times = []
                for g in range(args.games):
                    view = post(f"{base}/api/games", {"game": spec.id, "players": players, "opponents": agent,
                                                      "seed": args.seed + g})
                    page.goto(f"{base}/#/play/{view['id']}?pace=0")
                    page.reload()  # a fresh page: its timings are this game's
                    while True:
                        page.wait_for_selector("body[data-state='your-turn'], body[data-state='over']")
                        if page.get_attribute("body", "data-state") == "over":
                            break
                        before = page.get_attribute("body", "data-decisions")
                        page.locator("#moves li").first.click()
                        page.wait_for_function("n => document.body.dataset.decisions !== n || "
                                               "document.body.dataset.state === 'over'", arg=before)
                    page.wait_for_timeout(100)  # the last answer's paint
                    times += page.evaluate("window.aerodeckReplies")
                label = spec.id + ("" if spec.solo else f" {players}p")
                print(f"{label:<18} {agent:<10} {len(times):>5}  {np.percentile(times, 50):>7.1f}ms "
                      f"{np.percentile(times, 95):>7.1f}ms", flush=True)
        browser.close()


if __name__ == "__main__":
    main()

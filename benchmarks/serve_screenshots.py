"""The screenshots of docs/serve.md: each page of ``aerodeck serve`` in headless Chromium (Playwright).

    python benchmarks/serve_screenshots.py [--out docs/images] [--chromium /usr/bin/chromium]

Makes a small compare (``--save-games``), a small bench and a short training run in a temporary folder,
serves it, and draws: the new-game form, a solo game and a 4-player game under way, a finished game's
end screen, a replay on the watch page, the list of output folders, a compare's page and a training
run's page. Needs Debian's ``chromium`` (``apt-get install -y
--no-install-recommends chromium``) and the ``playwright`` package (never ``playwright install``).
"""

from __future__ import annotations

import argparse
import socket
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
from PIL import Image
from playwright.sync_api import sync_playwright

from aerodeck import envs
from aerodeck.cli.main import main as aerodeck
from aerodeck.serve.app import LOCAL_HOSTS, make_app

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def serve(runs: Path, games: Path):
    """uvicorn in a thread on a free port; (url, server, thread)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(uvicorn.Config(make_app([runs], games, hosts=LOCAL_HOSTS), log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    return f"http://127.0.0.1:{sock.getsockname()[1]}", server, thread


def start(page, url: str, game: str, players: int | None, seed: int) -> None:
    page.goto(url + "/#/")
    page.wait_for_selector("body[data-state='ready']")
    page.select_option("#game", game)
    if players:
        page.select_option("#players", str(players))
    page.fill("#seed", str(seed))
    page.select_option("#pace", "0")
    page.click("#start")


def your_turn(page) -> str:
    page.wait_for_selector("body[data-state='your-turn'], body[data-state='over']")
    return page.get_attribute("body", "data-state")


def moves(page, k: int) -> None:
    """The person's first listed move, ``k`` times (or to the end)."""
    for _ in range(k):
        if your_turn(page) == "over":
            return
        before = page.get_attribute("body", "data-decisions")
        page.locator("#moves li").first.click()
        page.wait_for_function("n => document.body.dataset.decisions !== n || document.body.dataset.state === 'over'",
                               arg=before)
    your_turn(page)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    solo = next(s for s in envs.specs() if s.solo)
    table = next(s for s in envs.specs() if not s.solo and 4 in s.player_counts)
    with tempfile.TemporaryDirectory() as tmp:
        runs, games = Path(tmp) / "runs", Path(tmp) / "games"
        runs.mkdir()
        variant = ",".join(f"{k}={v}" for k, v in solo.variants[1].items())
        aerodeck(["compare", solo.id, "--agent", "heuristic", "--agent", "random", "--games", "40", "--variant",
                  f"small:{variant}", "--save-games", "3", "--out", str(runs / "compare-small-grid"), "--no-progress"])
        aerodeck(["bench", table.id, "--agent", "heuristic", "--agent", "random", "--games", "24", "--save-games", "2",
                  "--out", str(runs / "bench-table"), "--no-progress"])
        config = Path(tmp) / "train.toml"
        config.write_text("[train]\nsteps = 4096\neval_every = 1024\neval_games = 100\n[warm_start]\ngames = 0\n")
        aerodeck(["train", solo.id, "--config", str(config), "--out", str(runs / "train-short"), "--no-progress"])
        url, server, thread = serve(runs, games)
        shots = []
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium, args=ARGS)
                page = browser.new_page(viewport={"width": 1360, "height": 900})

                def shot(name: str, full: bool = False) -> None:
                    path = args.out / f"serve-{name}.png"
                    page.screenshot(path=str(path), full_page=full)
                    with Image.open(path) as image:  # a palette of 256 colours: a third of the bytes
                        small = image.convert("RGB").quantize(colors=256)
                    small.save(path, optimize=True)
                    shots.append(path)

                page.goto(url + "/#/")
                page.wait_for_selector("body[data-state='ready']")
                page.select_option("#game", table.id)
                page.click("details summary")
                shot("new-game")
                start(page, url, solo.id, None, 11)
                moves(page, 2)
                page.locator("#board [data-part^='slot:']").first.click()  # a face-up card chosen: where it may go
                shot("play-solo")
                start(page, url, table.id, 4, 11)
                moves(page, 4)
                shot("play-table")
                moves(page, 1000)
                page.locator("#end").scroll_into_view_if_needed()
                shot("end")
                page.click("#watch-it")
                page.wait_for_selector("body[data-state='ready'] #caption")
                for _ in range(6):
                    page.keyboard.press("ArrowRight")
                shot("watch")
                page.goto(url + "/#/judge")
                page.wait_for_selector("body[data-state='ready']")
                shot("judge")
                page.click("table.runs a[href$='/compare-small-grid']")
                page.wait_for_selector("body[data-state='ready'] #verdict")
                page.wait_for_function("() => [...document.querySelectorAll('.plots img')].every(i => i.complete)")
                page.set_viewport_size({"width": 1360, "height": 1500})
                shot("compare")
                page.set_viewport_size({"width": 1360, "height": 760})
                page.goto(url + "/#/judge")
                page.wait_for_selector("body[data-state='ready']")
                page.click("table.runs a[href$='/train-short']")
                page.wait_for_selector("body[data-state='ready'] #curve")
                shot("train")
                browser.close()
        finally:
            server.should_exit = True
            thread.join(10)
    for path in shots:
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

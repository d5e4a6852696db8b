"""``aerodeck serve`` end to end in a real headless Chromium (Debian's ``chromium``, driven by Playwright):
a whole solo game and a whole 4-player game against the heuristic played through the page by clicks
and keys to the end screen, the saved replay played in ``aerodeck replay``; a replay stepped
through; a compare folder (made here with ``--save-games``) opened with its verdict, plots and the
games behind a row. Skipped only where /usr/bin/chromium is absent (CI installs it:
``apt-get install -y --no-install-recommends chromium``)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from filelock import FileLock

from aerodeck.arena.output import MANIFEST
from aerodeck.arena.replays import read
from aerodeck.cli.main import main as aerodeck
from tests.serve.server import running, solo_game, table_game

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="headless Chromium is not installed at /usr/bin/chromium "
                                "(apt-get install -y --no-install-recommends chromium); CI installs it")


@pytest.fixture(scope="session")
def compared(tmp_path_factory, worker_id):
    """A folder holding a tiny compare with its replays saved, made once for the whole run (the xdist
    workers share it: the first makes it under a file lock)."""
    shared = tmp_path_factory.getbasetemp() if worker_id == "master" else tmp_path_factory.getbasetemp().parent
    runs = shared / "serve-compared"
    with FileLock(str(shared / "serve-compared.lock")):
        if not (runs / "compare" / MANIFEST).exists():
            runs.mkdir(exist_ok=True)
            spec = solo_game()
            variant = ",".join(f"{k}={v}" for k, v in spec.variants[1].items())
            assert aerodeck(["compare", spec.id, "--agent", "random", "--games", "10", "--variant", f"small:{variant}",
                             "--save-games", "2", "--out", str(runs / "compare"), "--no-progress"]) == 0
    return runs


@pytest.fixture(scope="module")
def site(tmp_path_factory, compared):
    """A server reading the compare's folder and a folder of this worker's own; yields (url, own folder,
    games folder)."""
    root = tmp_path_factory.mktemp("serve")
    own, games = root / "runs", root / "games"
    own.mkdir()
    with running([compared, own], games) as (url, _):
        yield url, own, games


def training_run(folder: Path, game: str) -> None:
    """A training run's folder as ``aerodeck train`` leaves it for the page: its manifest and
    ``evaluations.csv`` (three evaluations, written by the trainer's own writer)."""
    from aerodeck.train.callbacks import append_evaluation

    folder.mkdir()
    for steps, value in ((0, 1.0), (2048, 1.25), (4096, 1.5)):
        append_evaluation(folder / "evaluations.csv", {"steps": steps, "figure": "mean_score", "value": value,
                                                      "low": value - 0.1, "high": value + 0.1, "opponent": "heuristic"},
                          seconds=steps / 100)
    (folder / MANIFEST).write_text(json.dumps({"written_by": "aerodeck", "command": f"aerodeck train {game}",
                                               "files": ["evaluations.csv"]}))


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    yield page
    context.close()
    assert not errors, f"the page raised: {errors}"


def state(page) -> str:
    """Wait until it is the person's turn or the game is over; which."""
    page.wait_for_selector("body[data-state='your-turn'], body[data-state='over'], body[data-state='error']")
    value = page.get_attribute("body", "data-state")
    assert value != "error", page.inner_text("#error")
    return value


def move(page, how: str) -> None:
    """One move of the person's: by ``click`` on the list, by ``board`` (its clickable parts), or by
    ``keys`` (the move's number, then Enter)."""
    if how == "board" and page.locator("#board .part.clickable").count():
        for _ in range(3):  # a move is one to three parts (a card; a slot then a cell; a player then a square)
            page.locator("#board .part.clickable").first.click()
            if page.get_attribute("body", "data-state") != "your-turn" or not page.locator("#board .part.clickable").count():
                return
        page.keyboard.press("Escape")
    if how == "keys":
        page.keyboard.press("1")
        page.keyboard.press("Enter")
    else:
        page.locator("#moves li").first.click()


def play_to_the_end(page, url: str, game: str, players: int | None) -> str:
    """Start ``game`` from the form against the heuristic and play it to the end screen, by board
    clicks, list clicks and keys in turn; the saved replay's path."""
    page.goto(url + "/#/")
    page.wait_for_selector("body[data-state='ready']")
    page.select_option("#game", game)
    if players is not None:
        page.select_option("#players", str(players))
    page.fill("#opponents", "heuristic")
    page.fill("#seed", "11")
    page.select_option("#pace", "0")
    page.click("#start")
    for step in range(1000):
        if state(page) == "over":
            break
        before = page.get_attribute("body", "data-decisions")
        move(page, ("board", "keys", "click")[step % 3])
        page.wait_for_function("n => document.body.dataset.decisions !== n || document.body.dataset.state === 'over'",
                               arg=before)
    else:
        raise AssertionError("the game did not end")
    assert "Game over" in page.inner_text("#summary")
    saved = page.get_attribute("#replay-file", "data-path")
    assert f"aerodeck replay {saved}" in page.inner_text("#end")
    return saved


def replays_in_the_terminal(path: str, game: int, monkeypatch, capsys) -> str:
    """``aerodeck replay FILE --game I`` stepped to the end (e, then q); what it printed."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("e\nq\n"))
    assert aerodeck(["replay", path, "--game", str(game)]) == 0
    return capsys.readouterr().out


def test_a_whole_solo_game_against_the_heuristic_is_played_in_the_browser(site, page, monkeypatch, capsys):
    url, _, games = site
    spec = solo_game()
    saved = play_to_the_end(page, url, spec.id, None)
    assert page.locator("#rival-summary").count() == 1  # the heuristic's game on the same deal
    replay = read(saved)
    assert Path(saved).parent == games and [r.agents for r in replay.records] == [["human"], ["heuristic"]]
    assert "end of the game" in replays_in_the_terminal(saved, 0, monkeypatch, capsys)
    page.click("#watch-it")  # the saved game on the watch page: the heuristic's rated candidates
    page.wait_for_selector("body[data-state='ready'] #caption")
    page.select_option("#game-pick", "1")
    page.wait_for_selector("body[data-state='ready'] #candidates")
    assert page.locator("#candidates tr").count() >= 2


def test_a_whole_four_player_game_against_the_heuristic_is_played_in_the_browser(site, page, monkeypatch, capsys):
    url, _, _ = site
    spec = table_game(4)
    saved = play_to_the_end(page, url, spec.id, 4)
    record = read(saved).records[0]
    assert record.agents == ["human", "heuristic", "heuristic", "heuristic"]
    assert "end of the game" in replays_in_the_terminal(saved, 0, monkeypatch, capsys)
    assert page.locator("#board").count() == 1


def test_a_replay_steps_forward_back_and_jumps(site, page):
    url, _, _ = site
    page.goto(url + "/#/watch")
    page.click("a[href*='small--random']")
    page.wait_for_selector("body[data-state='ready'] #caption")
    decision = lambda: page.get_attribute("body", "data-decision")  # noqa: E731
    assert decision() == "0" and "the deal" in page.inner_text("#caption")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert decision() == "2" and page.inner_text("#caption").startswith("decision 2/")
    page.click("#back")
    assert decision() == "1"
    assert page.locator("#moves li.chosen").count() == 1  # the move chosen at decision 2, among the legal ones
    page.fill("#jump", "3")
    page.click("#go")
    assert decision() == "3"
    page.keyboard.press("End")
    assert "end of the game" in page.inner_text("#next-caption")


def test_a_compare_folder_shows_its_verdict_plots_and_the_games_behind_a_row(site, page):
    url, _, _ = site
    page.goto(url + "/#/judge")
    page.click("table.runs a[href$='/compare']")
    page.wait_for_selector("body[data-state='ready'] #verdict")
    assert "small" in page.inner_text("#verdict")
    plots = page.locator(".plots img")
    assert plots.count() >= 1
    page.wait_for_function("() => [...document.querySelectorAll('.plots img')].every(i => i.complete && i.naturalWidth > 0)")
    rows = page.locator("#rows a.games")
    assert rows.count() == 2  # base and small under the random table, each with its saved games
    assert page.locator("#report a.games").count() >= 1  # the report's rows link to their games too
    page.locator("#rows tr", has_text="small").locator("a.games").click()
    page.wait_for_selector("body[data-state='ready'] #caption")
    assert page.locator("#game-pick option").count() == 2
    assert "small--random" in page.inner_text("h1")


def test_a_training_run_shows_its_evaluations_curve(site, page):
    url, own, _ = site
    training_run(own / "train-tiny", solo_game().id)
    page.goto(url + "/#/judge")
    page.click("table.runs a[href$='/train-tiny']")
    page.wait_for_selector("body[data-state='ready'] #curve")
    assert page.locator("#curve circle").count() == 3
    assert "mean_score" in page.text_content("#curve")

"""Helpers of the ``aerodeck bench`` tests (shared by the games' own bench tests)."""

import json

from aerodeck.cli import main as cli


def run(argv):
    """``aerodeck bench ARGV --no-progress``; the exit status."""
    return cli.main(["bench", *argv, "--no-progress"])


def results(folder):
    """The ``results.json`` of a bench in ``folder`` without its timings (they differ from run to run)."""
    data = json.loads((folder / "results.json").read_text())
    for agent in data["agents"].values():
        for timing in ("seconds", "games_per_second", "decisions_per_second"):
            agent.pop(timing, None)
    data.pop("seconds", None)
    data.pop("games_per_second", None)
    return data

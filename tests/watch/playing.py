"""``aerodeck play`` fed its input, for the tests of ``aerodeck.watch.play`` (``test_play.py`` and the
game-named ``test_*_play.py`` here)."""

import io
import sys

from aerodeck.cli import main as cli


def play(argv, lines, monkeypatch, capsys):
    """Run ``aerodeck play ARGV`` with ``lines`` as its input; (exit status, stdout, stderr)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    status = cli.main(["play", *argv])
    out = capsys.readouterr()
    return status, out.out, out.err

"""A real ``aerodeck serve`` app for the tests: uvicorn in a thread on a free port of 127.0.0.1, stopped
cleanly at the end (:func:`running`); and the games of the registry the tests play (no game is named)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from pathlib import Path

import uvicorn

from aerodeck import envs
from aerodeck.serve.app import LOCAL_HOSTS, make_app


def solo_game():
    """The registry's first solo game."""
    return next(s for s in envs.specs() if s.solo and s.web is not None)


def table_game(players: int = 4):
    """The registry's first multi-player game that seats ``players``."""
    return next(s for s in envs.specs() if not s.solo and players in s.player_counts and s.web is not None)


def free_socket() -> socket.socket:
    """A listening socket on a free port of 127.0.0.1."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock


@contextlib.contextmanager
def running(runs: list[Path], games: Path):
    """Serve the app (reading ``runs``, saving games in ``games``) for the block; yields its URL and the app."""
    sock = free_socket()
    port = sock.getsockname()[1]
    app = make_app(runs, games, hosts=LOCAL_HOSTS)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        assert not thread.is_alive(), "the server did not stop"

"""``aerodeck serve``: a local web app to play either game against the agents, watch replay files and
read the tools' output folders with the games behind a row.

``aerodeck serve [--port P] [--host 127.0.0.1] [--runs DIR ...] [--games DIR] [--no-browser]`` serves the
app on http://HOST:PORT/ until Ctrl-C, and opens it in the browser unless ``--no-browser``. It binds
127.0.0.1 (this machine only) unless ``--host`` says otherwise, and then warns: anyone who can reach
that address can play and read the ``--runs`` folders. It reads only the ``--runs`` folders and
``--games`` (where the games played in the browser are saved as replay files; default
``aerodeck-games`` in the current folder), nothing else on the disk.

Pages: **Play** (a new game: either game, any rule options, the agents of the other seats, the seed;
the board as the game is, your legal moves by click or keyboard, the agents' moves drawn one by one,
the replay file saved at the end), **Watch** (a replay file: step forward and back, jump to a
decision, each decision's legal moves and the agent's rated candidates where recorded), **Judge**
(the output folders under ``--runs``: a compare's verdict summary, tables and plots and the games
behind each row; a training run's evaluations curve).
"""

from __future__ import annotations

import argparse
import socket
import sys
import threading
import webbrowser
from pathlib import Path

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def port_arg(text: str) -> int:
    """``--port``: an integer in 0..65535 (0: any free port)."""
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"--port must be an integer in 0..65535, got {text!r}")
    return port


def add_parser(sub) -> None:
    """Register ``aerodeck serve``."""
    p = sub.add_parser("serve", help="a local web app: play, watch replays, read reports",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=port_arg, default=8765, help="the port (default 8765; 0: any free port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to bind (default 127.0.0.1: this machine only; another one is warned about)")
    p.add_argument("--runs", type=Path, nargs="+", action="extend", default=[], metavar="DIR",
                   help="folders of output folders and replay files to show (repeatable)")
    p.add_argument("--games", type=Path, default=Path("aerodeck-games"), metavar="DIR",
                   help="where the games played in the browser are saved as replay files (default ./aerodeck-games)")
    p.add_argument("--no-browser", action="store_true", help="do not open the app in the browser")
    p.set_defaults(func=main)


def check_folders(runs: list[Path], games: Path) -> None:
    """``ValueError`` for a ``--runs`` folder that does not exist or is a file, or a ``--games`` path
    that is a file."""
    for folder in runs:
        if not folder.exists():
            raise ValueError(f"--runs {str(folder)!r} does not exist; give folders that hold output folders or replays")
        if not folder.is_dir():
            raise ValueError(f"--runs {str(folder)!r} is a file; give a folder")
    if games.exists() and not games.is_dir():
        raise ValueError(f"--games {str(games)!r} is a file; give a folder (it is made when the first game is saved)")


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``; ``ValueError`` naming the address when it cannot be bound."""
    try:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        sock = socket.socket(family, socket.SOCK_STREAM)
    except (OSError, UnicodeError) as err:
        raise ValueError(f"--host {host!r} is not an address of this machine ({err})") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as err:
        sock.close()
        raise ValueError(f"cannot serve on {host}:{port}: {err.strerror or err} (another --port?)") from None
    sock.set_inheritable(True)
    return sock


def main(args: argparse.Namespace) -> int:
    """Run ``aerodeck serve`` until Ctrl-C; returns the exit status."""
    try:
        import uvicorn

        from aerodeck.serve.app import LOCAL_HOSTS, make_app
    except ImportError as err:
        raise ValueError(f"aerodeck serve needs the serve extra ({err.name} is missing): pip install 'aerodeck[serve]'") from None
    check_folders(args.runs, args.games)
    local = args.host in LOOPBACK
    if not local:
        print(f"aerodeck serve: warning: serving on {args.host}, not 127.0.0.1: anyone who can reach this address "
              f"can play and read the --runs folders", file=sys.stderr)
    app = make_app(args.runs, args.games, hosts=LOCAL_HOSTS if local else None)
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning")
    server = uvicorn.Server(config)
    sock = bind(args.host, args.port)  # bound now: a port in use is one line, and port 0 gets its number
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    url = f"http://{shown}:{port}/"
    print(f"aerodeck serve: {url} (Ctrl-C to stop)" + (f" · reading {', '.join(map(str, args.runs))}" if args.runs else ""),
          flush=True)
    if not args.no_browser:
        opener = threading.Timer(0.5, webbrowser.open, (url,))
        opener.daemon = True  # never holds the process open once the server has stopped
        opener.start()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt as stop:  # Ctrl-C or SIGTERM: said in one line by aerodeck's main
        raise type(stop)(f"the server stopped; the games finished in the browser are in {args.games}") from None
    return 0

"""The ``aerodeck serve`` command: it serves the app on 127.0.0.1:P and stops on Ctrl-C; another
``--host`` is warned about; a folder that does not exist or a port in use is one line and status 2."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import urllib.request

import uvicorn

from aerodeck.cli.main import main as aerodeck


def start(*args: str) -> tuple[subprocess.Popen, str]:
    """``aerodeck serve --no-browser ARGS`` in a subprocess; it and the URL it printed."""
    process = subprocess.Popen([sys.executable, "-m", "aerodeck", "serve", "--no-browser", *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1"})
    line = process.stdout.readline()
    match = re.search(r"(http://\S+/) ", line)
    assert match, (line, process.stderr.read() if process.poll() is not None else "")
    return process, match.group(1)


def stop(process: subprocess.Popen) -> tuple[int, str]:
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    return process.returncode, err


def test_serve_answers_on_127_0_0_1_and_stops_on_ctrl_c(tmp_path):
    port = free_port()
    process, url = start("--port", str(port), "--runs", str(tmp_path), "--games", str(tmp_path / "games"))
    try:
        assert url == f"http://127.0.0.1:{port}/"
        with urllib.request.urlopen(url, timeout=30) as page:
            assert page.status == 200 and b"aerodeck" in page.read()
        with urllib.request.urlopen(url + "api/info", timeout=30) as info:
            assert b'"games"' in info.read()
    finally:
        status, err = stop(process)
    assert status == 130 and err.strip().splitlines()[-1].startswith("aerodeck serve: interrupted; the server stopped")


def test_another_host_is_warned_about(tmp_path, capsys, monkeypatch):
    served = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: served.append(sockets[0].getsockname()))
    assert aerodeck(["serve", "--no-browser", "--port", "0", "--host", "0.0.0.0", "--games", str(tmp_path)]) == 0
    assert served and served[0][0] == "0.0.0.0"
    assert "aerodeck serve: warning: serving on 0.0.0.0, not 127.0.0.1" in capsys.readouterr().err


def test_a_missing_runs_folder_or_a_port_in_use_is_one_line(tmp_path, capsys):
    assert aerodeck(["serve", "--no-browser", "--runs", str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert aerodeck(["serve", "--no-browser", "--port", str(port), "--games", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"aerodeck serve: error: cannot serve on 127.0.0.1:{port}") and "\n" not in err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

"""The ``aerodeck`` command line: SIGTERM stops a long ``tune`` search of Airport Scramble's rule
``action_points`` with one line and status 143."""

import re
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_sigterm_during_the_tune_search_is_one_line_and_status_143(tmp_path):
    # Before: Optuna logged the interrupted trial with a ~35-line traceback above the one-line message.
    out = tmp_path / "tune"
    proc = subprocess.Popen(
        [sys.executable, "-m", "aerodeck", "tune", "airport-scramble", "--agent", "random", "--param",
         "action_points=2..4", "--target", "score=4", "--trials", "200", "--trial-games", "3000", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)  # bytes: text mode would turn the bar's \r into \n
    seen = b""
    try:
        while not re.search(rb"\b[1-9]\d*/200\b", seen):  # the bar counts a finished trial: the search is on
            char = proc.stderr.read(1)
            assert char, f"tune ended before its first trial: {seen!r}"
            seen += char
        proc.send_signal(signal.SIGTERM)
        _, rest = proc.communicate(timeout=120)
    finally:
        proc.kill()
    err = (seen + rest).decode()
    assert proc.returncode == 143
    assert err.count("\n") == 1 and "Traceback" not in err and "Trial" not in err  # the bar only redraws with \r
    assert err.split("\r")[-1] == "aerodeck tune: terminated (an unfinished run writes nothing)\n"
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == []

"""A game from its own package: in a fresh virtual environment that holds aerodeck and nothing of the
example game but its installed package (``examples/plugin_game``), ``aerodeck`` finds the game through
the ``aerodeck.games`` entry point, the game's own tests pass there (among them the whole contract,
``aerodeck.testing.check_game``), and so do the rules-page tests and the README's commands for it.

The environment borrows this one's third-party packages and aerodeck's source through a ``.pth`` file
(no torch reinstall); the game is ``pip install``-ed into it from a copy of its folder, so the copy in
the new environment — not one installed here — is what ``aerodeck`` loads.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

from tests.cli.test_readme import readme_commands, tiny

ROOT = Path(__file__).resolve().parents[1]
PLUGIN = ROOT / "examples" / "plugin_game"


def run(*command, cwd=ROOT, timeout=300) -> str:
    """Run ``command``; its output, or a failure showing it."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(c) for c in command], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


def test_the_example_game_installed_alone_passes_the_contract(tmp_path):
    entry_points = tomllib.loads((PLUGIN / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]
    ((game, target),) = entry_points["aerodeck.games"].items()
    package = target.partition(":")[0].split(".")[0]

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip())
    # addsitedir, not a plain path line: it also runs that site's .pth files (aerodeck's editable finder)
    borrowed = f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})"
    (site / "aerodeck-borrowed.pth").write_text(f"{ROOT}\n{borrowed}\n", encoding="utf-8")

    source = tmp_path / "plugin"
    shutil.copytree(PLUGIN, source, ignore=shutil.ignore_patterns("*.egg-info", "build", "__pycache__"))
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-build-isolation", "--no-index",
        "--quiet", source)

    found = run(python, "-c", f"import aerodeck, {package}; print(aerodeck.spec({game!r}).title); print({package}.__file__)")
    title, where = found.split("\n")[:2]
    assert title and Path(where).is_relative_to(site), f"{package} was loaded from {where}, not from the new environment"
    out = run(python, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-k", game, "tests/test_docs.py")
    assert " passed" in out and "failed" not in out, out
    # the game's own tests, from the copy of its folder: among them check_game, the whole contract
    out = run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", cwd=source)
    assert " passed" in out and "failed" not in out and "skipped" not in out, out
    readme = readme_commands(after_install=True)  # the README's commands that need the example game installed
    assert readme and all(game in argv for argv in readme)
    for k, argv in enumerate(readme):
        run(python, "-m", "aerodeck", *tiny(argv, tmp_path / f"readme{k}"))

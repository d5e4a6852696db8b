"""What installs: one import package, ``aerodeck``.

The ``packages`` list of ``pyproject.toml`` holds every package folder of the repository (``aerodeck/``
and, mapped under it, ``envs/``, ``agents/``, ``train/``); a wheel built from the source holds
``aerodeck`` and its ``.dist-info`` alone at its top level, within its size budget; and in a fresh
virtual environment with that wheel installed (third-party packages borrowed from this one, but not
aerodeck's editable install), the Gymnasium id and the PettingZoo module work, the shipped contract
check reads the installed rules pages, and ``import envs`` fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

from tests.games import MULTI, SOLO

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
#: The largest wheel allowed, in bytes.
WHEEL_BUDGET = 25 * 10**6
#: What the source copy the wheel is built from leaves out (build outputs, environments, run folders).
NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", "build", "dist", "out", "runs", "__pycache__", "*.egg-info",
                                    ".pytest_cache", ".hypothesis", ".ipynb_checkpoints")
#: The Gymnasium id of a built-in solo game, and the PettingZoo-style versioned module of a built-in
#: multi-player game (``from aerodeck import <game>_v0``).
GYM_ID = SOLO.gym_id
AEC_MODULE = MULTI.id.replace("-", "_") + "_v0"


def run(*command, cwd, timeout=300) -> str:
    """Run ``command`` (no ``PYTHONPATH``, no active venv); its output, or a failure showing it."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(c) for c in command], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done.stdout


def package_folders() -> dict[str, Path]:
    """Every package folder of the repository as its installed dotted name: ``aerodeck/`` and each
    folder with an ``__init__.py`` under the folders ``package-dir`` maps into it."""
    found = {}
    for package, folder in SETUPTOOLS["package-dir"].items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            relative = init.parent.relative_to(ROOT / folder).parts
            found[".".join([package, *relative])] = init.parent
    return found


def test_the_packages_list_holds_every_package_folder():
    assert SETUPTOOLS["package-dir"] == {"aerodeck": "aerodeck", "aerodeck.envs": "envs", "aerodeck.agents": "agents",
                                         "aerodeck.train": "train"}
    listed, folders = set(SETUPTOOLS["packages"]), set(package_folders())
    assert listed == folders, (f"pyproject.toml [tool.setuptools] packages: add {sorted(folders - listed)}, "
                               f"remove {sorted(listed - folders)}")


def test_every_folder_of_python_files_is_a_package():
    """A folder of modules without an ``__init__.py`` would not be listed, and not ship."""
    mapped = [ROOT / folder for folder in SETUPTOOLS["package-dir"].values()]
    loose = sorted(str(p.parent.relative_to(ROOT)) for folder in mapped for p in folder.rglob("*.py")
                   if not (p.parent / "__init__.py").is_file() and "__pycache__" not in p.parts)
    assert not loose, f"folders of modules without __init__.py: {loose}"


def test_import_aerodeck_imports_no_agent_and_no_torch():
    """``import aerodeck`` (games registered, the Gymnasium id made) stays cheap: the agents and the
    trainer's packages load only when an agent is asked for."""
    out = run(sys.executable, "-c", f"import sys, aerodeck, gymnasium; gymnasium.make({GYM_ID!r}); "
              "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'stable_baselines3', 'sb3_contrib') "
              "or m.startswith(('aerodeck.agents', 'aerodeck.train'))))", cwd=ROOT)
    assert out.strip() == "[]", out


CHECK_INSTALLED = """
import importlib, sys
from pathlib import Path
import gymnasium
import aerodeck
from aerodeck.testing import check_game

site, gym_id, aec_module = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
for module in ("aerodeck", "aerodeck.envs", "aerodeck.agents.registry", "aerodeck.cli.main", "aerodeck.testing"):
    where = Path(importlib.import_module(module).__file__)
    assert where.is_relative_to(site), f"{module} was loaded from {where}, not from the wheel in {site}"
env = gymnasium.make(gym_id)
obs, info = env.reset(seed=0)
print("gymnasium", obs.shape, int(info["action_mask"].sum()))
aec = getattr(aerodeck, aec_module).env()  # from aerodeck import <game>_v0
aec.reset(seed=0)
print("pettingzoo", aec.agent_selection, len(aec.possible_agents))
for game in aerodeck.games():
    check_game(game, only=["core_protocol", "docs_rule_ids", "spec_consistency"])
print("check_game", *aerodeck.games())
try:
    import envs
except ModuleNotFoundError:
    print("import envs: ModuleNotFoundError")
else:
    raise AssertionError(f"import envs worked: {envs.__file__}")
"""


def test_the_wheel_holds_aerodeck_alone_and_works_in_a_fresh_environment(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=NOT_SOURCE)  # a clean copy: the build leaves nothing in the checkout
    dist = tmp_path / "dist"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "--quiet", ".",
        "-w", dist, cwd=source)
    (wheel,) = dist.glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        top = {name.split("/")[0] for name in archive.namelist()}
    version = PYPROJECT["project"]["version"]
    assert top == {"aerodeck", f"aerodeck-{version}.dist-info"}, f"the wheel's top level: {sorted(top)}"
    size = wheel.stat().st_size
    assert size <= WHEEL_BUDGET, f"{wheel.name} is {size / 1e6:.1f} MB, over {WHEEL_BUDGET / 1e6:.0f} MB"

    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, cwd=tmp_path)
    python = venv / "bin" / "python"
    # the wheel first, into the bare environment (with this one's packages visible pip would find the
    # editable aerodeck and install nothing)
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "--quiet", wheel,
        cwd=tmp_path)
    site = Path(run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=tmp_path).strip())
    # then this environment's third-party packages, as a plain path: its .pth files (aerodeck's editable
    # finder among them) are not run, so the only aerodeck the new environment sees is the wheel's
    (site / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    out = run(python, "-c", CHECK_INSTALLED, site, GYM_ID, AEC_MODULE, cwd=tmp_path)
    assert "gymnasium (" in out and "pettingzoo " in out and "check_game " in out, out
    assert "import envs: ModuleNotFoundError" in out, out

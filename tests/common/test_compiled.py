"""A run that compiles the kernels says so in one line: numba's cache is read to tell whether the next
call compiles, and a game's core announces it once per process when it is made."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from aerodeck import envs
from aerodeck.envs.common import compiled

KERNEL = """
from numba import njit


@njit(cache=True)
def twice(x):
    return 2 * x


@njit(cache=True)
def setup(x):
    return x - 1


@njit(cache=True, inline="always")
def inlined(x):
    return x + 1
"""


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def fresh(monkeypatch):
    """No announcement made yet in this process."""
    monkeypatch.setattr(compiled, "_said", False)
    monkeypatch.setattr(compiled, "_checked", set())


def test_a_kernel_numba_has_not_cached_is_named_until_it_is_compiled(tmp_path, fresh, capsys, monkeypatch):
    (tmp_path / "tiny_kernel.py").write_text(KERNEL)
    module = load(tmp_path / "tiny_kernel.py", "tiny_kernel")
    monkeypatch.delitem(sys.modules, "tiny_kernel")
    assert compiled.uncached(module) == ["twice", "setup"]  # the inlined helper is compiled into its callers only
    assert compiled.announce(module) is True
    assert capsys.readouterr().err == compiled.MESSAGE + "\n"
    assert compiled.announce(module) is False and capsys.readouterr().err == ""  # once per process
    assert module.twice(3) == 6  # compiled now, and cached beside the source
    again = load(tmp_path / "tiny_kernel.py", "tiny_kernel")
    assert compiled.uncached(again) == ["setup"]  # one a run never called: the file's cache is not fresh
    monkeypatch.setattr(compiled, "_said", False)
    monkeypatch.setattr(compiled, "_checked", set())
    assert compiled.announce(again) is False and capsys.readouterr().err == ""


@pytest.mark.parametrize("game", envs.games())
def test_making_a_core_announces_kernels_that_will_compile(game, fresh, capsys, monkeypatch):
    # Before: the first run sat for a minute or more compiling, with nothing on the screen saying so.
    monkeypatch.setattr(compiled, "uncached", compiled.kernels)  # as on a fresh install: none cached
    envs.spec(game).make_core()
    assert capsys.readouterr().err == compiled.MESSAGE + "\n"
    envs.spec(game).make_core()
    assert capsys.readouterr().err == ""

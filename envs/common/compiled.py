"""Saying so when the compiled (numba) kernels are built.

numba compiles each kernel of ``envs/<game>/kernel.py`` (and an agent's) on its first call and keeps
the machine code in its cache (``__pycache__`` beside the source, or ``NUMBA_CACHE_DIR``), which later
runs load. The first run on a fresh install therefore spends its first minute or so compiling, with
nothing else on the screen; :func:`announce` says so in one line on stderr, once per process, when a
game's core is made and numba's cache holds none of its kernels (a fresh install, or an edited kernel file).
"""

from __future__ import annotations

import sys
from types import ModuleType

#: The line :func:`announce` prints (once per process).
MESSAGE = ("aerodeck: compiling the game kernels once (numba; a first run takes about a minute longer); "
           "later runs reuse them")

_checked: set[str] = set()
_said = False


def kernels(module: ModuleType) -> list[str]:
    """The names of ``module``'s compiled kernels: numba dispatchers with ``cache=True`` defined there and
    called on their own (not only inlined into other kernels)."""
    try:
        from numba.core.dispatcher import Dispatcher
    except ImportError:  # pragma: no cover - numba is a dependency
        return []
    return [name for name, value in vars(module).items()
            if isinstance(value, Dispatcher) and getattr(value, "__module__", None) == module.__name__
            and value.targetoptions.get("inline", "never") == "never" and getattr(value, "_cache", None) is not None]


def uncached(module: ModuleType) -> list[str]:
    """The names of ``module``'s compiled kernels (:func:`kernels`) whose cache holds no compiled code for
    the current source and that this process has not compiled: those the next call compiles. Empty when
    numba's cache cannot be read (nothing is then claimed)."""
    names = []
    for name in kernels(module):
        value = getattr(module, name)
        try:
            held = value._cache._cache_file._load_index()  # {} when missing, or stale for the source
        except Exception:  # another numba: say nothing rather than something false
            continue
        if not held and not value.signatures:
            names.append(name)
    return names


def announce(*modules: ModuleType) -> bool:
    """Print :data:`MESSAGE` on stderr if numba's cache holds none of the kernels of one of ``modules``
    (kernel modules) — at most once per process, each module checked once. Returns whether it printed now."""
    global _said
    if _said:
        return False
    fresh = [m for m in modules if m.__name__ not in _checked]
    _checked.update(m.__name__ for m in fresh)
    # numba's cache stamps each file's source: a fresh install, or an edited kernel file, holds none of
    # the file's kernels (one kernel alone uncached is one a run may never call, e.g. a set-up kernel)
    if any(uncached(m) and len(uncached(m)) == len(kernels(m)) for m in fresh):
        _said = True
        print(MESSAGE, file=sys.stderr, flush=True)
        return True
    return False

"""The machinery of the contract check: its error, the blame of a GameSpec field, the registry of
checks, and the random-play helpers the checks share (``aerodeck.testing`` is the public face)."""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from aerodeck import envs
from aerodeck.envs.common.batch import sample_legal
from aerodeck.envs.registry import GameSpec

#: Games per batch in the core checks.
B = 24
#: Random legal steps after which a game must be over.
MAX_STEPS = 4000
#: At most this many characters of an error are quoted in a ContractError.
QUOTE = 2000


class ContractError(AssertionError):
    """A game that breaks the contract. ``game``: its id; ``field``: the GameSpec field to fix;
    ``check``: the check that failed (a key of :data:`CHECKS`); ``case``: the variant or agent it
    ran under (``""`` for a game-wide check); ``detail``: what went wrong. A ContractError from
    :func:`check_game` with more than one failure lists them all in ``failures``."""

    def __init__(self, game: str, field: str, check: str, case: str, detail: str,
                 failures: list[ContractError] | None = None) -> None:
        self.game, self.field, self.check, self.case, self.detail = game, field, check, case, detail
        self.failures = failures or [self]
        if failures and len(failures) > 1:
            message = (f"GameSpec {game!r} fails {len(failures)} checks:\n" + "\n".join(f"- {f.headline()}" for f in failures)
                       + f"\nthe first in full: {failures[0]}")
        else:
            message = self.headline(detail)
        super().__init__(message)

    def headline(self, detail: str | None = None) -> str:
        """One failure in one line: the field, the check, the case, the first lines of the detail."""
        under = f" ({self.case})" if self.case else ""
        if detail is None:
            detail = " / ".join([line.strip() for line in self.detail.splitlines() if line.strip()][:3])
        return f"GameSpec {self.game!r}, field {self.field!r}: check {self.check!r}{under} failed: {detail}"


class SkipCheck(Exception):
    """A check that cannot run here (an optional package is not installed): the reason."""


class Blamed(Exception):
    """An error inside a check, with the GameSpec field it is blamed on."""

    def __init__(self, field: str, error: BaseException) -> None:
        super().__init__(field)
        self.field, self.error = field, error


@contextlib.contextmanager
def blame(field: str):
    """Blame any error raised inside the block on the GameSpec ``field`` (an inner ``blame`` wins)."""
    try:
        yield
    except (Blamed, SkipCheck):
        raise
    except Exception as err:  # noqa: BLE001 - every failure of a game's code is a contract failure
        raise Blamed(field, err) from err


def expect(condition: bool, field: str, message: str) -> None:
    """Fail, blaming ``field``, unless ``condition``."""
    if not condition:
        raise Blamed(field, AssertionError(message))


class raises:
    """``with raises(ValueError, "seed must be", "a seed of -1"):`` — the block must raise ``kind``
    with a message matching the regular expression ``match``; the error is ``.value`` afterwards."""

    def __init__(self, kind: type[BaseException], match: str, what: str) -> None:
        self.kind, self.match, self.what, self.value = kind, match, what, None

    def __enter__(self) -> raises:
        return self

    def __exit__(self, kind, value, traceback) -> bool:
        if value is None:
            raise AssertionError(f"{self.what}: no {self.kind.__name__} was raised")
        if not isinstance(value, self.kind):
            return False
        if not re.search(self.match, str(value)):
            raise AssertionError(f"{self.what}: the {type(value).__name__} says {str(value)!r}, "
                                 f"which does not match {self.match!r}") from value
        self.value = value
        return True


def detail_of(error: BaseException) -> str:
    """``"Kind: message"`` of ``error``, cut at :data:`QUOTE` characters."""
    text = f"{type(error).__name__}: {str(error).strip()}"
    return text if len(text) <= QUOTE else text[:QUOTE] + " …"


# --- the registry of checks ----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Check:
    """One check of the contract. ``field``: the GameSpec field a failure is blamed on unless the
    check names another; ``over``: what it runs once per — ``"variant"`` (each of ``spec.variants``,
    called as ``run(spec, core)``), ``"agent"`` (each agent of the ladder and the opponent,
    ``run(spec, agent)``) or ``"game"`` (once, ``run(spec)``); ``applies(spec)``: whether the game
    declares what the check checks."""

    name: str
    field: str
    over: str
    run: Callable[..., None]
    applies: Callable[[GameSpec], bool] = lambda spec: True

    @property
    def doc(self) -> str:
        """The first line of the check's docstring."""
        return (self.run.__doc__ or "").strip().split("\n")[0]


#: Every check, by name, in the order ``aerodeck.testing.check_game`` runs them.
CHECKS: dict[str, Check] = {}


def contract_check(name: str, field: str, over: str = "game", applies: Callable[[GameSpec], bool] | None = None):
    """Register the decorated function as the check ``name`` of :data:`CHECKS` (see :class:`Check`)."""

    def register(run):
        CHECKS[name] = Check(name, field, over, run, applies or (lambda spec: True))
        return run
    return register


def spec_of(game: str | GameSpec) -> GameSpec:
    """``game`` if it is a GameSpec, else the registered spec of the game id ``game``."""
    if isinstance(game, GameSpec):
        return game
    return envs.spec(game)


@dataclasses.dataclass(frozen=True)
class Case:
    """One check under one variant (``label`` ``"v0"``, ``"v1"`` …, ``param`` its options), for one agent
    (``label`` and ``param`` the agent spec) or once for the game (``label`` ``""``, ``param`` ``None``)."""

    check: str
    label: str
    param: Any = None


# --- play helpers ----------------------------------------------------------------------------------


def play(core, seeds, steps: int, policy_seed: int = 0, state=None):
    """Random legal play of ``steps`` steps: the state, and per step ``(mask, observation, to_act, rewards)``."""
    state = core.init(seeds) if state is None else state
    rng = np.random.default_rng(policy_seed)
    trace = []
    for _ in range(steps):
        mask = core.legal_mask(state)
        actions = np.maximum(sample_legal(mask, rng.random(state.batch_size)), 0)
        trace.append((mask, core.observe(state), core.to_act(state), core.step(state, actions)))
    return state, trace


def rollout_to_end(core, state, rng) -> None:
    """Play the games of ``state`` to their ends with random legal moves."""
    for _ in range(MAX_STEPS):
        if state.done.all():
            return
        mask = core.legal_mask(state)
        core.step(state, np.maximum(sample_legal(mask, rng.random(state.batch_size)), 0))
    raise AssertionError(f"games not over after {MAX_STEPS} random steps")


def assert_same_state(core, a, b) -> None:
    """``core.save`` of the two states: the same fields, equal arrays."""
    sa, sb = core.save(a), core.save(b)
    assert sa.keys() == sb.keys(), f"saved fields differ: {sorted(sa)} vs {sorted(sb)}"
    for name in sa:
        np.testing.assert_array_equal(sa[name], sb[name], err_msg=name)


def assert_same_trace(a, b) -> None:
    """Two traces of :func:`play`: the same masks, observations, seats to act and rewards, step by step."""
    assert len(a) == len(b)
    for step, (step_a, step_b) in enumerate(zip(a, b)):
        for what, x, y in zip(("mask", "observation", "to_act", "rewards"), step_a, step_b):
            np.testing.assert_array_equal(x, y, err_msg=f"step {step}: {what}")

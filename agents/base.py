"""The one agent protocol: a batch of observations and legal masks in, a batch of actions out; and
the typed knobs an agent declares for ``NAME:key=value`` specs."""

from __future__ import annotations

import dataclasses
import inspect
import math
import numbers
from typing import ClassVar

import numpy as np

from aerodeck.agents.streams import agent_key, uniforms
from aerodeck.agents.streams import draws as stream_draws

_TRUE = ("on", "true", "yes", "1")
_FALSE = ("off", "false", "no", "0")


@dataclasses.dataclass(frozen=True)
class Knob:
    """One tunable parameter of an agent: its type (``bool``, ``int``, ``float`` or ``str``), its
    allowed range ``lo..hi`` (numbers; inclusive; ``None`` = unbounded) and a one-line description.

    ``parse`` turns a Python value or the text of an agent spec into the knob's type: booleans accept
    on/off, true/false, yes/no, 1/0; numbers refuse text that is not a number, NaN, infinities and
    values outside the range; an ``int`` knob refuses fractions; a ``str`` knob takes non-empty text."""

    kind: type
    lo: float | None = None
    hi: float | None = None
    doc: str = ""

    def __post_init__(self) -> None:
        if self.kind not in (bool, int, float, str):
            raise TypeError(f"a knob is bool, int, float or str, not {self.kind!r}")

    def describe(self) -> str:
        """What the knob allows, e.g. ``an integer >= 1`` or ``on/off (true/false, 1/0)``."""
        if self.kind is bool:
            return "on/off (true/false, 1/0)"
        if self.kind is str:
            return "non-empty text"
        noun = "an integer" if self.kind is int else "a finite number"
        if self.kind is int and self.lo == 1 and self.hi is None:
            return "a positive integer"
        if self.lo is not None and self.hi is not None:
            return f"{noun} in {self.lo:g}..{self.hi:g}"
        if self.lo is not None:
            return f"{noun} >= {self.lo:g}"
        if self.hi is not None:
            return f"{noun} <= {self.hi:g}"
        return noun

    def parse(self, value, where: str = "knob"):
        """``value`` (Python value or text) as the knob's type; ``ValueError`` naming ``where`` and
        what is allowed otherwise."""
        bad = ValueError(f"{where} must be {self.describe()}, got {value!r}")
        if self.kind is bool:
            if isinstance(value, (bool, np.bool_)):
                return bool(value)
            text = str(value).strip().lower() if isinstance(value, (str, numbers.Integral)) else None
            if text in _TRUE or text in _FALSE:
                return text in _TRUE
            raise bad
        if self.kind is str:
            if isinstance(value, str) and value.strip():
                return value.strip()
            raise bad
        number = _number(value, self.kind)
        if number is None or (self.lo is not None and number < self.lo) or (self.hi is not None and number > self.hi):
            raise bad
        return number


def _number(value, kind: type) -> int | float | None:
    """``value`` as a finite ``int`` / ``float``, or ``None`` if it is not one (bools are not numbers)."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text, 10) if kind is int else _finite(float(text))
        except ValueError:
            return None
    if isinstance(value, numbers.Integral):
        return int(value) if kind is int else float(value)
    if isinstance(value, numbers.Real) and kind is float:
        return _finite(float(value))
    return None


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


class Agent:
    """Base class of every policy.

    An agent acts on a whole batch at once: ``act(observations, masks)`` takes observations of shape
    ``(B, ...)`` and legal masks ``bool (B, A)`` and returns actions ``int64 (B,)``, each legal in its
    row. Agents that look ahead receive, through ``act(..., view=...)``, a game view that cannot reveal
    hidden information; the others ignore it. ``rules`` is the game's rules object (agents that
    reason about the game read the edition, costs, ... from it).

    Randomness: a play loop passes ``keys`` (``uint64 (B,)``, one decision key per row, see
    :mod:`aerodeck.agents.streams`), and every random choice of row b is drawn from ``keys[b]`` through
    :meth:`uniform`, :meth:`draws` and :meth:`gumbel` — so a game's choices depend on the game, the
    agent's seed and the decision, never on the batch. Without keys (one game inside a Gymnasium or
    PettingZoo env, ``aerodeck play``) they come from the agent's ``numpy.random.Generator`` ``rng``.
    Both are seeded at construction or by ``reset``; ``key`` is the agent's part of every decision key.
    An agent whose ``act`` takes no ``keys`` (a deterministic one) is called without them
    (:func:`act`).

    ``knobs`` declares the constructor's tunable keywords (besides ``seed`` and ``rules``) with their
    types and ranges: ``aerodeck.agents.registry.make_agent`` checks ``NAME:key=value`` specs against it.
    """

    name = "agent"
    #: True for agents that need a look-ahead ``view`` in ``act``.
    needs_view = False
    #: The tunable constructor keywords: name -> :class:`Knob`.
    knobs: ClassVar[dict[str, Knob]] = {}
    #: True when ``act`` takes the decision ``keys`` (set from its signature).
    takes_keys: ClassVar[bool] = True

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls.takes_keys = "keys" in inspect.signature(cls.act).parameters

    def __init__(self, seed: int | None = 0, rules=None) -> None:
        self.rules = rules
        self.reset(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's randomness: its generator ``rng`` and its key ``key`` (int in ``[0, 2**64)``)."""
        self.rng = np.random.default_rng(seed)
        self.key = agent_key(seed)

    def act(self, observations: np.ndarray, masks: np.ndarray, view=None, keys: np.ndarray | None = None) -> np.ndarray:
        """Actions ``int64 (B,)`` for observations ``(B, ...)``, masks ``bool (B, A)`` and the decision
        keys ``uint64 (B,)`` (``None``: draw from ``rng``)."""
        raise NotImplementedError

    def act_with_policy(self, observations: np.ndarray, masks: np.ndarray, view=None,
                        keys: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``act``, and the agent's policy at each decision, a training target for a student: the actions
        ``int64 (B,)``, the actions it weighed ``int64 (B, k)`` and their probabilities ``float32 (B, k)``
        (summing to 1 in each row). Here: all on the action played (k = 1); a search agent spreads them
        over its candidates by their values."""
        actions = act(self, observations, masks, view, keys)
        return (actions, *played_policy(actions))

    def act_one(self, observation: np.ndarray, mask: np.ndarray, view=None) -> int:
        """One action for a single (unbatched) observation and mask, e.g. inside a Gymnasium env (random
        choices from the agent's generator)."""
        return int(self.act(np.asarray(observation)[None], np.asarray(mask, dtype=bool)[None], view)[0])

    def uniform(self, keys: np.ndarray | None, shape: tuple[int, int], part: int = 0, dtype=np.float64) -> np.ndarray:
        """Uniforms of ``shape`` ``(B, k)`` and ``dtype`` (float64 or float32, see
        :func:`aerodeck.agents.streams.uniforms`): row b from part ``part`` of ``keys[b]``'s stream, or from ``rng``
        (in ``[0, 1)``) when ``keys`` is ``None``."""
        if keys is None:
            return self.rng.random(shape, dtype=dtype)
        return uniforms(keys, shape[1], part, dtype)

    def draws(self, keys: np.ndarray | None, shape: tuple[int, int], part: int = 0) -> np.ndarray:
        """``uint64`` values of ``shape`` ``(B, k)`` (seeds, keys of inner decisions): row b from part
        ``part`` of ``keys[b]``'s stream, or from ``rng`` (below 2**63) when ``keys`` is ``None``."""
        if keys is None:
            return self.rng.integers(0, 2**63, size=shape, dtype=np.uint64)
        return stream_draws(keys, shape[1], part)

    def gumbel(self, keys: np.ndarray | None, shape: tuple[int, int], part: int = 0) -> np.ndarray:
        """Standard Gumbel noise ``float64`` of ``shape`` ``(B, k)`` (Gumbel-max sampling), drawn as
        :meth:`uniform` is."""
        if keys is None:
            return self.rng.gumbel(size=shape)
        return -np.log(-np.log(uniforms(keys, shape[1], part)))


def played_policy(actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The policy all on the actions played (``int64 (B,)``): the actions ``int64 (B, 1)`` and their
    probabilities ``float32 (B, 1)``, all 1."""
    actions = np.asarray(actions, np.int64)
    return actions[:, None].copy(), np.ones((actions.size, 1), np.float32)


def candidate_policy(gains: np.ndarray, valid: np.ndarray, searched: np.ndarray, chosen: np.ndarray,
                     temperature: float, prior: np.ndarray | None = None) -> np.ndarray:
    """A search's policy over its k candidates, ``float32 (B, k)``: in a searched game (``searched``
    ``bool (B,)``) with ``temperature`` t > 0, the valid candidates (``valid`` ``bool (B, k)``) weighted
    exp(prior + gain / t) — ``gains`` ``float (B, k)``: each candidate's mean value (less the first's),
    ``prior`` ``float (B, k)``: a guide's logits of the candidates, or :func:`rank_prior` (``None``:
    even), so a guided search's policy is its guide's, improved by the values it found; else all on the
    candidate played (``chosen`` ``int (B,)``, its index)."""
    B, k = valid.shape
    probs = np.zeros((B, k), np.float32)
    probs[np.arange(B), chosen] = 1.0
    soft = np.flatnonzero(searched & (valid.sum(1) >= 2)) if temperature > 0 else np.zeros(0, np.int64)
    if soft.size:
        base = 0.0 if prior is None else prior[soft]
        logits = np.where(valid[soft], base + gains[soft] / temperature, -np.inf)
        weights = np.exp(logits - logits.max(1, keepdims=True))
        probs[soft] = weights / weights.sum(1, keepdims=True)
    return probs


def rank_prior(shape: tuple[int, int], order: float) -> np.ndarray | None:
    """An unguided search's prior over its candidates (best first), ``float64 shape`` (B, k): ``order``
    logits less for each later one, so its taught policy keeps the heuristic's order where the values are
    close (:func:`candidate_policy`); ``None`` (even) at 0."""
    return -order * np.broadcast_to(np.arange(shape[1], dtype=np.float64), shape) if order else None


def act(agent: Agent, observations: np.ndarray, masks: np.ndarray, view=None,
        keys: np.ndarray | None = None) -> np.ndarray:
    """``agent.act(observations, masks, view, keys=keys)``, without ``keys`` for an agent whose ``act``
    takes none (a deterministic agent, or one written before decision keys). Actions ``int64 (B,)``."""
    if keys is None or not getattr(agent, "takes_keys", False):
        return agent.act(observations, masks, view)
    return agent.act(observations, masks, view, keys=keys)

"""The contracts of a game's entry points beyond the core and the view (those are in ``aerodeck.envs.common.core``).

A :class:`~aerodeck.envs.GameSpec` names one object per role; ``aerodeck.testing.check_game`` checks each of
them for every registered game. Shapes as in ``aerodeck.envs.common.core``: ``B`` games in a batch, ``A``
actions (``core.n_actions``), ``O`` the observation size (``core.obs_size``), ``n`` seats
(``core.n_players``), ``N`` the envs of a vectorised env (``num_envs``), ``G`` the games a recorder
measures.

=====================  ===========================================================================
GameSpec field         contract
=====================  ===========================================================================
``env``                :class:`SingleGameEnv` (Gymnasium) or a PettingZoo ``AECEnv`` (``api_test``)
``sb3``                :class:`SB3VecEnv`
``text``               :class:`TextModule`
``render_modes``       the env's ``render()``: :data:`RENDER_RETURNS`
``metrics``            ``aerodeck.envs.common.metrics.Catalogue`` whose recorder is a :class:`MetricRecorder`
``summary``            :class:`Summary`
``agents``             classes whose instances are :class:`Policy`
=====================  ===========================================================================
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

#: What the single-game env's ``render()`` returns per render mode: ``"ansi"`` a ``str`` (the table in
#: text), ``"rgb_array"`` a ``uint8 (H, W, 3)`` image.
RENDER_RETURNS = {"ansi": "str", "rgb_array": "uint8 (H, W, 3)"}


@runtime_checkable
class SingleGameEnv(Protocol):
    """One game as a Gymnasium ``Env`` (a solo game): observation ``float32 (O,)`` in ``Box(0, 1)``,
    ``Discrete(A)`` actions, the legal mask ``bool (A,)`` as ``info["action_mask"]`` and ``action_masks()``.

    Built as ``Env(render_mode=None, on_illegal="terminate", rules=None, **rule_options)``; passes
    ``gymnasium.utils.env_checker.check_env``. ``reset(seed=s)`` plays the game ``core.init([s])``
    plays; a non-integer action raises ``ValueError``; an illegal one ends the episode with a
    negative reward (``on_illegal="terminate"``) or raises ``IllegalActionError`` (``"raise"``).
    ``core`` is the batched core (B = 1) and ``_state`` its state, for ``aerodeck.envs.view_of_env``."""

    core: Any
    observation_space: Any
    action_space: Any
    render_mode: str | None

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """``(observation float32 (O,), info)`` with ``info["action_mask"]`` ``bool (A,)``."""
        ...

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """``(observation float32 (O,), reward, terminated, truncated, info)``."""
        ...

    def action_masks(self) -> np.ndarray:
        """``bool (A,)``: the legal actions now (all False once the episode is over)."""
        ...

    def render(self) -> str | np.ndarray | None:
        """See :data:`RENDER_RETURNS`; ``None`` without a render mode."""
        ...


@runtime_checkable
class SB3VecEnv(Protocol):
    """``N`` games over the batched core as a stable-baselines3 ``VecEnv`` for one learner
    (``aerodeck.envs.common.sb3.BatchedVecEnv`` does the protocol; a game supplies ``_reset``/``_step``/``_masks``).

    Built as ``VecEnv(num_envs=N, rules=None, seed=None, **kwargs)``. ``reset()`` gives observations
    ``float32 (N, O)``; ``step(actions int (N,))`` gives ``(observations float32 (N, O), rewards
    float32 (N,), dones bool (N,), infos)`` with same-step autoreset: an ended game's info holds its
    ``terminal_observation`` ``float32 (O,)`` and SB3's ``episode`` record ``{"r", "l", "t"}``.
    ``action_masks()`` gives ``bool (N, A)`` (what sb3-contrib's MaskablePPO reads)."""

    num_envs: int
    observation_space: Any
    action_space: Any

    def reset(self) -> np.ndarray: ...

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]: ...

    def action_masks(self) -> np.ndarray: ...


@runtime_checkable
class TextModule(Protocol):
    """A game in words, for ``aerodeck play`` and ``aerodeck replay`` (``state`` is a batch of one game).

    ``parse(core, state, words(core, state, a)) == a`` for every legal action ``a``."""

    #: The typed moves, with examples.
    HELP: str

    def moves(self, core, state) -> list[tuple[int, str, str]]:
        """The legal moves now, in menu order: ``(action, words, note)``."""
        ...

    def words(self, core, state, action: int) -> str:
        """The words that name ``action`` (``parse`` reads them back)."""
        ...

    def parse(self, core, state, line: str) -> int:
        """The action the words of ``line`` name; ``ValueError`` saying why not."""
        ...

    def screen(self, core, state, seat=0, log=(), names=None) -> Any:
        """What ``seat`` may see now (a rich renderable)."""
        ...

    def events(self, core, before, after, action: int, seat=0) -> list[str]:
        """What ``seat`` saw one decision do: lines of the log (seat ``None``: a spectator)."""
        ...

    def undo_refusal(self, core, before, after) -> str | None:
        """Why a move cannot be taken back, ``None`` if it can."""
        ...

    def why(self, core, state, action: int) -> str:
        """What a move does, for the hint."""
        ...

    def summary(self, core, state, seat=0, names=None) -> Any:
        """The end of the game (a rich renderable)."""
        ...

    def replay_screen(self, core, state, log=()) -> Any:
        """The table of a recorded game (a rich renderable)."""
        ...

    def picture(self, core, state) -> np.ndarray:
        """The table as an image: ``uint8 (H, W, 3)`` (the frames of a replay GIF)."""
        ...


@runtime_checkable
class MetricRecorder(Protocol):
    """Measures a game's metrics (``aerodeck.envs.common.metrics``) over ``G`` games as they are played.

    Built by ``Catalogue.make_recorder(core, G, lineups=None, focus=0)``; ``games``: ``int (B,)``, the
    recorder's game index of each row of ``state``."""

    def on_start(self, core, state, games) -> None:
        """The games ``games`` start from ``state``."""
        ...

    def on_step(self, core, state, actions, rewards, games) -> None:
        """One batched step: ``actions`` ``int (B,)``, ``rewards`` ``float32 (B, n)``, ``state`` after it."""
        ...

    def result(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per metric name ``(numerator, denominator)``, each ``float64 (G, width)``."""
        ...


@runtime_checkable
class Summary(Protocol):
    """The end-of-game figures of ``B`` finished games: ``summary(core, state) -> dict`` with
    ``"score"`` ``(B, n)`` (each seat's final score), ``"standing"`` ``(B, n)`` (higher is better,
    equal standings share the win) and ``"tallies"`` ``{group: {item: (B,) numbers}}`` that a bench
    adds up over its games."""

    def __call__(self, core, state) -> dict: ...


@runtime_checkable
class Policy(Protocol):
    """An agent (``aerodeck.agents.base.Agent``): ``act(observations float32 (B, O), masks bool (B, A), view=None)
    -> int64 (B,)``, each action legal in its row; ``needs_view`` agents read a look-ahead
    ``aerodeck.envs.common.core.View`` of the same B games."""

    needs_view: bool

    def act(self, observations: np.ndarray, masks: np.ndarray, view=None) -> np.ndarray: ...

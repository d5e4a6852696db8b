"""Flight Tycoon as a PettingZoo AEC environment, with the conventions of PettingZoo's classic envs.

``env(**options)`` returns the wrapped environment (``OrderEnforcingWrapper``, as the classic envs
wrap themselves; the action is checked and an illegal one handled by the env itself — see ``step``,
the same outcome as PettingZoo's ``TerminateIllegalWrapper``); ``raw_env`` is the bare one. Options: ``rules``
(a ``FlightTycoonRules``) and every rule option of ``FlightTycoonRules`` (``n_players=5``,
``vp_sharing="rank"`` …, applied on top of ``rules``), ``render_mode`` (``"ansi"``, ``"rgb_array"``,
``"human"`` — the text printed), ``render_viewer`` (a seat, ``"public"`` or ``"all"``) and
``on_illegal`` (``"terminate"``: the offender gets −1, a warning, the reason in its info; ``"raise"``:
``IllegalActionError`` naming the action and why it is illegal).

Agents ``player_0 …``; observations ``{"observation": float32 (obs_size,), "action_mask": int8
(n_actions,)}`` with seats relative to the observer (layout in ``docs/flight-tycoon.md``); the mask is
all zeros for every agent but the one to act. The tower choices (FT-6) are made in turn, player_0
first, but nobody's observation shows another's choice before all are made.

The game runs on :class:`~envs.flight_tycoon.single.SingleGame` (the reference engine's rules code
with a fast observation; several times faster than a batch of one on the core, and the same game
step by step: ``tests/flight_tycoon/test_env.py``). ``self.core`` is the batched core for these rules
and ``self._state`` the game now as its batch of one (built on demand, private: it holds every hand
and the deck; read by ``aerodeck.envs.view_of_env``); ``state()`` raises ``NotImplementedError`` as in
PettingZoo's classic envs. ``copy.deepcopy`` and ``pickle`` copy the game in progress: a copy continues exactly
as the original would (its random stream for later resets included).
"""

from __future__ import annotations

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from aerodeck.envs.common.checks import (
    ILLEGAL_REWARD, ON_ILLEGAL, check_action, check_choice, check_seed, illegal_policy, rules_with_options,
)
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.render import check_viewer, render_image, render_text
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules
from aerodeck.envs.flight_tycoon.single import SingleGame


def env(**kwargs) -> AECEnv:
    """The Flight Tycoon AEC environment in PettingZoo's ``OrderEnforcingWrapper``, as the classic
    environments are wrapped. An illegal action is handled by the env itself (``on_illegal``): under
    ``terminate`` exactly as PettingZoo's ``TerminateIllegalWrapper`` would (a warning, −1 to the
    offender, every agent terminated), plus the reason in the offender's info — one wrapper layer
    less on every call."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):
    """Flight Tycoon, one game, in AEC form over the batched core (a batch of one)."""

    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "flight_tycoon_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(self, render_mode: str | None = None, on_illegal: str = "terminate", render_viewer="public",
                 rules: FlightTycoonRules | None = None, **rule_options) -> None:
        super().__init__()
        self.rules = rules_with_options(FlightTycoonRules, rules, rule_options)
        check_choice("render_mode", render_mode, (None, *self.metadata["render_modes"]))
        check_choice("on_illegal", on_illegal, ON_ILLEGAL)
        self.render_mode = render_mode
        self.on_illegal = on_illegal
        self.render_viewer = check_viewer(render_viewer, self.rules.n_players)
        self.core = FlightTycoonCore(self.rules, check_actions=False)
        n = self.rules.n_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {
            agent: gymnasium.spaces.Dict({
                "observation": gymnasium.spaces.Box(0.0, 1.0, (self.core.obs_size,), np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (self.core.n_actions,), np.int8),
            })
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: gymnasium.spaces.Discrete(self.core.n_actions) for agent in self.possible_agents}
        self._seeder: np.random.Generator | None = None
        self._game: SingleGame | None = None
        self._no_mask = np.zeros(self.core.n_actions, np.int8)

    @property
    def _state(self):
        """The game now as the core's batch of one (None before the first reset)."""
        return None if self._game is None else self._game.core_state()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # --- AEC API -------------------------------------------------------------------------------------

    def state(self) -> np.ndarray:
        """Not offered (PettingZoo's convention for the classic card games): the full game holds every
        hidden hand and the deck, so there is no global state to train a centralized critic on
        without handing it everything; each agent's ``observe`` is what it may know."""
        raise NotImplementedError("flight_tycoon_v0 has no global state(): the full game holds every hidden hand "
                                  "and the deck; use observe(agent), what each player may know")

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game: ``seed`` (an integer in [0, 2**64)) makes it the core's game of that seed;
        later unseeded resets continue a sequence seeded by it."""
        if seed is not None:
            game_seed = check_seed(seed)
            self._seeder = np.random.default_rng(game_seed)
        else:
            if self._seeder is None:
                self._seeder = np.random.default_rng()
            game_seed = int(self._seeder.integers(2**63))
        self._game = SingleGame(self.rules, game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self._refresh()

    def _refresh(self) -> None:
        """Cache the seat to act and its mask; point ``agent_selection`` at it."""
        self._to_act = self._game.to_act
        self._mask = self._game.legal_mask().astype(np.int8)
        if self._to_act >= 0:
            self.agent_selection = self.possible_agents[self._to_act]

    def observe(self, agent: str) -> dict:
        seat = self._seat[agent]
        observation = self._game.observe(seat)
        mask = self._mask if seat == self._to_act else self._no_mask
        return {"observation": observation, "action_mask": mask.copy()}

    def illegal_reason(self, action) -> str | None:
        """Why ``action`` is illegal for the agent to act now, or ``None`` if it is legal; a malformed
        action (not an integer in 0..n_actions−1) raises ``ValueError`` naming the range."""
        action = check_action(action, self.core.n_actions)
        if self._mask[action]:
            return None
        return self._game.explain_illegal(action)

    def step(self, action) -> None:
        """Play ``action`` for ``agent_selection``: an integer (Python or numpy, or an integer array of
        shape ``()`` or ``(1,)``) in 0..n_actions−1; anything else (floats, bools, NaN, ``None`` for a
        live agent) raises ``ValueError`` naming the range. An illegal action is handled per
        ``on_illegal``; a finished agent's action must be ``None``."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = check_action(action, self.core.n_actions)
        if not self._mask[action]:
            reason = self._game.explain_illegal(action)
            illegal_policy(self.on_illegal, f"{agent}: {reason}")
            self._terminate_illegal(agent, reason)
            return
        rewards = self._game.step(action)
        self._cumulative_rewards[agent] = 0
        # float32 values, as the core gives them (FT-15's outcome shares are not exact in binary)
        self.rewards = {a: float(np.float32(rewards[self._seat[a]])) for a in self.agents}
        if self._game.done:
            self.terminations = {a: True for a in self.agents}
            for a in self.agents:
                self.infos[a] = {"vp": self._game.vp[self._seat[a]]}
        self._refresh()
        self._accumulate_rewards()
        self._deads_step_first()
        if self.render_mode == "human":
            self.render()

    def _terminate_illegal(self, agent: str, reason: str) -> None:
        """The unwrapped env's own version of ``TerminateIllegalWrapper``: −1 to the offender, game over."""
        EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = ILLEGAL_REWARD
        self.infos[agent] = {**self.infos[agent], "illegal_action": reason}
        self._accumulate_rewards()
        self._deads_step_first()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self._game is None:
            raise RuntimeError("call reset() before render()")
        state = self._state
        if self.render_mode == "rgb_array":
            return render_image(self.core, state, 0, self.render_viewer)
        text = render_text(self.core, state, 0, self.render_viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

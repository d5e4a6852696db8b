"""Flight Tycoon as a PettingZoo AEC environment, with the conventions of PettingZoo's classic envs.

``env(**options)`` returns the wrapped environment (``TerminateIllegalWrapper`` for
``on_illegal="terminate"``, then ``OrderEnforcingWrapper``, as the classic envs wrap themselves; the
action is checked by the env itself — see ``step``); ``raw_env`` is the bare one. Options: ``rules``
(a ``FlightTycoonRules``) and every rule option of ``FlightTycoonRules`` (``n_players=5``,
``vp_sharing="rank"`` …, applied on top of ``rules``), ``render_mode`` (``"ansi"``, ``"rgb_array"``,
``"human"`` — the text printed), ``render_viewer`` (a seat, ``"public"`` or ``"all"``) and
``on_illegal`` (``"terminate"``: the offender gets −1, a warning, the reason in its info; ``"raise"``:
``IllegalActionError`` naming the action and why it is illegal).

Agents ``player_0 …``; observations ``{"observation": float32 (obs_size,), "action_mask": int8
(n_actions,)}`` with seats relative to the observer (layout in ``docs/flight_tycoon.md``); the mask is
all zeros for every agent but the one to act. The tower choices (FT-6) are made in turn, player_0
first, but nobody's observation shows another's choice before all are made.

The game lives in ``self.core`` (the batched core) and ``self._state`` (a batch of one, private:
it holds every hand and the deck); ``state()`` raises ``NotImplementedError`` as in PettingZoo's
classic envs. ``copy.deepcopy`` and ``pickle`` copy the game in progress: a copy continues exactly
as the original would (its random stream for later resets included).
"""

from __future__ import annotations

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from envs.common.checks import IllegalActionError, check_action, check_seed
from envs.flight_tycoon.core import FlightTycoonCore
from envs.flight_tycoon.render import check_viewer, render_image, render_text
from envs.flight_tycoon.rules import FlightTycoonRules

ON_ILLEGAL = ("terminate", "raise")


class _TerminateIllegal(wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` that also writes the reason into the offender's info."""

    def step(self, action) -> None:
        agent = self.agent_selection
        raw = self.env.unwrapped
        alive = not (self.terminations.get(agent) or self.truncations.get(agent))
        if alive:  # a malformed action is refused before the wrapper indexes the mask with it
            action = check_action(action, raw.core.n_actions)
        reason = raw.illegal_reason(action) if alive else None
        super().step(action)
        if reason is not None and agent in raw.infos:
            raw.infos[agent]["illegal_action"] = reason


def env(**kwargs) -> AECEnv:
    """The Flight Tycoon AEC environment, wrapped as PettingZoo's classic environments are."""
    environment = raw_env(**kwargs)
    if environment.on_illegal == "terminate":
        environment = _TerminateIllegal(environment, illegal_reward=-1)
    return wrappers.OrderEnforcingWrapper(environment)


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
        if rules is None:
            self.rules = FlightTycoonRules.from_options(rule_options)
        elif isinstance(rules, FlightTycoonRules):
            self.rules = rules.replace(**rule_options) if rule_options else rules
        else:
            raise TypeError(f"rules must be a FlightTycoonRules, got {type(rules).__name__}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if on_illegal not in ON_ILLEGAL:
            raise ValueError(f"on_illegal must be one of {', '.join(ON_ILLEGAL)}, got {on_illegal!r}")
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
        self._state = None

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
        self._state = self.core.init(np.array([game_seed], dtype=np.uint64))
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self._refresh()

    def _refresh(self) -> None:
        """Cache the seat to act and its mask; point ``agent_selection`` at it."""
        self._to_act = int(self.core.to_act(self._state)[0])
        self._mask = self.core.legal_mask(self._state)[0].astype(np.int8)
        if self._to_act >= 0:
            self.agent_selection = self.possible_agents[self._to_act]

    def observe(self, agent: str) -> dict:
        seat = self._seat[agent]
        observation = self.core.observe(self._state, seat)[0]
        mask = self._mask if seat == self._to_act else np.zeros(self.core.n_actions, np.int8)
        return {"observation": observation, "action_mask": mask.copy()}

    def illegal_reason(self, action) -> str | None:
        """Why ``action`` is illegal for the agent to act now, or ``None`` if it is legal; a malformed
        action (not an integer in 0..n_actions−1) raises ``ValueError`` naming the range."""
        action = check_action(action, self.core.n_actions)
        if self._mask[action]:
            return None
        return self.core.explain_illegal(self._state, 0, action)

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
            reason = self.core.explain_illegal(self._state, 0, action)
            if self.on_illegal == "raise":
                raise IllegalActionError(f"{agent}: {reason}")
            self._terminate_illegal(agent, reason)
            return
        rewards = self.core.step(self._state, np.array([action]))[0]
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: float(rewards[self._seat[a]]) for a in self.agents}
        if self._state.done[0]:
            self.terminations = {a: True for a in self.agents}
            vp = self._state.vp[0]
            for a in self.agents:
                self.infos[a] = {"vp": int(vp[self._seat[a]])}
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
        self.rewards[agent] = -1.0
        self.infos[agent] = {**self.infos[agent], "illegal_action": reason}
        self._accumulate_rewards()
        self._deads_step_first()

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self._state is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return render_image(self.core, self._state, 0, self.render_viewer)
        text = render_text(self.core, self._state, 0, self.render_viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

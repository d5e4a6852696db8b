"""RLlib's PPO (the new API stack) on the batched core: every registered game, its action masks
honoured, each seat seeing only what it may know.

- A solo game is a single-agent env: :class:`CoreVectorEnv` steps B games of the batched core at once as a
  Gymnasium ``VectorEnv`` (RLlib's ``vector_entry_point`` mode; next-step autoreset, as RLlib's env
  runners expect).
- A multi-player game is an RLlib ``MultiAgentEnv``: :func:`multi_agent_env` wraps the game's own
  PettingZoo env with RLlib's ``PettingZooEnv`` (measured faster than a ``MultiAgentEnv`` over the
  batched core for one game at a time, which ``env="core"`` gives: benchmarks/cluster_speed.py); the
  seat to act (agent ``player_<seat>``) gets its own observation (what that seat may know, never
  another's hand) and its legal mask; all seats are played by one shared policy (self-play).
- Observations are dicts ``{"observation": float32 (O,), "action_mask": (A,)}`` (PettingZoo's classic
  convention);
  :class:`MaskedPPOModule` is PPO's default torch module with the logits of illegal actions set to
  the float minimum (so they are never sampled nor chosen), for exploration, inference and training.
- Both envs refuse an illegal action (``ValueError``: the run stops), and count the actions they took.

- A multi-player game against fixed opponents (agent specs) is a single-agent env,
  :class:`LearnerVectorEnv`: the learner in one seat of each of B games, the opponents' decisions
  computed inside the env, batched as the arena plays them.

RLlib is optional (``pip install 'aerodeck[rllib]'``); this module imports it only when used. A whole run
(budget, evaluations, checkpoints, resume) is ``aerodeck.train.rllib`` (``python -m aerodeck.train.rllib``);
its checkpoints play in every tool as the ``rllib`` agent (``rllib:path=RUN``, ``aerodeck.agents.rllib``;
docs/rllib.md).
"""

from __future__ import annotations

import dataclasses
import time

import gymnasium as gym
import numpy as np

from aerodeck import envs
from aerodeck.envs.common.rng import game_seeds

#: The one policy every seat of a multi-player game is played by (self-play).
SHARED = "shared"


def agent_id(seat: int) -> str:
    """The RLlib agent id of seat ``seat``."""
    return f"player_{seat}"


def _spaces(core) -> tuple[gym.spaces.Dict, gym.spaces.Discrete]:
    """The observation (dict of the observation and the mask) and action spaces of ``core``'s game."""
    obs = gym.spaces.Dict({
        "observation": gym.spaces.Box(0.0, 1.0, (core.obs_size,), np.float32),
        "action_mask": gym.spaces.Box(0.0, 1.0, (core.n_actions,), np.float32),
    })
    return obs, gym.spaces.Discrete(core.n_actions)


def training_deals(seed: int, count: int, first: int = 0) -> np.ndarray:
    """Seeds of training games ``first … first+count−1`` of a run seeded ``seed``: ``uint64 (count,)``,
    ``game_seeds`` with the top bit cleared — never a benchmark task's evaluation deal, whose top bit is
    set (``aerodeck.bench.tasks.EVAL_BIT``)."""
    return game_seeds(seed, count, first) & np.uint64(2**63 - 1)


def _refuse_illegal(core, state, actions: np.ndarray, masks: np.ndarray, rows: np.ndarray) -> None:
    """``ValueError`` naming the first action of ``rows`` that ``masks`` forbids."""
    bad = rows[~masks[rows, np.clip(actions[rows], 0, core.n_actions - 1)]]
    if bad.size:
        g = int(bad[0])
        raise ValueError(f"RLlib chose an illegal action {int(actions[g])} in game {g}: "
                         f"{core.explain_illegal(state, g, int(actions[g]))}")


class CoreVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` games of a solo game's batched core as a Gymnasium ``VectorEnv`` with next-step
    autoreset: the step after a game ends deals the next game in its row (reward 0, not done).

    Observations ``{"observation": float32 (B, O), "action_mask": float32 (B, A)}``; rewards
    ``float32 (B,)``. The games are dealt in turn from :func:`training_deals` of ``seed``: they
    depend only on ``seed``. ``taken``: the actions played so far (every
    one legal: an illegal one raises ``ValueError``)."""

    metadata = {"autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, game: str, rules=None, num_envs: int = 1, seed: int = 0) -> None:
        spec = envs.spec(game)
        if not spec.solo:
            raise ValueError(f"{game} is a multi-player game: train it with multi_agent_env")
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.core = spec.make_core(rules if rules is not None else spec.rules_class()(), check_actions=False)
        self.num_envs = num_envs
        one_obs, one_action = _spaces(self.core)
        self.single_observation_space, self.single_action_space = one_obs, one_action
        self.observation_space = gym.vector.utils.batch_space(one_obs, num_envs)
        self.action_space = gym.vector.utils.batch_space(one_action, num_envs)
        self.seed_, self.dealt, self.taken = seed, 0, 0
        self.state, self.ended = None, np.zeros(num_envs, bool)

    def _seeds(self, count: int) -> np.ndarray:
        seeds = training_deals(self.seed_, count, self.dealt)
        self.dealt += count
        return seeds

    def _obs(self) -> dict:
        return {"observation": self.core.observe(self.state).astype(np.float32),
                "action_mask": self.core.legal_mask(self.state).astype(np.float32)}

    def reset(self, *, seed=None, options=None):
        """Deal ``num_envs`` new games (``seed``: a new run seed; default the current one)."""
        if seed is not None:
            self.seed_, self.dealt = int(np.ravel(seed)[0]) % 2**64, 0
        self.state = self.core.init(self._seeds(self.num_envs))
        self.ended[:] = False
        return self._obs(), {}

    def step(self, actions):
        """One decision in every game (a game that ended at the last step is dealt anew instead)."""
        actions = np.asarray(actions, np.int64).reshape(self.num_envs)
        masks = self.core.legal_mask(self.state)
        live = np.flatnonzero(~self.ended)
        _refuse_illegal(self.core, self.state, actions, masks, live)
        rewards = np.zeros(self.num_envs, np.float32)
        if live.size:
            stepped = self.core.step(self.state, np.where(self.ended, 0, actions))
            rewards[live] = np.asarray(stepped, np.float32).reshape(self.num_envs, -1)[live, 0]
            self.taken += live.size
        restart = np.flatnonzero(self.ended)
        if restart.size:
            self.core.reset(self.state, restart, self._seeds(restart.size))
        terminated = np.asarray(self.state.done, bool).copy()
        terminated[restart] = False
        self.ended = terminated.copy()
        return self._obs(), rewards, terminated, np.zeros(self.num_envs, bool), {}


class LearnerVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` games of a multi-player game's batched core, one seat of each played by the learner
    (the seat of game k is k mod n: every seat equally often) and the others by fixed ``opponents``
    (agent specs of ``aerodeck.agents.registry``: one for every other seat, or one per seat offset
    1 … n−1), stepped inside the env: each step plays the learner's decision in every live game, then
    the opponents' decisions — each opponent once over all the games waiting for it, one batched
    ``act`` — until every game waits for its learner again or is over. Next-step autoreset, as
    :class:`CoreVectorEnv`.

    Observations ``{"observation": float32 (B, O), "action_mask": float32 (B, A)}`` are the learner's
    own (what its seat may know); rewards ``float32 (B,)`` the learner's, its opponents' turns included.
    Game k (over all rows) is dealt from ``training_deals(seed, 1, k)``; the opponents are seeded from
    ``(seed, offset)`` and draw from the keys of (game seed, decision), so a game's play depends only
    on ``seed``. ``taken``: the learner's actions so far (every one legal)."""

    metadata = {"autoreset_mode": gym.vector.AutoresetMode.NEXT_STEP}

    def __init__(self, game: str, rules=None, num_envs: int = 1, seed: int = 0,
                 opponents: tuple[str, ...] | list[str] = ("random",)) -> None:
        from aerodeck.agents.registry import make_agent
        from aerodeck.arena.loop import agent_seed

        spec = envs.spec(game)
        if spec.solo:
            raise ValueError(f"{game} is played solo: train it with CoreVectorEnv")
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs}")
        self.spec_ = spec
        rules = rules if rules is not None else spec.rules_class()()
        self.core = spec.make_core(rules, check_actions=False)
        n = self.core.n_players
        opponents = list(opponents)
        if len(opponents) not in (1, n - 1):
            raise ValueError(f"opponents: give one agent for every other seat or {n - 1} (one per seat offset "
                             f"1..{n - 1}), got {len(opponents)}")
        made = {o: make_agent(spec.id, o, rules, seed=agent_seed(seed, 1 + k)) for k, o in enumerate(dict.fromkeys(opponents))}
        self.opponents = [made[o] for o in (opponents * (n - 1) if len(opponents) == 1 else opponents)]
        self.num_envs = num_envs
        one_obs, one_action = _spaces(self.core)
        self.single_observation_space, self.single_action_space = one_obs, one_action
        self.observation_space = gym.vector.utils.batch_space(one_obs, num_envs)
        self.action_space = gym.vector.utils.batch_space(one_action, num_envs)
        self.seed_, self.dealt, self.taken = seed, 0, 0
        self.state, self.ended = None, np.zeros(num_envs, bool)
        self.learner = np.zeros(num_envs, np.int64)
        self.seeds = np.zeros(num_envs, np.uint64)
        self.decisions = np.zeros(num_envs, np.int64)

    def _deal(self, rows: np.ndarray) -> None:
        seeds = training_deals(self.seed_, rows.size, self.dealt)
        number = self.dealt + np.arange(rows.size)
        self.dealt += rows.size
        if self.state is None:
            self.state = self.core.init(seeds)
        else:
            self.core.reset(self.state, rows, seeds)
        self.seeds[rows], self.decisions[rows] = seeds, 0
        self.learner[rows] = number % self.core.n_players

    def _play_opponents(self, rewards: np.ndarray) -> None:
        """The opponents' decisions until every game waits for its learner or is over; their rewards to
        the learner added to ``rewards``."""
        from aerodeck.arena.loop import decide

        core, n, rows = self.core, self.core.n_players, np.arange(self.num_envs)
        while True:
            to_act = core.to_act(self.state)
            waiting = (to_act >= 0) & (to_act != self.learner)
            if not waiting.any():
                return
            offset = (to_act - self.learner) % n
            actions = np.zeros(self.num_envs, np.int64)
            masks = core.legal_mask(self.state)
            for k in range(1, n):
                games = np.flatnonzero(waiting & (offset == k))
                if not games.size:
                    continue
                agent = self.opponents[k - 1]
                obs = core.observe(self.state, to_act[games], games=games)
                view = self.spec_.make_view(core, self.state.take(games), to_act[games]) if agent.needs_view else None
                actions[games] = decide(agent, obs, masks[games], view, self.seeds[games], self.decisions[games])
            played = np.flatnonzero(waiting)
            _refuse_illegal(core, self.state, actions, masks, played)
            reward = np.asarray(core.step(self.state, actions, games=played), np.float32).reshape(self.num_envs, n)
            rewards[played] += reward[played, self.learner[played]]
            self.decisions[played] += 1

    def _obs(self) -> dict:
        return {"observation": self.core.observe(self.state, self.learner).astype(np.float32),
                "action_mask": self.core.legal_mask(self.state).astype(np.float32)}

    def reset(self, *, seed=None, options=None):
        """Deal ``num_envs`` new games (``seed``: a new run seed; default the current one)."""
        if seed is not None:
            self.seed_, self.dealt = int(np.ravel(seed)[0]) % 2**64, 0
        self.state = None
        self._deal(np.arange(self.num_envs))
        self.ended[:] = False
        self._play_opponents(np.zeros(self.num_envs, np.float32))
        self.ended = np.asarray(self.state.done, bool).copy()  # (a game over before its learner's turn)
        return self._obs(), {}

    def step(self, actions):
        """The learner's decision in every game, then the opponents' (a game that ended at the last
        step is dealt anew instead)."""
        actions = np.asarray(actions, np.int64).reshape(self.num_envs)
        masks = self.core.legal_mask(self.state)
        live = np.flatnonzero(~self.ended)
        _refuse_illegal(self.core, self.state, actions, masks, live)
        rewards = np.zeros(self.num_envs, np.float32)
        n = self.core.n_players
        if live.size:
            stepped = np.asarray(self.core.step(self.state, np.where(self.ended, 0, actions), games=live), np.float32)
            rewards[live] = stepped.reshape(self.num_envs, n)[live, self.learner[live]]
            self.decisions[live] += 1
            self.taken += live.size
        restart = np.flatnonzero(self.ended)
        if restart.size:
            self._deal(restart)
        self._play_opponents(rewards)
        rewards[restart] = 0.0  # a new game's opening opponent moves pay nothing to the ended episode
        terminated = np.asarray(self.state.done, bool).copy()
        terminated[restart] = False
        self.ended = np.asarray(self.state.done, bool).copy()
        return self._obs(), rewards, terminated, np.zeros(self.num_envs, bool), {}


def _multi_agent_env_class():
    """The class of :func:`multi_agent_env`, built on RLlib's ``MultiAgentEnv`` when first asked for."""
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    class CoreMultiAgentEnv(MultiAgentEnv):
        """One game of a multi-player game's core as an RLlib ``MultiAgentEnv`` (turn by turn).

        Agents ``player_0 … player_{n−1}`` by absolute seat. Each step returns an observation only for
        the seat to act next — its own view (``core.observe(state, seat)``) and legal mask — and the
        rewards of every seat (RLlib adds a seat's rewards up to its next turn); at the end every seat gets its last view, terminated.
        ``config``: ``game``, ``rules`` (a rules object or options dict; default the game's), ``seed``
        (the k-th game is dealt from seed ``training_deals(seed, 1, k)``; RLlib's first ``reset(seed=…)``,
        distinct per env runner and env, replaces it). ``taken``: the actions played (every one legal)."""

        def __init__(self, config: dict | None = None) -> None:
            super().__init__()
            config = dict(config or {})
            spec, rules = _game_and_rules(config)
            self.core = spec.make_core(rules, check_actions=False)
            n = self.core.n_players
            self.possible_agents = [agent_id(s) for s in range(n)]
            self.agents = list(self.possible_agents)
            obs, action = _spaces(self.core)
            self.observation_spaces = {a: obs for a in self.possible_agents}
            self.action_spaces = {a: action for a in self.possible_agents}
            self.seed_, self.dealt, self.taken = int(config.get("seed", 0)) % 2**64, 0, 0
            self.state, self.mask = None, None

        def _view(self, seat: int) -> dict:
            self.mask = self.core.legal_mask(self.state)  # the seat to act's, kept for the check of its action
            return {"observation": self.core.observe(self.state, np.array([seat]))[0].astype(np.float32),
                    "action_mask": self.mask[0].astype(np.float32)}

        def reset(self, *, seed=None, options=None):
            if seed is not None:
                self.seed_, self.dealt = int(seed) % 2**64, 0
            self.state = self.core.init(training_deals(self.seed_, 1, self.dealt))
            self.dealt += 1
            seat = int(self.core.to_act(self.state)[0])
            return {agent_id(seat): self._view(seat)}, {}

        def step(self, action_dict: dict):
            seat = int(self.core.to_act(self.state)[0])
            if set(action_dict) != {agent_id(seat)}:
                raise ValueError(f"it is {agent_id(seat)}'s turn, got actions for {sorted(action_dict)}")
            action = np.array([int(action_dict[agent_id(seat)])], np.int64)
            _refuse_illegal(self.core, self.state, action, self.mask, np.array([0]))
            rewards = np.asarray(self.core.step(self.state, action), np.float32).reshape(-1)
            self.taken += 1
            paid = {agent_id(s): float(r) for s, r in enumerate(rewards)}  # every seat (RLlib sums them to its next turn)
            if bool(self.state.done[0]):
                n = self.core.n_players
                obs = {agent_id(s): {"observation": self.core.observe(self.state, np.array([s]))[0].astype(np.float32),
                                     "action_mask": np.zeros(self.core.n_actions, np.float32)} for s in range(n)}
                done = {**{a: True for a in obs}, "__all__": True}
                return obs, paid, done, {"__all__": False}, {}
            nxt = int(self.core.to_act(self.state)[0])
            return {agent_id(nxt): self._view(nxt)}, paid, {"__all__": False}, {"__all__": False}, {}

    return CoreMultiAgentEnv


def multi_agent_env(config: dict | None = None):
    """A multi-player game as an RLlib ``MultiAgentEnv``, one game at a time. ``config``: ``game``, ``rules``
    (a rules object or options dict; default the game's), ``seed``, and ``env``: ``"pettingzoo"`` (default:
    the game's PettingZoo env under RLlib's ``PettingZooEnv``, :func:`_checked_pettingzoo_class`) or
    ``"core"`` (the batched core, :func:`_multi_agent_env_class`). Both refuse an illegal action
    (``ValueError``) and count the actions taken (``taken``)."""
    config = dict(config or {})
    kind = config.get("env", "pettingzoo")
    if kind == "core":
        return _multi_agent_env_class()(config)
    if kind == "pettingzoo":
        return _checked_pettingzoo_class()(config)
    raise ValueError(f"env must be 'pettingzoo' or 'core', got {kind!r}")


def _game_and_rules(config: dict):
    spec = envs.spec(config["game"])
    if spec.solo:
        raise ValueError(f"{spec.id} is a solo game: train it with CoreVectorEnv")
    rules = config.get("rules")
    return spec, spec.rules_class().from_options(rules) if isinstance(rules, dict) else rules or spec.rules_class()()


def _checked_pettingzoo_class():
    """RLlib's ``PettingZooEnv`` over the game's PettingZoo (AEC) env, refusing an illegal action."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    class CheckedPettingZooEnv(PettingZooEnv):
        """The game's PettingZoo env as RLlib plays it: the seat to act gets its own observation and mask
        (the env's, as PettingZoo's classic envs give them); each seat's rewards reach it at its next turn
        (PettingZoo's cumulative rewards); an illegal action raises ``ValueError`` instead of ending the
        game; ``taken`` counts the actions played."""

        def __init__(self, config: dict) -> None:
            spec, rules = _game_and_rules(config)
            super().__init__(spec.make_env(rules))
            self.taken, self.mask = 0, None

        def reset(self, *, seed=None, options=None):
            obs, info = super().reset(seed=seed, options=options)
            self.mask = obs[self.env.agent_selection]["action_mask"]
            return obs, info

        def step(self, action_dict):
            agent = self.env.agent_selection
            if set(action_dict) != {agent}:
                raise ValueError(f"it is {agent}'s turn, got actions for {sorted(action_dict)}")
            action = int(action_dict[agent])
            if not 0 <= action < len(self.mask) or not self.mask[action]:
                raise ValueError(f"RLlib chose an illegal action {action} for {agent}")
            self.taken += 1
            obs, rewards, terminated, truncated, info = super().step(action_dict)
            if not terminated["__all__"] and not truncated["__all__"]:
                self.mask = obs[self.env.agent_selection]["action_mask"]
            return obs, rewards, terminated, truncated, info

    return CheckedPettingZooEnv


def masked_module_class():
    """:class:`MaskedPPOModule`: PPO's default torch RLModule over the ``observation`` part of the
    observation, its logits of illegal actions (``action_mask`` 0) set to the float minimum."""
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    class MaskedPPOModule(DefaultPPOTorchRLModule):
        """PPO's default torch module; its networks read ``observation``, its logits obey ``action_mask``."""

        def __init__(self, *, observation_space=None, **kwargs) -> None:
            self.observation_space_with_mask = observation_space
            super().__init__(observation_space=observation_space["observation"], **kwargs)

        def setup(self) -> None:
            super().setup()
            self.observation_space = self.observation_space_with_mask

        def train(self, mode: bool = True):
            """``nn.Module.train``, skipped when the module and its layers are in that mode already: RLlib
            switches the mode around every forward pass, and each switch walks every layer (about a
            tenth of a run's time in benchmarks/rllib_speed.py's profile)."""
            if self.__dict__.get("_layers_mode") is mode and self.training is mode:
                return self
            super().train(mode)
            self.__dict__["_layers_mode"] = mode
            return self

        @staticmethod
        def _split(batch: dict) -> tuple[object, dict]:
            obs = batch[Columns.OBS]
            if not isinstance(obs, dict):  # already split (compute_values keeps the mask aside)
                return batch["action_mask"], batch
            return obs["action_mask"], {**batch, Columns.OBS: obs["observation"]}

        @staticmethod
        def _masked(out: dict, mask) -> dict:
            logits = out[Columns.ACTION_DIST_INPUTS]
            out[Columns.ACTION_DIST_INPUTS] = torch.where(mask > 0, logits, torch.full_like(logits, FLOAT_MIN))
            return out

        def _forward_inference(self, batch, **kwargs):
            mask, batch = self._split(batch)
            return self._masked(super()._forward_inference(batch, **kwargs), mask)

        def _forward_exploration(self, batch, **kwargs):
            mask, batch = self._split(batch)
            return self._masked(super()._forward_exploration(batch, **kwargs), mask)

        def _forward_train(self, batch, **kwargs):
            mask, batch = self._split(batch)
            return self._masked(super()._forward_train(batch, **kwargs), mask)

        def compute_values(self, batch, embeddings=None):
            mask, split = self._split(batch)
            if split is not batch:
                batch[Columns.OBS], batch["action_mask"] = split[Columns.OBS], mask
            return super().compute_values(batch, embeddings)

    return MaskedPPOModule


@dataclasses.dataclass(frozen=True)
class Setup:
    """What one RLlib PPO run needs besides the game: its scale and PPO's main settings."""

    #: Env runners (Ray actors sampling games; 0: sample in the driver) and games each steps at once.
    env_runners: int = 0
    envs_per_runner: int = 64
    #: Env steps per PPO update (all runners together), minibatch and epochs.
    batch: int = 2048
    minibatch: int = 256
    epochs: int = 4
    lr: float = 3e-4
    gamma: float = 0.99
    entropy: float = 0.01
    hidden: tuple[int, ...] = (128, 128)
    seed: int = 0
    #: A multi-player game's env (:func:`multi_agent_env`): ``pettingzoo`` or ``core``.
    multi_env: str = "pettingzoo"
    #: A multi-player game: agent specs playing the other seats (one for all, or one per seat offset
    #: 1 … n−1) against a learner in one seat (:class:`LearnerVectorEnv`); empty: self-play.
    opponents: tuple[str, ...] = ()
    #: The seed the training games are dealt from (default ``seed``; a resumed run deals new games).
    env_seed: int | None = None
    #: CPU threads torch uses in the driver and in each env runner (``None``: torch's own choice, one
    #: per core). One is the default: on a busy machine torch's threads wait for each other at every small
    #: matrix product (benchmarks/rllib_speed.py times both; docs/research/rllib-speed.md).
    threads: int | None = 1

    def deals(self) -> int:
        """The seed of the training games."""
        return self.seed if self.env_seed is None else self.env_seed


def ppo_config(game: str, rules=None, setup: Setup = Setup()):
    """RLlib's ``PPOConfig`` for ``game`` under ``rules`` (default the game's): a solo game on
    :class:`CoreVectorEnv`, a multi-player one on :func:`multi_agent_env` with one shared policy,
    both with :func:`masked_module_class`'s module. ``ValueError`` for an unknown game."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    spec = envs.spec(game)
    rules = rules if rules is not None else spec.rules_class()()
    torch_threads(setup.threads)  # the driver's (its env runner and learner); each env runner's: at its env's creation
    module = RLModuleSpec(module_class=masked_module_class(), model_config={
        "fcnet_hiddens": list(setup.hidden), "fcnet_activation": "tanh", "head_fcnet_hiddens": []})
    config = (PPOConfig()
              .framework("torch")
              .env_runners(num_env_runners=setup.env_runners, num_envs_per_env_runner=setup.envs_per_runner)
              .training(train_batch_size_per_learner=setup.batch, minibatch_size=setup.minibatch,
                        num_epochs=setup.epochs, lr=setup.lr, gamma=setup.gamma, entropy_coeff=setup.entropy)
              .debugging(seed=setup.seed))
    name = f"aerodeck-rllib-{spec.id}"
    if setup.opponents and spec.solo:
        raise ValueError(f"{spec.id} is played solo: it has no opponents")
    if spec.solo or setup.opponents:
        register_env(name, lambda ctx: torch_threads(setup.threads) or _solo_env(spec.id, rules, ctx, setup.deals(),
                                                                                setup.opponents))
        return (config.environment(name, disable_env_checking=True)
                .env_runners(gym_env_vectorize_mode="vector_entry_point")
                .rl_module(rl_module_spec=module))
    register_env(name, lambda ctx: torch_threads(setup.threads) or multi_agent_env({
        **ctx, "game": spec.id, "rules": rules, "seed": setup.deals(), "env": setup.multi_env}))
    return (config.environment(name, disable_env_checking=True)
            .multi_agent(policies={SHARED}, policy_mapping_fn=lambda agent, episode, **kw: SHARED)
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED: module})))


def torch_threads(threads: int | None) -> None:
    """Let torch use ``threads`` CPU threads in this process (``None``: leave its choice)."""
    if threads is not None:
        import torch

        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)


def _solo_env(game: str, rules, ctx, seed: int, opponents: tuple[str, ...] = ()):
    """The single-agent env RLlib asks for: a :class:`CoreVectorEnv` (a solo game) or a
    :class:`LearnerVectorEnv` (a multi-player game against ``opponents``) of ``ctx["num_envs"]`` games,
    seeded apart per env runner (``ctx.worker_index``)."""
    worker = getattr(ctx, "worker_index", 0)
    seed = (seed + 7919 * worker) % 2**64
    if opponents:
        return LearnerVectorEnv(game, rules, int(ctx.get("num_envs", 1)), seed=seed, opponents=opponents)
    return CoreVectorEnv(game, rules, int(ctx.get("num_envs", 1)), seed=seed)


class ModuleAgent:
    """An RLlib module as an ``aerodeck`` agent (``aerodeck.agents.base``): greedy (or sampled) masked
    actions ``int64 (B,)`` for observations ``float32 (B, O)`` and masks ``bool (B, A)``, one batched forward
    pass — so ``aerodeck bench``'s functions measure it."""

    name = "rllib"
    needs_view = False
    takes_keys = False

    def __init__(self, module) -> None:
        self.module = module
        self.key = 0

    def act(self, observations, masks, view=None):
        import torch
        from ray.rllib.core.columns import Columns

        batch = {Columns.OBS: {"observation": torch.as_tensor(np.asarray(observations, np.float32)),
                               "action_mask": torch.as_tensor(np.asarray(masks, np.float32))}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
        return logits.argmax(-1).numpy().astype(np.int64)


def policy_module(algo):
    """The trained torch module of ``algo`` (the shared policy of a multi-player game)."""
    from ray.rllib.core import DEFAULT_MODULE_ID

    modules = algo.get_module(SHARED) if SHARED in algo.config.policies else algo.get_module(DEFAULT_MODULE_ID)
    return modules


def train_iterations(game: str, rules=None, setup: Setup = Setup(), iterations: int = 1, log=None) -> tuple[object, dict]:
    """Train ``game`` with RLlib's PPO for ``iterations`` updates on the Ray instance already started (or
    a local one); the algorithm and its last result. ``log(iteration, result)`` after each."""
    algo = ppo_config(game, rules, setup).build_algo()
    result = {}
    for i in range(iterations):
        result = algo.train()
        if log is not None:
            log(i + 1, result)
    return algo, result


def env_steps(result: dict) -> int:
    """The env steps sampled over the run so far, from an ``algo.train()`` result."""
    from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

    return int(result.get(ENV_RUNNER_RESULTS, {}).get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0))


def timed_train(game: str, rules=None, setup: Setup = Setup(), steps: int = 10_000) -> tuple[object, float, int]:
    """Train until ``steps`` env steps are sampled; the algorithm, its wall seconds (build excluded) and
    the env steps sampled."""
    algo = ppo_config(game, rules, setup).build_algo()
    began, sampled = time.perf_counter(), 0
    while sampled < steps:
        sampled = env_steps(algo.train())
    return algo, time.perf_counter() - began, sampled


def against_random(game: str, rules, module, games: int, seed: int = 12345) -> dict:
    """``module``'s greedy play (:class:`ModuleAgent`) against random play, measured as ``aerodeck bench``
    does on the deals of ``seed``: a solo game's paired mean score difference (module − random on the
    same ``games`` deals), a multi-player game's win rate of the module in one seat (rotated) against
    random players in the others (fair share 1/n). Returns bench's report dictionary."""
    from aerodeck.agents.registry import make_agent
    from aerodeck.bench.bench import bench_solo, bench_tournament
    from aerodeck.arena.loop import agent_seed

    spec = envs.spec(game)
    rules = rules if rules is not None else spec.rules_class()()
    randomly = make_agent(spec.id, "random", rules, seed=agent_seed(seed, 0))
    learner = ModuleAgent(module)
    if spec.solo:
        return bench_solo(spec, rules, ["random", "rllib"], [randomly, learner], [games, games], seed, progress=False)
    n = spec.players(rules)
    return bench_tournament(spec, rules, ["rllib", "random"], [learner, randomly], games, seed,
                            lineup=[0] + [1] * (n - 1), progress=False)

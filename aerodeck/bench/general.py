"""The training env of a rules-generalization task: every train variant in play at once.

:class:`GeneralVecEnv` splits its ``num_envs`` games into one group per train variant of the task (as
evenly as possible; ``num_envs`` must be at least the number of train variants), each group a batch of
games under its variant — Airport Scramble's ``BatchGames``, Flight Tycoon's learner view with the
task's opponents — so every update sees every train variant. What the learner reads is the same for
every variant (the task's ``general`` observation): the variant's observation laid out in the variant
space's family layout (``aerodeck.agents.variants.Embedding``) followed by the variant's rule features
(``VariantSpace.features``), ``float32 (num_envs, O_family + F)``; actions and masks are the family's
(``A_family``), a family action the variant lacks never legal.

Both games speak the batched learner view's API (``aerodeck.envs.flight_tycoon.learner.LearnerGames``):
``reset()`` → ``(obs, masks)``, ``step(actions)`` → ``(obs, rewards float32 (B,), dones bool (B,), infos)``
with same-step autoreset (an ended game's ``infos[i]`` holds ``terminal_observation`` in the learner's
layout, ``variant``: its train variant's index, and the game's own end figures: Airport Scramble ``score``,
Flight Tycoon ``rank`` and ``win_share``), ``action_masks()`` ``bool (B, A_family)``.
:class:`GeneralSB3VecEnv` is the same games as a stable-baselines3 ``VecEnv``. Every deal is a training
deal (``aerodeck.bench.tasks.training_seeds``).
"""

from __future__ import annotations

import numpy as np

from aerodeck.bench.deals import training_seeds


def group_sizes(num_envs: int, groups: int) -> list[int]:
    """``num_envs`` games over ``groups`` groups as evenly as possible (``ValueError`` if a group would be empty)."""
    if not isinstance(num_envs, (int, np.integer)) or isinstance(num_envs, bool) or num_envs < groups:
        raise ValueError(f"num_envs must be an integer of at least {groups} (one game per train variant), got {num_envs!r}")
    return [num_envs // groups + (g < num_envs % groups) for g in range(groups)]


class _SoloGroup:
    """A solo game's games of one variant — its Gymnasium ``VectorEnv`` (``GameSpec.vector_class()``), the
    first games dealt from training seeds — in the learner view's API."""

    def __init__(self, spec, rules, size: int, seed: int) -> None:
        self.env, self.seed = spec.vector_class()(size, rules=rules), seed
        self.mask = None

    def reset(self):
        obs, infos = self.env.reset(seed=[int(s) for s in training_seeds(self.seed, self.env.num_envs)])
        self.mask = infos["action_mask"]
        return obs, self.mask.copy()

    def action_masks(self) -> np.ndarray:
        return self.mask

    def step(self, actions):
        obs, rewards, terminated, _, info = self.env.step(actions)
        self.mask = info["action_mask"]
        infos = [{} for _ in range(self.env.num_envs)]
        if "final_obs" in info:
            final = info["final_info"]
            for row in np.flatnonzero(info["_final_obs"]):
                infos[row] = {"terminal_observation": info["final_obs"][row], "score": int(final["score"][row]),
                              "outcome": final["outcome"][row]}
        return obs, rewards, np.array(terminated, bool), infos


class GeneralVecEnv:
    """``num_envs`` games over the train variants of ``task`` (see the module docstring); ``seed``: the run
    seed (each group's deals are keyed from it)."""

    def __init__(self, task, num_envs: int, seed: int = 0) -> None:
        if not task.general:
            raise ValueError(f"task {task.name} is not a rules-generalization task")
        self.task, self.space = task, task.space
        self.variants = task.train_variants
        self.sizes = group_sizes(num_envs, len(self.variants))
        self.num_envs = int(num_envs)
        starts = np.cumsum([0, *self.sizes])
        self.slices = [slice(int(a), int(b)) for a, b in zip(starts[:-1], starts[1:])]
        seeds = training_seeds(seed, len(self.variants))
        self.groups, self.embeddings, self.features = [], [], []
        for rules, size, s in zip(self.variants, self.sizes, seeds):
            self.groups.append(_SoloGroup(task.spec, rules, size, int(s)) if task.spec.solo else task._vec_env(rules, size, int(s)))
            self.embeddings.append(self.space.embedding(rules))
            self.features.append(self.space.features(rules))
        family = self.embeddings[0]
        #: What the learner reads: the family layout's observation, then the rule features.
        self.observation_size = family.obs_size + self.space.size
        #: The family layout's actions.
        self.n_actions = family.n_actions
        #: ``int64 (num_envs,)``: the train variant of each game.
        self.variant = np.concatenate([np.full(n, g, np.int64) for g, n in enumerate(self.sizes)])

    def _learner_obs(self, g: int, obs: np.ndarray) -> np.ndarray:
        embedded = self.embeddings[g].observations(obs)
        return np.concatenate([embedded, np.broadcast_to(self.features[g], (len(obs), self.features[g].size))], axis=1)

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        """New games in every group: the learner's observations ``float32 (B, O)`` and masks ``bool (B, A)``."""
        obs = [self._learner_obs(g, group.reset()[0]) for g, group in enumerate(self.groups)]
        return np.concatenate(obs).astype(np.float32), self.action_masks()

    def action_masks(self) -> np.ndarray:
        """``bool (B, A_family)``: each game's legal actions in the family layout."""
        return np.concatenate([e.actionwise(np.asarray(group.action_masks(), bool), False)
                               for e, group in zip(self.embeddings, self.groups)])

    def step(self, actions):
        """The learners' family ``actions`` (integers (B,)); returns observations, rewards, dones and infos
        (see the module docstring)."""
        actions = np.asarray(actions, np.int64).reshape(self.num_envs)
        obs, rewards, dones, infos = [], [], [], []
        for g, (group, rows) in enumerate(zip(self.groups, self.slices)):
            o, r, d, i = group.step(self.embeddings[g].actions(actions[rows]))
            for info in i:
                if "terminal_observation" in info:
                    info["terminal_observation"] = self._learner_obs(g, info["terminal_observation"][None])[0]
                    info["variant"] = g
            obs.append(self._learner_obs(g, o))
            rewards.append(np.asarray(r, np.float32))
            dones.append(np.asarray(d, bool))
            infos.extend(i)
        return np.concatenate(obs).astype(np.float32), np.concatenate(rewards), np.concatenate(dones), infos

    def describe(self) -> str:
        """The train variants, one label each."""
        return "; ".join(r.label() for r in self.variants)


def GeneralSB3VecEnv(general: GeneralVecEnv):  # noqa: N802 - the class needs the train extra, built on first use
    """``general``'s games as a stable-baselines3 ``VecEnv`` (``aerodeck.envs.common.sb3.BatchedVecEnv``)."""
    from aerodeck.envs.common.sb3 import BatchedVecEnv

    class _GeneralSB3VecEnv(BatchedVecEnv):
        def __init__(self) -> None:
            self.general = general
            super().__init__(general.num_envs, general.observation_size, general.n_actions)

        def _reset(self) -> np.ndarray:
            return self.general.reset()[0]

        def _step(self, actions):
            return self.general.step(actions)

        def _masks(self) -> np.ndarray:
            return self.general.action_masks()

    return _GeneralSB3VecEnv()


class GeneralPolicyAgent:
    """A policy over a rules-generalization task's learner inputs as an aerodeck agent for one variant:
    ``GeneralPolicyAgent.factory(task, policy)`` is the ``rules -> Agent`` callable that
    ``Task.evaluate`` takes. ``policy(observations float32 (B, O_family + F), masks bool (B, A_family))
    -> int64 (B,)`` family actions (greedy)."""

    @staticmethod
    def factory(task, policy, name: str = "policy"):
        from aerodeck.agents.base import Agent

        class _Variant(Agent):
            def __init__(self, rules) -> None:
                super().__init__(0, rules)
                self.name = name
                self.embedding = task.space.embedding(rules)
                self.features = task.space.features(rules)

            def act(self, observations, masks, view=None):
                obs = np.concatenate([self.embedding.observations(observations),
                                      np.broadcast_to(self.features, (len(observations), self.features.size))], axis=1)
                family = policy(obs.astype(np.float32), self.embedding.actionwise(np.asarray(masks, bool), False))
                return self.embedding.actions(family)

        return _Variant

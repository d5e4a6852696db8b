"""A rule-general run (``[variants]`` in the training config): PPO over rule variants drawn from a
``aerodeck.agents.variants.VariantSpace``, and its evaluation over a fixed set of them.

:class:`VariantsEnv` is one SB3 ``VecEnv`` of ``num_envs`` games in ``groups`` groups, each group a
learner env (``aerodeck.train.model.learner_env``) of its own variant, as the general policy reads it
(the family layout, the rule features). Group g starts with variant g of the space under the run's
seed; every ``resample_every`` PPO updates the callbacks replace one group, in turn
(:meth:`VariantsEnv.resample`: replacement r ≥ 1 gives group (r − 1) mod groups variant groups + r − 1,
a pure function of the seed and r), whose games start afresh while the others play on — so a group
lives groups × resample_every updates and long games reach their end. In a multi-player game each
group has its own league (:class:`Leagues` fans the run's league calls out to them).
"""

from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env import VecEnv


def group_sizes(num_envs: int, groups: int) -> list[int]:
    """``num_envs`` games shared by ``groups`` groups as evenly as possible (``ValueError`` if a group
    would be empty)."""
    if groups > num_envs:
        raise ValueError(f"[variants] groups ({groups}) must not exceed [train] num_envs ({num_envs})")
    return [num_envs // groups + (g < num_envs % groups) for g in range(groups)]


class Leagues:
    """The leagues of a rule-general run's groups, as one league for the run's callbacks."""

    def __init__(self, leagues: list, slices: list[slice]) -> None:
        self.leagues, self.slices = leagues, slices
        self.snapshot_every = leagues[0].snapshot_every

    def add_snapshot(self, policy, steps: int) -> None:
        """A frozen copy of ``policy`` into every group's league."""
        for league in self.leagues:
            league.add_snapshot(policy, steps)

    def record(self, infos, dones) -> None:
        """Each group's finished games into its league."""
        for league, rows in zip(self.leagues, self.slices):
            league.record(infos[rows], np.asarray(dones)[rows])

    def figures(self) -> dict[str, float]:
        """The groups' league figures, averaged over the groups that have each."""
        out: dict[str, list[float]] = {}
        for league in self.leagues:
            for name, value in league.figures().items():
                out.setdefault(name, []).append(value)
        return {name: float(np.mean(values)) for name, values in out.items()}


class VariantsEnv(VecEnv):
    """``num_envs`` games in groups of rule variants (see the module docstring). ``run``: the
    ``aerodeck.train.run.Run`` (its game, rules, config, seed and general ``inputs``)."""

    def __init__(self, run, space, num_envs: int, seed: int) -> None:
        import gymnasium

        self.run, self.space, self.seed_ = run, space, seed
        self.render_mode = None
        self.sizes = group_sizes(num_envs, run.config.variants.groups)
        starts = np.cumsum([0] + self.sizes)
        self.slices = [slice(int(a), int(b)) for a, b in zip(starts[:-1], starts[1:])]
        size = run.inputs.size(0, 0)
        super().__init__(num_envs, gymnasium.spaces.Box(0.0, 1.0, (size,), np.float32),
                         gymnasium.spaces.Discrete(space.embedding(space.family).n_actions))
        self.env_seconds_before = 0.0
        self.league = None
        self.variants: list = [None] * len(self.sizes)
        self.envs: list = [None] * len(self.sizes)
        self.leagues: list = [None] * len(self.sizes)
        for g in range(len(self.sizes)):
            self._build(g, g)
        self.last = np.zeros((num_envs, size), np.float32)

    @property
    def inputs(self):
        """The run's general inputs (those of its own rules; each group reads its own)."""
        return self.run.inputs

    @property
    def env_seconds(self) -> float:
        """Seconds spent stepping the games and building the policy's inputs (every draw so far)."""
        return self.env_seconds_before + sum(e.env_seconds for e in self.envs)

    def _build(self, g: int, variant: int) -> None:
        """Group ``g`` plays ``variant`` of the space: its rules, games (and league, which starts with the
        snapshots of the learner that another group's league holds)."""
        from aerodeck.train.league import League
        from aerodeck.train.model import learner_env

        run, game = self.run, self.run.game
        rules = self.variants[g] = self.space.draw(self.seed_, variant)
        inputs = run.inputs.for_rules(game.id, rules)
        options = {}
        if run.config.league is not None and not game.solo:
            league = self.leagues[g] = League(game, rules, run.config.league, run.seed, inputs)
            options = {"opponents": league.opponents, "assign": league.assign}
            other = next((x for x in self.leagues if x is not None and x is not league), None)
            for member in [] if other is None else [m for m in other.members if m.kind == "self" and m.active]:
                league.add_snapshot(member.policy, int(member.name.split("@")[1]))
            self.league = Leagues(self.leagues, self.slices) if all(x is not None for x in self.leagues) else None
        seed = int(np.random.SeedSequence([self.seed_, variant]).generate_state(2, np.uint64)[0] % 2**63)
        if self.envs[g] is not None:
            self.env_seconds_before += self.envs[g].env_seconds
        self.envs[g] = learner_env(game.make_sb3(self.sizes[g], rules=rules, seed=seed, **options), inputs)

    def resample(self, replacement: int) -> tuple[np.ndarray, slice]:
        """Replacement ``replacement`` (≥ 1): group (r − 1) mod groups starts variant groups + r − 1.
        Returns the policy's inputs for every game now ``float32 (num_envs, size)`` and the rows of the
        group whose games started."""
        groups = len(self.sizes)
        g = (replacement - 1) % groups
        self._build(g, groups + replacement - 1)
        rows = self.slices[g]
        self.last[rows] = self.envs[g].reset()
        return self.last.copy(), rows

    def describe(self) -> str:
        """The variants now in play, one label each."""
        return "; ".join(r.label() for r in self.variants)

    # --- the VecEnv protocol ------------------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        self.last = np.concatenate([e.reset() for e in self.envs])
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self.last.copy()

    def step_async(self, actions: np.ndarray) -> None:
        actions = np.asarray(actions).reshape(self.num_envs)
        for env, rows in zip(self.envs, self.slices):
            env.step_async(env.inputs.variant_actions(actions[rows]))

    def step_wait(self):
        obs, rewards, dones, infos = [], [], [], []
        for env in self.envs:
            o, r, d, i = env.step_wait()
            obs.append(o), rewards.append(r), dones.append(d), infos.extend(i)
        self.last = np.concatenate(obs)
        return self.last.copy(), np.concatenate(rewards), np.concatenate(dones), infos

    def action_masks(self) -> np.ndarray:
        """``bool (num_envs, A_family)``: every game's legal actions in the family layout."""
        return np.concatenate([env.inputs.family_masks(env.action_masks()) for env in self.envs])

    def env_method(self, method_name: str, *args, indices=None, **kwargs):
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        raise AttributeError(f"a rule-general run's env has no method {method_name!r} for single games")

    def get_attr(self, attr_name: str, indices=None):
        return [getattr(self, attr_name) for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False for _ in self._get_indices(indices)]

    def close(self) -> None:
        for env in self.envs:
            env.close()


def evaluate_general(run, policy, inputs, games: int, seed: int) -> dict:
    """The run's evaluation of a rule-general ``policy`` (what ``aerodeck.train.model.evaluate`` gives for
    one rules set) on the run's rules and ``[variants] eval_variants`` variants of the space (drawn
    under ``seed``, the same every time), ``games`` deals each: ``value`` is the mean of the
    variants' values, its interval from theirs (independent deals: half-widths add in quadrature),
    ``variants`` lists each one's label and figures."""
    from aerodeck.agents.ppo import PPOAgent
    from aerodeck.train.model import evaluate

    variants = [run.rules] + [run.space.draw(seed, 1_000_000 + i) for i in range(run.config.variants.eval_variants)]
    results = []
    for rules in variants:
        agent = PPOAgent.from_policy(policy, rules, inputs.for_rules(run.game.id, rules), deterministic=True)
        results.append({"rules": rules.label(), **evaluate(run.game, rules, agent, games, seed,
                                                          backend=getattr(run, "backend", None))})
    k = len(results)

    def mean_with_interval(rows: list[dict]) -> dict:
        value = float(np.mean([r["value"] for r in rows]))
        half = float(np.sqrt(sum(((r["high"] - r["low"]) / 2) ** 2 for r in rows)) / k)
        return {"value": value, "low": value - half, "high": value + half}

    out = {**results[0], **mean_with_interval(results), "games": games * k, "variants": results}
    if "difference" in results[0]:
        out["difference"] = mean_with_interval([r["difference"] for r in results])
    return out

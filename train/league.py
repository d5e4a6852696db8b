"""The self-play league of multi-player games: the learner against a pool of opponents.

The learner plays one seat of each game (rotated over the seats by the learner view); the other
seats of a game are all played by one member of the pool, drawn when the game is dealt. The pool:

- ``heuristic`` (the game's opponent agent, ``GameSpec.opponent``) and ``random`` — fixed;
- ``self`` — frozen snapshots of the learner: a copy of its policy taken every ``snapshot_every``
  PPO updates (and one at the start), its weights never trained again; the ``pool_size`` latest
  are kept. A snapshot samples its actions from its policy (with its own seeded generator).

A member is drawn with probability ∝ (its kind's ``weight`` / the members of that kind) × its
priority: 1 under ``sampling = "uniform"``; ``(1 − w)^power`` under ``"prioritized"``, where ``w`` is the
learner's recent win share against that member (its last ``window`` games, smoothed towards the fair
share 1/n) — so the pool favours the opponents the learner beats least.

All the opponent seats of the whole batch that one member plays act in one batched call of that
member (the learner view groups them). Everything random — the members drawn, the snapshots' sampling
— comes from generators seeded by the run's seed, so a run is repeated exactly by ``--seed``.

The league talks to the learner view through two plain objects: ``opponents`` (a list of callables
``(observations, masks, view) -> actions`` that only grows) and ``assign(count)`` (the opponent of each
new game: an index into that list); a finished game's ``info["opponent"]`` gives that index back to
:meth:`League.record`.
"""

from __future__ import annotations

import collections
import dataclasses

import numpy as np

#: The kinds of pool member, in the order of the config's weights.
KINDS = ("self", "heuristic", "random")
SAMPLINGS = ("uniform", "prioritized")


@dataclasses.dataclass
class Member:
    """One opponent of the pool: its name (``heuristic``, ``random``, ``self@<steps>``), kind, the
    callable that plays its seats, and the learner's recent win shares against it."""

    name: str
    kind: str
    act: object
    results: collections.deque
    #: The frozen policy of a snapshot (``None`` for the game's agents).
    policy: object = None
    active: bool = True


class League:
    """The opponent pool of one run (see the module docstring).

    ``game``: the ``GameSpec``; ``rules``: the rules object; ``config``: the ``[league]`` section
    (``aerodeck.train.config.LeagueConfig``: ``snapshot_every``, ``pool_size``, ``sampling``, ``power``,
    ``window``, and the weights ``self``, ``heuristic``, ``random``); ``seed``: the run's seed. ``inputs``: what the snapshots' policies read
    (``aerodeck.agents.ppo.Inputs``).
    """

    def __init__(self, game, rules, config, seed: int, inputs: str = "observation") -> None:
        from aerodeck.agents.registry import make_agent

        if sum(config.weight(kind) for kind in KINDS) <= 0:
            raise ValueError(f"[league] the weights {', '.join(KINDS)} must not all be 0")
        self.rules = rules
        self.n_players = game.players(rules)
        self.config = config
        self.snapshot_every = config.snapshot_every
        self.inputs = inputs
        self.seed = seed
        self.rng = np.random.default_rng([seed, 0x1EA9])
        self.members: list[Member] = []
        #: The callables the learner view calls, by member index (a member keeps its index for good).
        self.opponents: list = []
        for i, kind in enumerate(("heuristic", "random")):
            if config.weight(kind) > 0:
                agent = game.opponent if kind == "heuristic" else kind
                self._add(kind, kind, make_agent(game.id, agent, rules, seed=seed + 1 + i).act)

    def _add(self, name: str, kind: str, act, policy=None) -> None:
        self.members.append(Member(name, kind, act, collections.deque(maxlen=self.config.window), policy))
        self.opponents.append(act)

    def add_snapshot(self, policy, steps: int) -> Member | None:
        """Freeze a copy of the learner's ``policy`` (taken at ``steps``) into the pool; the oldest
        snapshot leaves when more than ``pool_size`` are active. Nothing when ``self`` weighs 0."""
        from aerodeck.agents.ppo import PPOAgent

        if self.config.weight("self") <= 0:
            return None
        # a new policy with the learner's weights (a deep copy would also copy its last distribution)
        frozen = type(policy)(**policy._get_constructor_parameters())
        frozen.load_state_dict(policy.state_dict())
        frozen.set_training_mode(False)
        for p in frozen.parameters():
            p.requires_grad_(False)
        snapshots = [m for m in self.members if m.kind == "self"]
        agent = PPOAgent.from_policy(frozen, self.rules, self.inputs, deterministic=False,
                                     seed=[self.seed, 0x5E1F, len(snapshots)])
        self._add(f"self@{steps}", "self", agent.act, frozen)
        active = [m for m in self.members if m.kind == "self" and m.active]
        for old in active[: max(0, len(active) - self.config.pool_size)]:
            old.active = False  # drawn no more; games already dealt to it play on
        return self.members[-1]

    def probabilities(self) -> np.ndarray:
        """``float64 (members,)``: the chance of each member to play a new game (0 for retired snapshots)."""
        p = np.zeros(len(self.members))
        counts = collections.Counter(m.kind for m in self.members if m.active)
        fair = 1.0 / self.n_players
        for i, m in enumerate(self.members):
            if not m.active:
                continue
            p[i] = self.config.weight(m.kind) / counts[m.kind]
            if self.config.sampling == "prioritized":
                prior = 10  # pseudo-games at the fair share: a new member is neither favoured nor avoided
                win = (sum(m.results) + prior * fair) / (len(m.results) + prior)
                p[i] *= max(1.0 - win, 1e-3) ** self.config.power
        return p / p.sum()

    def assign(self, count: int) -> np.ndarray:
        """``int64 (count,)``: the member (index into ``opponents``) playing every other seat of each of
        ``count`` new games."""
        return self.rng.choice(len(self.members), size=count, p=self.probabilities()).astype(np.int64)

    def record(self, infos, dones) -> None:
        """Note the learner's win share in every finished game (``infos[i]["opponent"]``, ``["win_share"]``)."""
        for i in np.flatnonzero(dones):
            info = infos[i]
            if "opponent" in info and "win_share" in info:
                self.members[int(info["opponent"])].results.append(float(info["win_share"]))

    def figures(self) -> dict[str, float]:
        """For TensorBoard: the learner's recent win share against each kind, the pool's size and the
        chance of each kind to be drawn."""
        out: dict[str, float] = {"snapshots": float(sum(m.kind == "self" and m.active for m in self.members))}
        p = self.probabilities()
        for kind in KINDS:
            results = [r for m in self.members if m.kind == kind for r in m.results]
            if results:
                out[f"win_share_vs_{kind}"] = float(np.mean(results))
            out[f"chance_{kind}"] = float(sum(pi for pi, m in zip(p, self.members) if m.kind == kind))
        return out

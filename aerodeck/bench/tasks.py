"""The benchmark's named tasks: each fixes a game's rules, the opponents, the learner's reward and
observation, the env-step budget results are reported at and the held-out evaluation deals.

Each game declares its tasks in its own ``tasks.toml`` (``GameSpec.tasks``; read by :func:`read_definitions`).
``aerodeck.tasks()`` lists every :class:`Task`, ``aerodeck.task("as-standard-v0")`` gives one. A task
builds its batched training env (:meth:`Task.make_vec_env`, :meth:`Task.make_sb3_env`) and evaluates an
agent by the protocol (:meth:`Task.evaluate`): greedy masked play on the task's evaluation deals, the
raw score per game (Airport Scramble: tickets completed; Flight Tycoon: the learner's win share, 1/k for
a k-way shared win by the FT-12 standings) and the normalized score, random = 0 and heuristic = 1,
each with a 95 % interval.

Held-out deals, by construction: every game a training env deals has a seed below 2**63 (the envs
draw their games from ``numpy`` generators over ``[0, 2**63)``; the run seed is mapped into that half by
:func:`training_seeds`), every evaluation deal a seed with the top bit set (:func:`evaluation_seeds`:
a counter-based stream keyed by the task's name, its top bit set). No training run can meet an
evaluation deal, whatever its seed.

The reference scores (random, heuristic and, where affordable, search) are measured by
``aerodeck tasks --measure`` (:mod:`aerodeck.bench.measure`) and shipped in ``data/reference.json``;
the rules-generalization tasks' train and held-out rule variants in ``data/variants.json``
(``aerodeck tasks --split``). The statistics over training seeds are :mod:`aerodeck.bench.protocol`'s.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from aerodeck import envs
from aerodeck.bench.deals import (  # noqa: F401  (part of the tasks' API)
    EVAL_BIT, _training_list, evaluation_seeds, is_evaluation_seed, task_key, training_seeds,
)
from aerodeck.bench.evaluate import evaluate
from aerodeck.bench.general import GeneralSB3VecEnv, GeneralVecEnv
from aerodeck.bench.results import LEVEL, Evaluation, Interval, mean_interval  # noqa: F401
from aerodeck.envs.common.checks import check_seed

#: The folder of the task data files shipped with the package.
DATA = Path(__file__).resolve().parent / "data"
#: The reference scores of every task (``aerodeck tasks --measure`` writes it).
REFERENCE_FILE = DATA / "reference.json"
#: The rules-generalization split of each game (``aerodeck tasks --split`` writes it).
VARIANTS_FILE = DATA / "variants.json"


# --- tasks ----------------------------------------------------------------------------------------------

#: The learner's observation on a task: the game's own observation of the learner's seat, or (rules-
#: generalization tasks) that observation laid out in the variant family's layout with the rule features after it.
OBSERVATIONS = {
    "core": "the core's observation of the learner's seat (float32), the legal mask beside it",
    "general": "the core's observation in the family layout of the variant space, then the rule features "
               "(aerodeck.agents.variants.VariantSpace.features); actions and masks in the family layout",
}


@dataclasses.dataclass(frozen=True)
class Task:
    """One benchmark task (see the module docstring).

    ``opponents``: agent specs of the other seats (empty for a solo game); with ``population``, the
    members of a fixed population, one drawn per game to play every other seat. ``reward``: the
    learner's reward (Airport Scramble: ``tickets``, +1 per completed ticket; Flight Tycoon: the
    rules' ``reward`` option). ``reference``: raw scores ``{"random", "heuristic", "search"}`` on the
    evaluation deals (``search`` ``None`` where not measured). A rules-generalization task also has
    ``train_variants`` and ``test_variants`` (rules objects) and ``space`` (their
    ``VariantSpace``), and per-variant references in ``reference["variants"]``."""

    name: str
    game: str
    rules: Any
    opponents: tuple[str, ...]
    reward: str
    observation: str
    budget_steps: int
    eval_games: int
    reference: Mapping = dataclasses.field(compare=False, hash=False)
    description: str = ""
    population: bool = False
    train_variants: tuple = ()
    test_variants: tuple = ()
    space: Any = dataclasses.field(default=None, compare=False, hash=False)
    #: The evaluation deals the search reference plays (``aerodeck tasks --measure``; 0: not measured).
    search_games: int = 0

    # --- what the task is ------------------------------------------------------------------------------

    @property
    def spec(self):
        """The game's ``GameSpec``."""
        return envs.spec(self.game)

    @property
    def general(self) -> bool:
        """A rules-generalization task (trained on ``train_variants``, evaluated on ``test_variants``)."""
        return bool(self.test_variants)

    @property
    def players(self) -> int:
        return self.spec.players(self.rules)

    def describe_opponents(self) -> str:
        """The opponents in words: ``-`` (solo), ``3 x random``, ``population: random | heuristic``."""
        if not self.opponents:
            return "-"
        if self.population:
            return "per game one of: " + " | ".join(self.opponents) + f" (x{self.players - 1})"
        if len(set(self.opponents)) == 1:
            return f"{len(self.opponents)} x {self.opponents[0]}"
        return ", ".join(self.opponents)

    def describe_rules(self) -> str:
        """The rules in words: the options that differ from the defaults, or the split."""
        if self.general:
            return (f"{len(self.train_variants)} train / {len(self.test_variants)} held-out variants of "
                    f"{len(self.space.varied)} options ({', '.join(v.name for v in self.space.varied)})")
        return self.rules.label()

    def to_dict(self) -> dict:
        """The task as ``aerodeck tasks --json`` prints it."""
        out = {"name": self.name, "game": self.game, "rules": self.rules.to_dict(), "rules_label": self.describe_rules(),
               "opponents": list(self.opponents), "population": self.population, "reward": self.reward,
               "observation": self.observation, "budget_steps": self.budget_steps, "eval_games": self.eval_games,
               "reference": _shown(self.reference), "search_normalized": self.search_normalized(),
               "description": self.description}
        if self.general:
            out["space"] = self.space.to_dict()
            out["train_variants"] = [r.changes() for r in self.train_variants]
            out["test_variants"] = [r.changes() for r in self.test_variants]
        return out

    def search_normalized(self) -> dict | None:
        """The search's normalized score as a reference point: 1 plus its paired difference from the heuristic
        on the deals it played, in units of ``heuristic − random`` (``{"value", "low", "high", "games"}``), or
        ``None`` where the search was not measured."""
        gap = self.reference.get("search_minus_heuristic")
        if not gap or not self.has_reference:
            return None
        span = self.reference["heuristic"] - self.reference["random"]
        return {"value": 1 + gap["mean"] / span, "low": 1 + gap["low"] / span, "high": 1 + gap["high"] / span,
                "games": gap["games"]}

    # --- deals ---------------------------------------------------------------------------------------

    def eval_seeds(self, games: int | None = None) -> np.ndarray:
        """The held-out evaluation deals: ``uint64 (games,)`` (default ``eval_games``), each with the top
        bit set, so no training env ever deals one (:func:`evaluation_seeds`)."""
        return evaluation_seeds(self.name, self.eval_games if games is None else int(games))

    # --- normalization ---------------------------------------------------------------------------------

    @property
    def has_reference(self) -> bool:
        """Whether the random and heuristic references are measured (``aerodeck tasks --measure``)."""
        refs = [self.reference] + (list(self.reference.get("variants") or []) if self.general else [])
        return all(r.get("random") is not None and r.get("heuristic") is not None for r in refs) and \
            (not self.general or len(self.reference.get("variants") or []) == len(self.test_variants))

    def normalize(self, raw, variant: int | None = None):
        """The normalized score of raw score(s) ``raw`` (a float or an array): ``(raw - random) /
        (heuristic - random)`` with this task's references (a generalization task: those of held-out
        variant ``variant``; without it, the means over the variants). ``ValueError`` if the task has
        no references yet (``aerodeck tasks --measure``)."""
        ref = self.reference if variant is None else self.reference["variants"][variant]
        low, high = ref.get("random"), ref.get("heuristic")
        if low is None or high is None:
            raise ValueError(f"task {self.name} has no reference scores yet: run `aerodeck tasks --measure`")
        out = (np.asarray(raw, np.float64) - low) / (high - low)
        return float(out) if np.ndim(out) == 0 else out

    # --- training envs ---------------------------------------------------------------------------------

    def opponent_agents(self, rules=None, seed: int = 0) -> list:
        """The opponents' agents under ``rules`` (default the task's), each with its own seed derived from ``seed``."""
        from aerodeck.agents.registry import make_agent
        from aerodeck.arena.loop import agent_seed

        rules = self.rules if rules is None else rules
        specs = list(dict.fromkeys(self.opponents))
        return [make_agent(self.game, s, rules, seed=agent_seed(seed, 1 + i)) for i, s in enumerate(specs)]

    def make_vec_env(self, num_envs: int, seed: int = 0):
        """The task's batched training env of ``num_envs`` games, its deals keyed by the run ``seed``
        (always training deals, :func:`training_seeds`). Airport Scramble: a Gymnasium ``VectorEnv``
        (``reset`` → ``obs, infos``; ``step`` → ``obs, rewards, terminated, truncated, infos``); Flight
        Tycoon: the batched learner view (``aerodeck.envs.flight_tycoon.learner.LearnerGames``: ``reset``
        → ``obs, masks``; ``step`` → ``obs, rewards, dones, infos``). Both: ``action_masks()`` ``bool
        (num_envs, n_actions)``, observations ``float32 (num_envs, obs_dim)``, same-step autoreset. A
        rules-generalization task: :class:`aerodeck.bench.general.GeneralVecEnv` over the train variants."""
        if self.general:
            return GeneralVecEnv(self, num_envs, seed)
        return self._vec_env(self.rules, num_envs, seed)

    def _vec_env(self, rules, num_envs: int, seed: int):
        seed = check_seed(seed)
        if self.spec.solo:
            return training_vector_class(self.spec.vector_class())(num_envs, seed, rules=rules)
        return self.spec.make_learner(num_envs, rules, **self._learner_options(rules, seed))

    def _learner_options(self, rules, seed: int) -> dict:
        """``opponents`` (and ``assign`` for a population) and the deal seed of a Flight Tycoon learner view."""
        agents = self.opponent_agents(rules, seed)
        deal_seed = int(training_seeds(seed, 1)[0])
        if self.population:
            draws = np.random.default_rng([deal_seed, 0x9097])
            return {"opponents": [a.act for a in agents], "seed": deal_seed,
                    "assign": lambda count: draws.integers(0, len(agents), size=count)}
        acts = {s: a.act for s, a in zip(dict.fromkeys(self.opponents), agents)}
        return {"opponents": [acts[s] for s in self.opponents], "seed": deal_seed}

    def make_sb3_env(self, num_envs: int, seed: int = 0):
        """The stable-baselines3 ``VecEnv`` of the same games as :meth:`make_vec_env` (needs the ``train``
        extra; sb3-contrib's MaskablePPO reads its ``action_masks()``)."""
        if self.general:
            return GeneralSB3VecEnv(self.make_vec_env(num_envs, seed))
        seed = check_seed(seed)
        if self.spec.solo:
            return _training_sb3(self.spec, num_envs, seed, self.rules)
        return self.spec.make_sb3(num_envs, rules=self.rules, **self._learner_options(self.rules, seed))

    # --- evaluation --------------------------------------------------------------------------------------

    def evaluate(self, agent, games: int | None = None, seed: int = 0, *, batch_size: int = 4096,
                 progress=False) -> Evaluation:
        """Play ``agent`` greedily with masks on the task's rules, opponents and evaluation deals (the
        first ``games``, default ``eval_games``). ``agent``: an agent spec (``"heuristic"``,
        ``"ppo:path=model.zip"``), an ``aerodeck.agents.base.Agent`` built for the task's rules, or a
        callable ``rules -> Agent`` (a rules-generalization task builds one per held-out variant);
        ``seed``: the agent's own seed (its random choices; the deals and the opponents' play stay
        the task's). Returns an :class:`Evaluation`."""
        return evaluate(self, agent, games=games, seed=seed, batch_size=batch_size, progress=progress)


# --- the training env of a solo task: training deals only ---------------------------------------------------

@functools.lru_cache(maxsize=None)
def training_vector_class(vector: type) -> type:
    """A solo game's Gymnasium ``VectorEnv`` class (``GameSpec.vector_class()``, e.g. Airport Scramble's)
    made to deal training deals only."""

    class TrainingVectorEnv(vector):
        """The game's ``VectorEnv`` of a task, dealing training deals only: ``reset(seed=s)`` starts the
        games :func:`training_seeds` ``(s, num_envs)`` (later games come from a generator over ``[0, 2**63)``);
        ``reset()`` without a seed, the first time, uses the run ``seed`` the env was made with."""

        def __init__(self, num_envs: int, seed: int = 0, **kwargs) -> None:
            super().__init__(num_envs, **kwargs)
            self._run_seed = check_seed(seed)

        def reset(self, *, seed=None, options=None):
            if seed is None and self._run_seed is not None:
                seed = self._run_seed
            self._run_seed = None
            if seed is not None:
                seed = [int(s) for s in _training_list(seed, self.num_envs)]
            return super().reset(seed=seed, options=options)

    return TrainingVectorEnv


def _training_sb3(spec, num_envs: int, seed: int, rules):
    class TrainingSB3VecEnv(spec.sb3_class()):
        """A solo game's SB3 ``VecEnv`` (``GameSpec.sb3_class()``) dealing training deals only (``seed(s)``:
        the deals of :func:`training_seeds`)."""

        def seed(self, seed=None):
            self._start_seed = None if seed is None else [int(s) for s in _training_list(seed, self.num_envs)]
            return [None if seed is None else int(s) for s in (self._start_seed or [None] * self.num_envs)]

    env = TrainingSB3VecEnv(num_envs, rules=rules)
    env.seed(seed)
    return env


# --- the task set ------------------------------------------------------------------------------------------

#: Env steps a task's results are reported at.
BUDGET = 1_000_000
#: The keys of a task's table in its game's ``tasks.toml`` (``GameSpec.tasks``; the file says what each means).
TASK_KEYS = ("rules", "opponents", "population", "general", "eval_games", "search_games", "description")


@dataclasses.dataclass(frozen=True)
class Definition:
    """A task as its game declares it: one table of the game's ``tasks.toml`` (``GameSpec.tasks_path()``).
    ``rules``: rule options over the defaults (a rules-generalization task: its split's base rules)."""

    name: str
    game: str
    rules: Mapping[str, Any]
    opponents: tuple[str, ...]
    population: bool
    general: bool
    eval_games: int
    search_games: int
    description: str


def read_definitions(specs=None) -> dict[str, Definition]:
    """Every task the registered games (or ``specs``) declare, in the registry's order, the single-rules tasks
    first. ``ValueError`` naming the file and the task for an unknown key, a missing ``eval_games`` or a
    name two tasks share."""
    found: dict[str, Definition] = {}
    for spec in envs.specs() if specs is None else specs:
        path = spec.tasks_path()
        if path is None:
            continue
        for name, table in tomllib.loads(path.read_text(encoding="utf-8")).items():
            where = f"{path.name} of {spec.id}: task {name}"
            unknown = sorted(set(table) - set(TASK_KEYS))
            if unknown:
                raise ValueError(f"{where}: unknown keys {unknown}; the keys: {', '.join(TASK_KEYS)}")
            if "eval_games" not in table:
                raise ValueError(f"{where}: eval_games (the held-out evaluation deals) is missing")
            if name in found:
                raise ValueError(f"{where}: the name is already a task of {found[name].game}")
            found[name] = Definition(name, spec.id, dict(table.get("rules", {})), tuple(table.get("opponents", ())),
                                     bool(table.get("population", False)), bool(table.get("general", False)),
                                     int(table["eval_games"]), int(table.get("search_games", 0)),
                                     str(table.get("description", "")))
    return dict(sorted(found.items(), key=lambda item: item[1].general))


#: Every task as its game declares it (each game's ``tasks.toml``).
DEFINITIONS = read_definitions()
#: The single-rules tasks: name -> (game, rule options, opponents, population, description).
SPECS: dict[str, tuple] = {n: (d.game, d.rules, d.opponents, d.population, d.description)
                           for n, d in DEFINITIONS.items() if not d.general}
#: The rules-generalization tasks (their variants from ``data/variants.json``): name -> (game, opponents, description).
GENERAL: dict[str, tuple] = {n: (d.game, d.opponents, d.description) for n, d in DEFINITIONS.items() if d.general}


def _shown(reference: Mapping) -> dict:
    """A task's references as ``aerodeck tasks --json`` shows them (the timings and per-seed figures left out)."""
    out = {k: v for k, v in reference.items() if not k.endswith(("_seconds", "_by_seed"))}
    if out.get("variants"):
        out["variants"] = [_shown(v) for v in out["variants"]]
    return out


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        return {}


@functools.lru_cache(maxsize=1)
def _references() -> dict:
    return _read(REFERENCE_FILE)


@functools.lru_cache(maxsize=1)
def _splits() -> dict:
    return _read(VARIANTS_FILE)


def _reward(spec, rules) -> str:
    return "tickets" if spec.solo else rules.reward


def _build(name: str) -> Task:
    refs = _references().get(name, {})
    reference = {"random": refs.get("random"), "heuristic": refs.get("heuristic"), "search": refs.get("search"),
                 **{k: v for k, v in refs.items() if k not in ("random", "heuristic", "search")}}
    d = DEFINITIONS[name]
    spec = envs.spec(d.game)
    if not d.general:
        rules = spec.make_rules(**d.rules)
        return Task(name, d.game, rules, d.opponents, _reward(spec, rules), "core", BUDGET, d.eval_games, reference,
                    d.description, d.population, search_games=d.search_games)
    split = _splits().get(name)
    if split is None:
        raise ValueError(f"task {name}: no rule-variant split in {VARIANTS_FILE.name}; run `aerodeck tasks --split`")
    from aerodeck.agents.variants import VariantSpace

    space = VariantSpace.from_dict(spec, split["space"])
    R = spec.rules_class()
    train = tuple(R.from_options({**space.base.to_dict(), **v}) for v in split["train"])
    test = tuple(R.from_options({**space.base.to_dict(), **v}) for v in split["test"])
    return Task(name, d.game, space.base, d.opponents, _reward(spec, space.base), "general", BUDGET,
                d.eval_games, reference, d.description, False, train, test, space, d.search_games)


def names() -> list[str]:
    """Every task's name, the single-rules tasks first."""
    return [*SPECS, *GENERAL]


@functools.lru_cache(maxsize=None)
def _task(name: str) -> Task:
    return _build(name)


def task(name: str) -> Task:
    """The task named ``name``; ``ValueError`` listing the task names otherwise."""
    if name not in SPECS and name not in GENERAL:
        raise ValueError(f"unknown task {name!r}; tasks: {', '.join(names())}")
    return _task(name)


def tasks() -> list[Task]:
    """Every task, in :func:`names` order."""
    return [task(n) for n in names()]


def reload() -> None:
    """Forget the tasks and data files read so far (after ``--measure`` or ``--split`` rewrote them)."""
    _references.cache_clear()
    _splits.cache_clear()
    _task.cache_clear()


"""The training config of ``aerodeck train``: typed, documented dataclasses, one per TOML table.

Every field says here, once, its type, its default, the values it allows and what it means (in the
manner of CleanRL's ``Args``). A game's defaults (``GameSpec.training_config``, e.g.
``envs/<game>/training.toml``) and a ``--config FILE.toml`` hold only what they change, with the
same tables and keys; :func:`load_config` puts them over these defaults and refuses an unknown table
or key, a value of another type, or one outside its range, naming the field and what is allowed.

    [train]       the budget's defaults, evaluations, checkpoints
    [budget]      the shares of a ``--minutes`` budget and the floors of a scaled one
    [ppo]         sb3-contrib MaskablePPO
    [policy]      the network and what it reads
    [warm_start]  behaviour cloning of a teacher before PPO
    [league]      multi-player games only: the self-play opponent pool
    [variants]    a rule-general model: PPO over rule variants drawn from option ranges
"""

from __future__ import annotations

import dataclasses
import json
import math
import tomllib
import typing
from collections.abc import Callable
from pathlib import Path

from aerodeck.train.league import SAMPLINGS


@dataclasses.dataclass(frozen=True)
class Allowed:
    """A field's allowed values: ``test(value) -> bool`` and the words that say them (``text``, or a
    function giving them when they come from elsewhere)."""

    text: str | Callable[[], str]
    test: Callable[[typing.Any], bool]

    def __str__(self) -> str:
        return self.text() if callable(self.text) else self.text


def at_least(low: float) -> Allowed:
    """Values ``>= low``."""
    return Allowed(f"at least {low:g}", lambda v: v >= low)


def between(low: float, high: float, *, open_low: bool = False, open_high: bool = False) -> Allowed:
    """Values in the interval from ``low`` to ``high`` (each end open or closed)."""
    text = f"in {'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
    return Allowed(text, lambda v: (v > low if open_low else v >= low) and (v < high if open_high else v <= high))


def one_of(*choices: str) -> Allowed:
    """One of ``choices``."""
    return Allowed("one of " + ", ".join(repr(c) for c in choices), lambda v: v in choices)


FINITE = Allowed("a finite number >= 0", lambda v: v >= 0 and math.isfinite(v))
WIDTHS = Allowed("a non-empty list of positive layer widths", lambda v: len(v) > 0 and all(w > 0 for w in v))


def _prior_ties() -> Allowed:
    def choices():
        from aerodeck.agents.ppo import PRIOR_TIES
        return PRIOR_TIES
    return Allowed(lambda: "one of " + ", ".join(repr(c) for c in choices()), lambda v: v in choices())


def _prior_ranks() -> Allowed:
    def top():
        from aerodeck.agents.ppo import RANK_STEP
        return int(1 / RANK_STEP) - 1
    return Allowed(lambda: f"from 0 to {top()}", lambda v: 0 <= v <= top())


def knob(default, meaning: str, allowed: Allowed | None = None):
    """A config field: its ``default``, what it means and the values it allows."""
    return dataclasses.field(default=default, metadata={"meaning": meaning, "allowed": allowed})


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """``[train]``: the budget's default, evaluations and checkpoints."""

    steps: int = knob(3_000_000, "PPO environment steps when neither --steps nor --minutes is given", at_least(1))
    num_envs: int = knob(256, "games stepped at once (--num-envs)", at_least(1))
    eval_every: int = knob(500_000, "PPO steps between evaluations (and best-model checks)", at_least(1))
    eval_games: int = knob(10_000, "deals per evaluation of the full budget (the same deals every time); "
                           "a smaller budget plays fewer ([budget])", at_least(1))
    eval_seed: int = knob(1_000_003, "seed of the evaluation deals (aerodeck bench's --seed)", at_least(0))
    checkpoint_every: int = knob(500_000, "PPO steps between checkpoints (checkpoints/step-N.zip, last.zip)", at_least(1))


@dataclasses.dataclass(frozen=True)
class BudgetConfig:
    """``[budget]``: how a ``--minutes`` budget is shared, and the floors of a budget scaled down."""

    warm_start: float = knob(0.3, "the share of a --minutes budget the warm start may take (teacher games, "
                             "then cloning); what it leaves goes to PPO", between(0, 1, open_high=True))
    evaluation: float = knob(0.1, "the share of a --minutes budget the evaluations may take",
                             between(0, 1, open_low=True, open_high=True))
    min_teacher_games: int = knob(64, "a warm start scaled below this many teacher games is skipped", at_least(1))
    min_eval_games: int = knob(200, "the fewest deals an evaluation of a --steps budget plays", at_least(1))


@dataclasses.dataclass(frozen=True)
class PPOConfig:
    """``[ppo]``: sb3-contrib MaskablePPO's hyperparameters."""

    learning_rate: float = knob(1e-4, "Adam's step size", between(0, 1, open_low=True))
    n_steps: int = knob(32, "steps per game between updates (x num_envs per update)", at_least(1))
    batch_size: int = knob(2048, "minibatch size of an update", at_least(1))
    n_epochs: int = knob(2, "passes over a rollout per update", at_least(1))
    gamma: float = knob(0.995, "discount per decision", between(0, 1, open_low=True))
    gae_lambda: float = knob(0.95, "GAE's lambda", between(0, 1, open_low=True))
    clip_range: float = knob(0.1, "PPO's clipping of the probability ratio", between(0, 1, open_low=True))
    ent_coef: float = knob(0.002, "entropy bonus at the start of the budget", FINITE)
    ent_coef_end: float = knob(0.0, "entropy bonus at the end of the budget (linear in between)", FINITE)
    vf_coef: float = knob(0.5, "weight of the value loss", FINITE)
    max_grad_norm: float = knob(0.5, "gradient clipping", FINITE)
    target_kl: float = knob(0.03, "stop an update's epochs early above this KL (0 = never)", FINITE)


@dataclasses.dataclass(frozen=True)
class PolicyConfig:
    """``[policy]``: the network and what it reads (docs/training-policy.md: mask and prior)."""

    network: str = knob("mlp", "the actor: 'mlp' (net_arch over the whole input) or a network the game offers "
                        "(GameSpec.networks; docs/training-policy.md#the-networks-the-games-offer)",
                        Allowed("'mlp' or a network the game offers", bool))
    net_arch: tuple[int, ...] = knob((512, 512), "hidden layers of the policy and of the value network (separate; "
                                     "network = 'local': the value network's)", WIDTHS)
    activation: str = knob("tanh", "activation between the layers", one_of("tanh", "relu"))
    sees_mask: bool = knob(True, "the policy also reads the legal mask")
    prior: str = knob("heuristic", "add this agent's action preferences to the logits ('' = none)")
    prior_units: float = knob(4.0, "with prior_ranks = 0: the score gap at which a preference reaches 0",
                              between(0, math.inf, open_low=True, open_high=True))
    prior_scale: float = knob(32.0, "logits per unit of preference", FINITE)
    learn_prior_scale: bool = knob(False, "learn the scale (false: it stays at prior_scale)")
    prior_ties: str = knob("first", "how equal best scores are read", _prior_ties())
    prior_ranks: int = knob(0, "k > 0: read the ranks of the prior's k best actions, not their scores", _prior_ranks())
    local_radius: int = knob(3, "network = 'local': the cells it sees each way around a candidate", between(1, 8))
    local_plan: bool = knob(False, "network = 'local': each candidate also reads the heuristic's plan of it (its "
                            "score, the best score, its gap to the best; needs sees_mask)")
    local_width: int = knob(256, "network = 'local' or 'requests': the hidden width of its candidate scorer", at_least(1))
    init: str = knob("", "start from the weights of this model zip (same network and inputs; a rule-general run "
                     "may start from a model of one rules set: the rule features start at weight 0); a relative "
                     "path is read from the working directory, else from the project's root")


#: The project's root: where the shipped models' ``agents/models/...`` paths start.
PROJECT = Path(__file__).resolve().parents[1]


def model_file(text: str) -> Path:
    """The model file a config names (``[policy] init``): the path as given, from the working directory;
    where nothing is there and the path is relative, from the project's root if it is there, so a config's
    ``agents/models/...`` reaches the shipped file from any folder."""
    path = Path(text)
    if path.is_absolute() or path.exists() or not (PROJECT / path).exists():
        return path
    return PROJECT / path


@dataclasses.dataclass(frozen=True)
class WarmStartConfig:
    """``[warm_start]``: behaviour cloning of a teacher agent before PPO (0 games = none)."""

    teacher: str = knob("search", "the agent whose decisions the policy clones (an agent spec)")
    opponent: str = knob("", "multi-player games: the agent in the other seats ('' = the teacher everywhere)")
    player: str = knob("", "the agent whose moves are played in the teacher's seat while the teacher labels "
                       "the states they reach (DAgger, e.g. 'ppo:path=runs/x/best.zip'; '' = the teacher plays)")
    play_batch: int = knob(512, "teacher games played at once (one chunk)", at_least(1))
    workers: int = knob(1, "processes sharing the teacher's chunks", at_least(1))
    games: int = knob(12_000, "teacher games of the full budget (a smaller budget plays fewer; 0 = no warm start)",
                      at_least(0))
    epochs: int = knob(6, "cloning passes over the teacher's decisions", at_least(0))
    batch_size: int = knob(512, "cloning minibatch size", at_least(1))
    learning_rate: float = knob(1e-4, "cloning's Adam step size", between(0, 1, open_low=True))
    seed: int = knob(2_000_003, "seed of the teacher's deals", at_least(0))
    decisions: str = knob("", "a warm_start.npz saved by an earlier run of the same settings: reuse its games")
    also: tuple[str, ...] = knob((), "warm_start.npz files of earlier runs (any teacher, player or seed; the same "
                                 "game, rules and gamma) whose decisions are added to this run's (DAgger's aggregate)")


@dataclasses.dataclass(frozen=True)
class LeagueConfig:
    """``[league]``: the self-play opponent pool of a multi-player game (train/league.py)."""

    self: float = knob(0.35, "weight of frozen snapshots of the learner", FINITE)
    heuristic: float = knob(0.6, "weight of the game's opponent agent (GameSpec.opponent)", FINITE)
    random: float = knob(0.05, "weight of the random agent", FINITE)
    snapshot_every: int = knob(20, "PPO updates between snapshots (one more at the start)", at_least(1))
    pool_size: int = knob(5, "snapshots kept; the oldest leaves first", at_least(1))
    sampling: str = knob("prioritized", "how members are drawn", one_of(*SAMPLINGS))
    power: float = knob(1.0, "prioritized: priority (1 - win share against it)^power", FINITE)
    window: int = knob(500, "the learner's last games against a member that its win share counts", at_least(1))

    def weight(self, kind: str) -> float:
        """The weight of the pool members of ``kind`` (``self``, ``heuristic``, ``random``)."""
        return getattr(self, kind)


@dataclasses.dataclass(frozen=True)
class VariantsConfig:
    """``[variants]``: a rule-general model (train/variants.py, agents/variants.py) — the rule
    options it varies are inputs of the policy, and its games are drawn from these ranges."""

    ranges: dict = dataclasses.field(default_factory=dict, metadata={
        "meaning": "option -> [lo, hi] (integers; each item of an integer list) or the values it takes (on/off, "
                   "choices); empty: one rules set, no general model", "allowed": None})
    groups: int = knob(16, "variants in play at once (num_envs games shared among them)", at_least(1))
    resample_every: int = knob(4, "PPO updates between replacing one group's variant (in turn)", at_least(1))
    eval_variants: int = knob(4, "variants each evaluation plays besides the run's rules (the same every time)",
                              at_least(0))


@dataclasses.dataclass(frozen=True)
class Config:
    """The whole training config: one section per TOML table; ``league`` only for multi-player games."""

    train: TrainConfig = TrainConfig()
    budget: BudgetConfig = BudgetConfig()
    ppo: PPOConfig = PPOConfig()
    policy: PolicyConfig = PolicyConfig()
    warm_start: WarmStartConfig = WarmStartConfig()
    league: LeagueConfig | None = None
    variants: VariantsConfig = VariantsConfig()

    def to_dict(self) -> dict:
        """The config as nested dicts of TOML values (tables → keys → values; lists for tuples)."""
        return {table: {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(section).items()}
                for table, section in self.sections().items()}

    def sections(self) -> dict:
        """The tables in use: name -> section dataclass."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if getattr(self, f.name) is not None}

    def to_toml(self) -> str:
        """The config written as TOML (what :func:`merge` reads back)."""
        def value(v):
            if isinstance(v, bool):
                return "true" if v else "false"
            if isinstance(v, list):
                return "[" + ", ".join(value(x) for x in v) + "]"
            if isinstance(v, dict):
                return "{ " + ", ".join(f"{k} = {value(x)}" for k, x in v.items()) + " }"
            return json.dumps(v) if isinstance(v, str) else repr(v)

        return "\n".join(f"[{t}]\n" + "".join(f"{k} = {value(v)}\n" for k, v in items.items())
                         for t, items in self.to_dict().items())

    def replace(self, table: str, /, **changes) -> Config:
        """A copy with ``changes`` in section ``table`` (checked as a file's would be)."""
        return merge(self, {table: changes}, "changes")


SECTIONS = {f.name: f for f in dataclasses.fields(Config)}


def section_class(table: str) -> type:
    """The dataclass of table ``table``."""
    return typing.get_type_hints(Config)[table] if table != "league" else LeagueConfig


def describe(table: str) -> list[tuple[str, str, str, str, str]]:
    """The fields of ``table``: (name, type, default, allowed values, meaning) — for docs and help."""
    cls = section_class(table)
    hints = typing.get_type_hints(cls)
    return [(f.name, _type_name(hints[f.name]), repr(f.default if f.default is not dataclasses.MISSING else f.default_factory()),
             str(f.metadata["allowed"] or "any"),
             f.metadata["meaning"]) for f in dataclasses.fields(cls)]


def _type_name(kind) -> str:
    return f"list of {typing.get_args(kind)[0].__name__}" if typing.get_origin(kind) is tuple else kind.__name__


def _checked(table: str, key: str, kind, value, field, where: str):
    """``value`` as field ``[table] key`` holds it (``kind``), or ``ValueError`` naming the field."""
    name = f"{where}: [{table}] {key}"
    if typing.get_origin(kind) is tuple:
        item = typing.get_args(kind)[0]
        if not isinstance(value, (list, tuple)) or not all(isinstance(w, item) and not isinstance(w, bool) for w in value):
            raise ValueError(f"{name} must be a list of {'integers' if item is int else 'strings'}, got {value!r}")
        value = tuple(value)
    elif kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"{name} must be float (a number), got {value!r}")
        value = float(value)
    elif kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        raise ValueError(f"{name} must be int (a whole number), got {value!r}")
    elif not isinstance(value, kind):
        raise ValueError(f"{name} must be {kind.__name__}, got {value!r}")
    allowed = field.metadata["allowed"]
    if allowed is not None and not allowed.test(value):
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return value


def merge(base: Config, changes: dict, where: str) -> Config:
    """``base`` with the tables of ``changes`` (nested dicts, as TOML reads) over it; ``ValueError``
    naming ``where``, the table or field and what is allowed for anything unknown or out of range."""
    tables = {}
    for table, items in changes.items():
        present = [t for t, f in SECTIONS.items() if getattr(base, t) is not None]
        if table not in present or not isinstance(items, dict):
            hint = " (a table of multi-player games)" if table == "league" else ""
            raise ValueError(f"{where}: unknown table [{table}]{hint}; allowed tables: "
                             + ", ".join(f"[{t}]" for t in present))
        section = getattr(base, table)
        fields = {f.name: f for f in dataclasses.fields(section)}
        hints = typing.get_type_hints(type(section))
        values = {}
        for key, value in items.items():
            if key not in fields:
                raise ValueError(f"{where}: [{table}] has no key {key!r}; allowed: {', '.join(fields)}")
            values[key] = _checked(table, key, hints[key], value, fields[key], where)
        tables[table] = dataclasses.replace(section, **values)
    return dataclasses.replace(base, **tables)


def read_toml(path: Path, what: str = "config file") -> dict:
    """The TOML file ``path`` as nested dicts; ``ValueError`` naming it if it is missing or not TOML."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"{what} {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise ValueError(f"{what} {str(path)!r} is a folder; give a TOML file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"{what} {str(path)!r} is not valid TOML: {err}") from None


def default_config(game_id: str) -> Config:
    """The defaults of ``game_id``: its ``GameSpec.training_config`` over the fields' defaults, with a
    ``[league]`` for a multi-player game."""
    from aerodeck import envs

    game = envs.spec(game_id)
    base = Config(league=None if game.solo else LeagueConfig())
    path = game.training_config_path()
    return merge(base, read_toml(path, "training config"), str(path))


def load_config(game_id: str, path: Path | None = None, general: bool = False) -> Config:
    """The config of a run: the game's defaults, with ``general`` its rule-general config
    (``GameSpec.general_config``) over them, then the tables of the TOML file ``path``."""
    from aerodeck import envs

    config = default_config(game_id)
    if general:
        where = envs.spec(game_id).general_config_path()
        config = merge(config, read_toml(where, "rule-general training config"), str(where))
    config = config if path is None else merge(config, read_toml(path), str(path))
    offered = ["mlp", *envs.spec(game_id).networks]
    if config.policy.network not in offered:
        raise ValueError(f"{path or 'the config'}: [policy] network must be one of {', '.join(map(repr, offered))} "
                         f"for {game_id}, got {config.policy.network!r}")
    return config

"""``aerodeck compare``: rule variants judged by agent play — every metric of the game's catalogue with
its 95% interval, every difference against the base with its interval, p-value, Holm–Bonferroni
correction over all the comparisons of the run and a verdict in words; a designer's report.

Every variant is played on the same seeds (common random numbers): game i of every variant and every
table has the same seed, so differences are paired game by game — also when the variant changes the
deal (a rule option in the catalogue's ``deal_options``, e.g. Airport Scramble's ``face_up``, Flight
Tycoon's ``n_players``): the pairs (base game i, variant game i) are still independent from one i to
the next, so the paired test is valid; the report says the deal changes and shows each comparison's
pairing correlation. ``--test welch`` unpairs. Tables: one per agent (in a multi-player game, the agent
in every seat) and, in a multi-player game with two agents or more, one table mixing them (the first
agent in one seat, the others in the rest, rotated over the seats) where the skill gap is measured.
The judges each get a table; their verdicts are set side by side, and a paired test of the difference
between their effects says whether they agree, differ detectably or show no detectable difference. The
judges are the agents named with ``--agent`` unless ``--judges`` names others; with neither, the
catalogue's (``Catalogue.judges``).
Restricted play (``--agent restricted:base=heuristic,forbid=replace``) is compared with its base agent
on the same deals, with the same statistics: what the forbidden kind of action is worth.
``--house NAME:FILE.py:Class`` gives the variant NAME a house rule (a subclass of the game's reference
engine, ``aerodeck.envs.common.house``; a variants file's key ``house``): it plays on that engine, the
others on the batched core, and a house rule that fails stops its variant alone, in one line.
``--allow-identical`` runs the A/A check: a variant with the base's rules, played on other seeds, whose
every "change" is false.

The output folder (``--out``) holds ``report.md``, ``results.json``, ``games.csv``, PNG plots and
``variants.toml`` (the variants, readable by ``--variants``), written as a whole at the end; the same
``--seed`` gives the same files, numbers exactly.

``--save-games changed`` (or ``--changed K``) adds the games whose outcome differs between the base and a
variant under each judge, largest difference first, with the decision where the two games split:
``changed.csv`` and the pairs of games in ``replays/changed/`` (``aerodeck replay OUT --changed N`` opens
one side by side). The report says how many games a question without a verdict needs (each metric's
practical size, ``--practical METRIC=SIZE``), marks a detected change smaller than it, and flags a judge
that played the same decisions under base and variant in 95 % of the games or more
(``aerodeck.judge.power``, ``aerodeck.judge.changed``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import time
import tomllib
from pathlib import Path

import numpy as np

from aerodeck import envs
from aerodeck.agents.specs import parse_spec
from aerodeck.agents.restricted import NAME as RESTRICTED
from aerodeck.envs.common.house import HouseRule, HouseRuleError, with_house
from aerodeck.judge.analysis import analyse
from aerodeck.arena.backends import BACKENDS, CHUNK, Cell, catalogue, make_backend, merge, tasks_of
from aerodeck.arena.args import add_rules_arguments, games_arg, load_rules, seed_arg

#: The name of the base variant when none is named.
BASE = "base"
#: The most memory the per-game figures of a run may take (every game's metrics are kept: differences
#: pair game by game); a larger run is refused before it starts.
MEMORY_LIMIT = 4 * 2**30


# --- the question -----------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Table:
    """Agents at one table: ``agents`` specs; ``mixed``: a multi-player table of several agents, the
    first in one seat and the others in turn in the rest (rotated over the seats game by game; its
    skill gap is the first agent's share of the win); otherwise ``agents[0]`` in every seat.
    ``judge``: a judge's table (its verdicts lead the report, set beside the other judges');
    ``extra``: added for a judge, not one of the ``--agent`` tables (so never in the skill gap)."""

    name: str
    agents: tuple[str, ...]
    mixed: bool = False
    judge: bool = False
    extra: bool = False

    def lineup(self, n_players: int) -> tuple[int, ...] | None:
        """The agent index of each seat for ``n_players`` (``None``: the first agent everywhere)."""
        if not self.mixed:
            return None
        return tuple([0] + [1 + s % (len(self.agents) - 1) for s in range(n_players - 1)])


@dataclasses.dataclass(frozen=True)
class Question:
    """What a comparison asks: ``variants`` (name -> rules object, the base first), the ``tables``,
    the games per cell, the seed, the metrics compared and the agents trained per variant."""

    game: str
    variants: dict[str, object]
    tables: tuple[Table, ...]
    games: int
    seed: int
    metrics: tuple[str, ...]
    test: str = "paired"
    #: variant -> table -> agent specs replacing the table's (``--retrain``: a model per variant).
    trained: dict[str, dict[str, tuple[str, ...]]] = dataclasses.field(default_factory=dict)
    #: variant -> the index of its first game (default 0: games 0 … games−1, the same seeds as every
    #: other variant); an A/A copy or ``tune``'s trials play a disjoint range of games, so other seeds.
    offsets: dict[str, int] = dataclasses.field(default_factory=dict)
    #: metric -> the smallest change worth acting on, in its unit (``--practical``; default: the
    #: catalogue's ``Metric.practical``, see ``aerodeck.judge.power``).
    practical: dict[str, float] = dataclasses.field(default_factory=dict)

    @property
    def base(self) -> str:
        """The base variant's name (the first)."""
        return next(iter(self.variants))

    def judge_tables(self) -> list[Table]:
        """The judges' tables (``Table.judge``), or the first table when none is a judge."""
        return [t for t in self.tables if t.judge] or list(self.tables[:1])

    def players(self, variant: str) -> int:
        """The player count of ``variant``."""
        return envs.spec(self.game).players(self.variants[variant])

    def cells(self) -> list[Cell]:
        """Every (variant, table), variant by variant."""
        out = []
        for name, rules in self.variants.items():
            for t in self.tables:
                agents = self.trained.get(name, {}).get(t.name, t.agents)
                out.append(Cell(name, t.name, rules, tuple(agents), t.lineup(self.players(name))))
        return out

    def agent_pairs(self) -> list[tuple[str, str]]:
        """Tables compared with another on the same deals (restricted play, solo games): each restricted
        table against the table of its base agent, or the first table when that agent has none."""
        if not envs.spec(self.game).solo:
            return []
        names = [t.name for t in self.tables]
        pairs = []
        for t in self.tables:
            name, params = parse_spec(t.agents[0])
            if name == RESTRICTED:
                base = params.get("base", "")
                pairs.append((t.name, base if base in names and base != t.name else names[0]))
        return [p for p in pairs if p[0] != p[1]]


def parse_variant(text: str, rules_class, base=None) -> tuple[str, object]:
    """``NAME:key=value,...`` (or ``NAME`` alone: the base rules) → ``(name, rules)``: the options over
    ``base`` (the base rules, :func:`base_rules`; ``None``: the defaults); a list value runs on over commas
    (``flat:vp_table=3,4,5,5,4,vp_sharing=rank``). The options are validated by the rules class (an
    unknown one is an error naming the allowed options)."""
    name, sep, rest = text.partition(":")
    name = name.strip()
    if not name or any(c in name for c in "=,"):
        raise ValueError(f"--variant {text!r}: expected NAME:key=value,... (e.g. easy:ticket_turn_bonus=2)")
    items: list[str] = []
    for piece in (p.strip() for p in rest.split(",") if p.strip()) if sep else ():
        if "=" in piece or not items:
            items.append(piece)
        else:  # the next number of a list value: vp_table=3,4,5,5,4
            items[-1] += "," + piece
    try:
        return name, rules_class.from_strings((base.to_strings() if base is not None else []) + items)
    except ValueError as err:
        raise ValueError(f"--variant {name}: {err}") from None


def read_variants(path: Path, rules_class, base=None) -> dict[str, object]:
    """The variants of a TOML file: one table per variant, its options over ``base`` (the base rules;
    ``None``: the defaults); ``[base]`` names the base; a table ``[variants]`` holding the tables is read
    the same way."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"--variants {str(path)!r} is a folder, not a TOML file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"--variants file {str(path)!r} does not exist") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"--variants file {str(path)!r} is not valid TOML: {err}") from None
    if set(data) == {"variants"} and isinstance(data["variants"], dict):
        data = data["variants"]
    loose = [k for k, v in data.items() if not isinstance(v, dict)]
    if loose:
        raise ValueError(f"--variants file {str(path)!r}: {', '.join(map(repr, loose))} must be tables "
                         "([name] with the variant's rule options), one per variant")
    out = {}
    for name, table in data.items():
        try:
            options = {k: v for k, v in table.items() if k != HOUSE_KEY}
            house = table.get(HOUSE_KEY)
            if house is not None and not isinstance(house, str):
                raise ValueError(f"{HOUSE_KEY} must be a string FILE.py:Class, got {house!r}")
            over = {**base.to_dict(), **options} if base is not None else options
            out[name] = with_house(rules_class.from_toml(over),
                                   HouseRule.parse(house, path.parent) if house else None)
        except ValueError as err:
            raise ValueError(f"--variants file {str(path)!r}, variant {name}: {err}") from None
    return out


#: The key of a variant's table (``--variants FILE.toml``) naming its house rule, ``FILE.py:Class``
#: (a relative FILE is read from the TOML file's folder).
HOUSE_KEY = "house"


def check_houses(spec, variants: dict[str, object]) -> None:
    """Load each variant's house rule before any game (``ValueError`` in one line naming the variant and
    what is wrong: a file that fails to import, a class that is not the game's reference engine's)."""
    from aerodeck.envs.common.house import house_of

    for name, rules in variants.items():
        if house_of(rules) is not None:
            try:
                spec.make_reference_core(rules)
            except ValueError as err:
                raise ValueError(f"variant {name}: {err}") from None


def apply_houses(items: list[tuple[str, object]], houses: list[str], rules_class, base=None) -> list[tuple[str, object]]:
    """``items`` (name, rules) with each ``--house NAME:FILE.py:Class`` applied: the house rule joins
    the variant ``NAME`` (its rule options kept), or makes a new variant of the base rules (``base``;
    ``None``: the defaults)."""
    out = list(items)
    for text in houses:
        name, sep, rest = text.partition(":")
        name = name.strip()
        if not sep or not name or any(c in name for c in "=,"):
            raise ValueError(f"--house {text!r}: expected NAME:FILE.py:Class (e.g. catchup:my_rules.py:LastSeatExtraCard)")
        try:
            house = HouseRule.parse(rest)
        except ValueError as err:
            raise ValueError(f"--house {name}: {err}") from None
        at = [i for i, (n, _) in enumerate(out) if n == name]
        if at:
            out[at[0]] = (name, with_house(out[at[0]][1], house))
        else:
            out.append((name, with_house(rules_class() if base is None else base, house)))
    return out


def assemble_variants(items: list[tuple[str, object]], rules_class, fixed: dict | None = None,
                      allow_identical: bool = False, base=None) -> dict[str, object]:
    """The variants in order with the base first: the one named ``base`` or else the base rules
    (``base``: :func:`base_rules`; ``None``: the defaults) added as ``base``. ``fixed`` options (e.g. the
    player count) apply to every variant. Refuses a name given
    twice and, unless ``allow_identical`` (the A/A check), a variant equal to another (the same rules
    twice)."""
    named: dict[str, object] = {}
    for name, rules in items:
        if name in named:
            raise ValueError(f"variant {name!r} is given twice")
        named[name] = rules
    if BASE not in named:
        named = {BASE: rules_class() if base is None else base, **named}
    else:
        named = {BASE: named.pop(BASE), **named}
    if fixed:
        named = {name: rules.replace(**fixed) for name, rules in named.items()}
    seen: dict[object, str] = {}
    for name, rules in named.items():
        if rules in seen and not allow_identical:
            raise ValueError(f"variant {name!r} has the same rules as {seen[rules]!r} ({rules.label()}): "
                             "a comparison of identical rules tells nothing; change an option or drop one "
                             "(or give --allow-identical for the A/A check: the copy plays other seeds)")
        seen.setdefault(rules, name)
    return named


def copy_offsets(variants: dict[str, object], games: int) -> dict[str, int]:
    """The first game of each variant whose rules repeat an earlier variant's (the A/A check): the k-th
    variant plays games ``k·games … (k+1)·games − 1``, seeds no other variant plays."""
    seen, out = set(), {}
    for k, (name, rules) in enumerate(variants.items()):
        if rules in seen:
            out[name] = k * games
        seen.add(rules)
    return out


def make_tables(game: str, agents: list[str], judges: list[str] = ()) -> tuple[Table, ...]:
    """The tables for ``agents``: one per agent; in a multi-player game with two agents or more, also
    one mixing them (see :class:`Table`); then one per judge that is not among the agents. The agents
    named in ``judges`` are the judges (none: the first agent's table judges alone)."""
    if len(set(agents)) != len(agents):
        raise ValueError(f"each --agent may be given once, got {agents}")
    if len(set(judges)) != len(judges):
        raise ValueError(f"each --judges agent may be given once, got {list(judges)}")
    tables = [Table(a, (a,), judge=a in judges) for a in agents]
    if not envs.spec(game).solo and len(agents) > 1:
        tables.append(Table(" vs ".join(agents), tuple(agents), mixed=True))
    tables += [Table(j, (j,), judge=True, extra=True) for j in judges if j not in agents]
    return tuple(tables)


def check_question(question: Question, search: bool = False) -> None:
    """Refuse, before any game is played, metrics the game lacks and — unless the question only seeds a
    search (``tune``) — a question with nothing to compare (no variant besides the base, no restricted
    agent)."""
    cat = catalogue(question.game)
    for name in question.metrics:
        cat.metric(name)
    if not search and len(question.variants) < 2 and not question.agent_pairs():
        raise ValueError("compare needs at least one variant besides the base (--variant NAME:key=value,...) "
                         "or a restricted agent to set against its base agent")


def check_memory(question: Question) -> None:
    """Refuse a run whose per-game figures would take more than ``MEMORY_LIMIT`` bytes."""
    width = sum(m.width for m in catalogue(question.game).for_rules(question.variants[question.base]))
    cells = len(question.variants) * len(question.tables)
    need = question.games * cells * width * 2 * 8  # numerator and denominator, float64
    if need > MEMORY_LIMIT:
        most = MEMORY_LIMIT // (cells * width * 16)
        raise ValueError(f"--games {question.games:,} in {cells} cells keeps {need / 2**30:.1f} GiB of per-game "
                         f"figures (more than {MEMORY_LIMIT / 2**30:g} GiB): play at most {most:,} games per cell")


def make_agents_once(question: Question) -> None:
    """Build every agent of the question once (agent specs and their knobs checked before any game)."""
    from aerodeck.agents.registry import make_agent

    for cell in question.cells():
        for a in cell.agents:
            make_agent(question.game, a, cell.rules, seed=0)


# --- playing and analysing ----------------------------------------------------------------------------

def play(question: Question, backend, chunk: int = CHUNK, progress: bool = True, save: int = 0,
         timings: dict | None = None, trace: bool = False, failed: dict | None = None) -> dict:
    """Play every cell of ``question`` on ``backend`` (recording each cell's first ``save`` games), table
    by table; per ``(variant, table)`` the merged results (``aerodeck.arena.backends.merge``). Each variant
    plays games from its offset (``Question.offsets``) on. ``timings``, if given, receives each table's
    wall time in seconds (what each judge cost). ``trace``: keep every game's actions (for the games
    that changed, ``aerodeck.judge.changed``). A variant whose house rule fails
    (``aerodeck.envs.common.house.HouseRuleError``) is left out of the result and ``failed`` (a dict,
    if given) receives its one-line error; the other variants play on (without ``failed``: ``ValueError``
    with that line)."""
    from tqdm.auto import tqdm

    cells = question.cells()
    tasks = []
    for variant in question.variants:
        first = question.offsets.get(variant, 0)
        mine = tasks_of(question.game, [c for c in cells if c.variant == variant], question.games, question.seed,
                        chunk, save if first == 0 else 0)
        mine = [dataclasses.replace(t, trace=True) for t in mine] if trace else mine
        tasks += [dataclasses.replace(t, start=t.start + first) for t in mine] if first else mine
    results: dict[int, dict] = {}
    isolate, failed = failed is not None, {} if failed is None else failed
    with tqdm(total=sum(t.count for t in tasks), unit="game", disable=not progress,
              leave=False, desc=f"{question.game} × {len(question.variants)} variants") as bar:
        for table in question.tables:
            start = time.perf_counter()
            for variant in question.variants:  # a variant whose house rule fails stops alone
                at = [i for i, t in enumerate(tasks) if t.cell.table == table.name and t.cell.variant == variant]
                if variant in failed or not at:
                    continue
                try:
                    results.update(zip(at, backend.run([tasks[i] for i in at], bar.update)))
                except HouseRuleError as err:
                    if not isolate:
                        raise ValueError(house_failure(question, variant, table.name, err)) from None
                    failed[variant] = house_failure(question, variant, table.name, err)
            if timings is not None:
                timings[table.name] = time.perf_counter() - start
    kept = [i for i in range(len(tasks)) if tasks[i].cell.variant not in failed]
    return merge([results[i] for i in kept], [tasks[i] for i in kept])


def house_failure(question: Question, variant: str, table: str, err: HouseRuleError) -> str:
    """The one line saying where variant ``variant``'s house rule failed: the rule, the game (its number
    in the run), the decision, what happened, and the table that played it."""
    from aerodeck.arena.loop import game_seeds

    seeds = game_seeds(question.seed, question.games, question.offsets.get(variant, 0))
    at = np.flatnonzero(seeds == np.uint64(err.seed)) if err.seed is not None else []
    game = question.offsets.get(variant, 0) + int(at[0]) if len(at) else None
    return f"variant {variant} ({table}) stopped: {err.line(game)}"


def drop_failed(question: Question, cells: dict, failed: dict[str, str]):
    """``question`` and its ``cells`` without the variants in ``failed`` (their one-line errors printed to
    stderr); ``ValueError`` when the base failed or nothing is left to compare."""
    import sys

    for line in failed.values():
        print(line, file=sys.stderr)
    if question.base in failed:
        raise ValueError(f"the base failed, nothing to compare against: {failed[question.base]}")
    kept = {k: v for k, v in question.variants.items() if k not in failed}
    question = dataclasses.replace(question, variants=kept)
    if len(kept) < 2 and not question.agent_pairs():
        raise ValueError("every variant besides the base failed: " + "; ".join(failed.values()))
    return question, {k: v for k, v in cells.items() if k[0] not in failed}


def per_game_rows(question: Question, cells: dict):
    """``games.csv`` rows: variant, table, game, seed and each plain metric's value (empty where undefined);
    a metric that is a ratio of per-game counts (a denominator other than 0 or 1 in some game, e.g. a rate
    such as ``last_card_collisions``, or turns per ticket) also gets its numerator and denominator
    (``NAME.num``, ``NAME.den``), so every figure of the report can be recomputed from the file. A share of
    the win by seat position (``Metric.seat_share`` with columns, e.g. ``win_by_position``) gets one column
    per position of the largest table (``NAME.1st`` …: that seat's credit of the win, 1/k for each of k
    tied winners, empty past the game's players), so the win share by seat is the column's mean."""
    from aerodeck.arena.loop import game_seeds

    cat = catalogue(question.game)
    plain = [m for m in cat.metrics if m.width == 1]
    ratios = {m.name for m in plain if m.kind == "rate" or any(
        np.any((r["metrics"][m.name][1][:, 0] != 0) & (r["metrics"][m.name][1][:, 0] != 1)) for r in cells.values())}
    header = ["variant", "table", "game", "seed"]
    for m in plain:
        header += [m.name, f"{m.name}.num", f"{m.name}.den"] if m.name in ratios else [m.name]
    most = max(question.players(v) for v in question.variants)
    seats = [m for m in cat.metrics if m.seat_share and m.width > 1 and most > 1]
    for m in seats:
        header += [f"{m.name}.{label}" for label in m.labels[:most]]
    rows = []

    def text(x: float) -> str:
        return "" if np.isnan(x) else f"{x:.10g}"

    for (variant, table), result in cells.items():
        first = question.offsets.get(variant, 0)
        seeds = game_seeds(question.seed, question.games, first)
        columns = []
        for m in plain:
            num, den = result["metrics"][m.name]
            with np.errstate(invalid="ignore", divide="ignore"):
                columns.append(np.where(den[:, 0] > 0, num[:, 0] / den[:, 0], np.nan))
            if m.name in ratios:
                columns += [num[:, 0], den[:, 0]]
        for m in seats:
            num, den = result["metrics"][m.name]
            with np.errstate(invalid="ignore", divide="ignore"):
                columns += [np.where(den[:, c] > 0, num[:, c] / den[:, c], np.nan) for c in range(most)]
        for i in range(question.games):
            rows.append([variant, table, first + i, int(seeds[i]), *[text(col[i]) for col in columns]])
    return header, rows


# --- the command --------------------------------------------------------------------------------------

def save_games_arg(text: str) -> int | str:
    """``--save-games``: a number of games, or ``changed``."""
    if text.strip().lower() == "changed":
        return "changed"
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of games or 'changed', got {text!r}") from None


def practical_sizes(items: list[str], cat) -> dict[str, float]:
    """``--practical METRIC=SIZE`` items as ``{metric: size}``; ``ValueError`` for an unknown metric or a
    size that is not a positive number."""
    out = {}
    for item in items:
        name, sep, size = item.partition("=")
        cat.metric(name.strip())
        try:
            value = float(size) if sep else float("nan")
        except ValueError:
            value = float("nan")
        if not value > 0:
            raise ValueError(f"--practical {item!r}: expected METRIC=SIZE with a positive size in the metric's unit")
        out[name.strip()] = value
    return out


def add_common_arguments(p: argparse.ArgumentParser, default_out: str) -> None:
    """The options ``compare``, ``sweep`` and ``tune`` share."""
    p.add_argument("game", choices=envs.games())
    p.add_argument("--agent", dest="agents", action="append", metavar="SPEC",
                   help="agent NAME or NAME:key=value,... (repeat, the strongest first: the skill gap is the first "
                        "agent's edge over the second; default per game: "
                        + ", ".join(f"{g} {' and '.join(catalogue(g).default_agents)}" for g in envs.games())
                        + "); restricted play: restricted:base=heuristic,forbid=replace")
    p.add_argument("--games", type=games_arg, help="games per variant and table (default per game: "
                   + ", ".join(f"{g} {envs.spec(g).bench_games}" for g in envs.games()) + ")")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the deals and the agents (default 0)")
    p.add_argument("--players", type=int, help="multi-player games: the player count of every variant")
    add_rules_arguments(p, "the base rules: ")
    p.add_argument("--metric", dest="metrics", action="append", metavar="NAME",
                   help="a metric to compare (repeat; default: every metric docs/metrics.md marks 'compared by "
                        "default'; the report's summary opens with the game's few headline metrics among them)")
    p.add_argument("--judges", nargs="+", action="extend", metavar="SPEC",
                   help="the agents whose verdicts are set side by side (each gets a table unless it is an "
                        "--agent; the first leads); default: the --agent agents, or without --agent per game: "
                        + ", ".join(f"{g} {' and '.join(catalogue(g).judges) or 'its first agent'}"
                                    for g in envs.games()) + "; ppo:path=MODEL.zip judges too")
    p.add_argument("--test", choices=("paired", "welch", "bootstrap"), default="paired",
                   help="differences: paired = paired t game by game (game i on seed i under every variant; the "
                        "delta method for ratios); welch = Welch's t, unpaired; bootstrap = percentile bootstrap "
                        "over games, pairs resampled together (default paired)")
    p.add_argument("--backend", choices=BACKENDS, default="local", help="where the games are played (default local)")
    p.add_argument("--address", metavar="ADDR", help="--backend ray: the cluster's address (default: a local Ray)")
    p.add_argument("--chunk", type=int, default=CHUNK, help=f"games per task (default {CHUNK})")
    p.add_argument("--retrain", type=int, metavar="STEPS",
                   help="train a PPO agent per variant for STEPS steps with `aerodeck train` and add it as a table")
    p.add_argument("--retrain-config", type=Path, metavar="FILE.toml",
                   help="--retrain: the training config (aerodeck train --config; default: the game's defaults)")
    p.add_argument("--save-games", type=save_games_arg, metavar="K|changed",
                   help="write the first K games of each cell as replays (replays/<variant>--<table>.jsonl; aerodeck "
                        "replay FILE plays them back); 'changed': the games whose outcome differs between the base "
                        "and a variant under each judge, largest difference first, with the decision where they split "
                        "(changed.csv, replays/changed/; aerodeck replay OUT --changed N opens a pair side by side)")
    p.add_argument("--changed", type=int, metavar="K", help="save the K games that changed most per variant and judge "
                   "(as --save-games changed, which saves them all)")
    p.add_argument("--practical", action="append", default=[], metavar="METRIC=SIZE",
                   help="the smallest change of METRIC worth acting on, in its unit (repeat; default per metric: "
                        "docs/metrics.md): the report says how many games detect it and marks a real change "
                        "smaller than it")
    p.add_argument("--out", type=Path, default=None, help=f"output folder (default {default_out})")
    p.add_argument("--force", action="store_true", help="replace --out even if it holds files aerodeck did not write")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")


def add_parser(sub) -> None:
    """Register ``aerodeck compare``."""
    p = sub.add_parser("compare", help="rule variants judged by agent play: metrics with CIs, corrected "
                       "significance, a designer's report", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_arguments(p, "out/compare-<game>")
    p.add_argument("--variant", dest="variant_items", action="append", default=[], metavar="NAME:key=value,...",
                   help="a rules variant (repeat); 'base' names the base (default: the defaults)")
    p.add_argument("--variants", type=Path, metavar="FILE.toml", help="variants from a TOML file, one table each")
    p.add_argument("--house", dest="house_items", action="append", default=[], metavar="NAME:FILE.py:Class",
                   help="a house rule: Class in FILE.py, a subclass of the game's reference engine overriding its hook "
                        "methods (docs/designers.md, 'Write a house rule'), joins the variant NAME (with its --variant "
                        "options) or makes one; played on the reference engine (exact, slower); in --variants FILE.toml "
                        "a variant's key house = \"FILE.py:Class\"")
    p.add_argument("--allow-identical", action="store_true",
                   help="the A/A check: allow a variant with the same rules as another; it plays other seeds, "
                        "and the report counts its false changes (about 5%% before Holm, at most 5%% after)")
    p.set_defaults(func=main)


def base_rules(args, spec):
    """The rules every variant starts from: ``--rules FILE [--table NAME]``, then each ``--rule key=value``
    (the defaults without them); ``--players`` must agree with them (:func:`aerodeck.arena.args.load_rules`)."""
    return load_rules(spec, args.rules, args.rule_items, args.table, players=args.players)


def fixed_options(args, spec) -> dict:
    """Options every variant gets from the command line (``--players``)."""
    if args.players is None:
        return {}
    if spec.solo:
        raise ValueError(f"--players applies to multi-player games; {spec.id} is played solo")
    return {spec.players_option: args.players}


def common_setup(args, variants: dict[str, object], command: str, search: bool = False):
    """From the parsed options and the variants (the base first): the question, the backend and the
    output folder — every input checked before any game is played (``search``: see
    :func:`check_question`)."""
    from aerodeck.arena.output import OutputFolder

    spec = envs.spec(args.game)
    if args.chunk < 1:
        raise ValueError(f"--chunk must be at least 1, got {args.chunk}")
    if isinstance(args.save_games, int) and args.save_games < 1:
        raise ValueError(f"--save-games must be at least 1 (or 'changed'), got {args.save_games}")
    if getattr(args, "changed", None) is not None and args.changed < 1:
        raise ValueError(f"--changed must be at least 1, got {args.changed}")
    if args.retrain is not None and args.retrain < 1:
        raise ValueError(f"--retrain must be at least 1 step, got {args.retrain}")
    if args.retrain_config is not None and (args.retrain is None or not args.retrain_config.is_file()):
        raise ValueError(f"--retrain-config {str(args.retrain_config)!r}: "
                         + ("give --retrain STEPS too" if args.retrain is None else "no such file"))
    cat = catalogue(args.game)
    metrics = tuple(dict.fromkeys(args.metrics or [m.name for m in cat.headline()]))
    agents = args.agents or list(cat.default_agents)
    judges = list(dict.fromkeys(args.judges or args.agents or cat.judges or agents[:1]))
    games = args.games or spec.bench_games
    question = Question(args.game, variants, make_tables(args.game, agents, judges), games, args.seed, metrics,
                        args.test, offsets=copy_offsets(variants, games),
                        practical=practical_sizes(getattr(args, "practical", []), cat))
    check_question(question, search)
    check_memory(question)
    make_agents_once(question)
    out = OutputFolder(args.out or Path("out") / f"{command}-{args.game}", force=args.force,
                       command=f"aerodeck {command} {args.game}")
    backend = make_backend(args.backend, args.address)
    return question, backend, out


def run_question(question: Question, backend, out, args, extra=None) -> dict:
    """Play, analyse and write the report of ``question`` into the output folder ``out``; prints the
    verdict table; returns the analysis."""
    start = time.perf_counter()
    timings: dict[str, float] = {}
    with out.writing() as folder:
        if args.retrain:
            question = retrain(question, args.retrain, args.retrain_config, folder / "models", not args.no_progress)
        save = args.save_games if isinstance(args.save_games, int) else 0
        changed = args.save_games == "changed" or getattr(args, "changed", None) is not None
        analysis = report_into(folder, question, backend, args.chunk, not args.no_progress, extra, save, timings,
                               changed=getattr(args, "changed", None) if changed else None, save_changed=changed)
    seconds = time.perf_counter() - start
    from aerodeck.judge import designer_report

    designer_report.print_verdicts(analysis)
    print("what each table cost (wall time, all its variants; also in timings.json): "
          + ", ".join(f"{t} {s:.1f} s" for t, s in timings.items()))
    cells_count = len(question.variants) * len(question.tables)
    print(f"{cells_count} cells × {question.games} games in {seconds:.1f} s; wrote {', '.join(out.files)} to {out.path}/")
    return analysis


def report_into(folder: Path, question: Question, backend, chunk: int = CHUNK, progress: bool = True,
                extra: dict | None = None, save: int = 0, timings: dict | None = None, changed: int | None = None,
                save_changed: bool = False) -> dict:
    """Play ``question`` on ``backend`` and write its report into ``folder`` (a folder being written,
    e.g. ``OutputFolder.writing``), with the first ``save`` games of each cell as replay files
    (``replays/<variant>--<table>.jsonl``, read by ``aerodeck replay``); returns the analysis (``extra``
    added to it; a callable ``extra`` is given the analysis first). ``timings`` (a dict) receives each table's wall time, also written to ``timings.json``
    — the one file that differs from run to run (report.md and results.json hold no timing). With
    ``save_changed``, the games whose outcome differs between the base and a variant under each judge (at
    most ``changed`` per variant and judge; ``None``: all) go to ``changed.csv`` and ``replays/changed/``
    (``aerodeck.judge.changed``)."""
    from aerodeck.judge import designer_report
    from aerodeck.arena import replays as replay

    timings = {} if timings is None else timings
    failed: dict[str, str] = {}
    cells = play(question, backend, chunk, progress, save, timings, trace=save_changed, failed=failed)
    if failed:
        question, cells = drop_failed(question, cells, failed)
    for (variant, table), result in cells.items():
        if result["replays"]:
            name = re.sub(r"[^A-Za-z0-9_.=+-]+", "_", f"{variant}--{table}")
            replay.write(folder / "replays" / f"{name}.jsonl", question.game, question.variants[variant],
                         result["replays"], source=f"aerodeck compare --seed {question.seed}")
    analysis = analyse(question, cells)
    if failed:
        analysis["failed_variants"] = failed
    analysis["trained"] = {v: {t: [a.replace(f"{folder}/", "") for a in specs] for t, specs in tables.items()}
                           for v, tables in analysis["trained"].items()}  # model paths inside the folder
    analysis.update((extra(analysis) if callable(extra) else extra) or {})
    if save_changed:
        from aerodeck.judge import changed as changed_games

        rows, counts = changed_games.changed_games(question, cells, changed)
        changed_games.write_changed(folder, question, cells, rows, f"aerodeck compare --seed {question.seed}")
        analysis["changed"] = {"rows": changed_games.public(rows), "counts": list(counts.values()), "limit": changed}
    designer_report.write(folder, analysis, per_game_rows(question, cells))
    (folder / "timings.json").write_text(json.dumps({"seconds_per_table": timings}, indent=1) + "\n", encoding="utf-8")
    return analysis


def retrain(question: Question, steps: int, config: Path | None, folder: Path, progress: bool) -> Question:
    """A PPO agent trained per variant for ``steps`` steps on that variant's rules (``aerodeck train``,
    with ``config`` if given), added as the table ``ppo (retrained)``: each variant plays its own model;
    the report says which model was trained on which rules."""
    from aerodeck.train.config import load_config
    from aerodeck.train.cli import train

    trained: dict[str, dict[str, tuple[str, ...]]] = {}
    table = Table("ppo (retrained)", ("ppo",), judge=True, extra=True)
    settings = load_config(question.game, config)
    for name, rules in question.variants.items():
        where = train(question.game, rules, settings, folder / name.replace("/", "_").replace(" ", "_"), steps=steps,
                      seed=question.seed, progress=progress)
        trained[name] = {table.name: (f"ppo:path={where / 'best.zip'}",)}
    return dataclasses.replace(question, tables=(*question.tables, table), trained=trained)


def main(args: argparse.Namespace) -> int:
    """``aerodeck compare``."""
    spec = envs.spec(args.game)
    rules_class = spec.rules_class()
    base = base_rules(args, spec)
    items = [parse_variant(v, rules_class, base) for v in args.variant_items]
    if args.variants is not None:
        items += list(read_variants(args.variants, rules_class, base).items())
    items = apply_houses(items, args.house_items, rules_class, base)
    variants = assemble_variants(items, rules_class, fixed_options(args, spec), args.allow_identical, base)
    check_houses(spec, variants)
    question, backend, out = common_setup(args, variants, "compare")
    run_question(question, backend, out, args)
    return 0

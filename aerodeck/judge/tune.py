"""``aerodeck tune``: search the rule options for the variant whose metric is closest to a target.

``--param key=lo..hi`` (integers) or ``--param key=a,b,c`` (values) name the options searched (the
others keep their defaults); ``--target METRIC=VALUE`` what to reach, measured on the first agent's
table (the first table where the metric is defined: a multi-player game's ``skill_gap`` is the mixed
table's); ``--keep METRIC>=VALUE`` / ``METRIC<=VALUE`` (repeatable) constraints, where ``skill_gap``
is the gap between the first two agents (``docs/metrics.md``). Each of ``--trials`` trials plays
``--trial-games`` games per table of one candidate (the ``--agent`` tables; Optuna's TPE sampler,
seeded by ``--seed``), every trial on the same games, numbered from ``TRIAL_OFFSET`` on; a candidate
the rules refuse (say ``max_replace`` above ``face_up``) is skipped. The best candidate is then
confirmed by a full ``compare`` against the base (``--games`` games, numbered from 0, with the judges)
on seeds no trial played — the best of many trials looks better on its own games than it is — whose
report lands in ``--out``: the search (every trial, the best trial's own score next to its confirmed
score) and the verdict on the target from the confirmation alone ("target met / not met: confirmed X
[CI]"), with a warning when the confirmed variant is not detectably different from the base. Its
``variants.toml`` holds the tuned variant as the table ``[tuned]``, which ``compare --variants`` and
``--rules FILE --table tuned`` read; ``compare --variants FILE --seed S --games N`` replays the
confirmation exactly. With ``--backend ray`` the trials' games run as Ray tasks (the same numbers).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import math
import re
import signal

from aerodeck import envs
from aerodeck.envs.common.house import HouseRule, house_of, with_house
from aerodeck.judge import compare
from aerodeck.arena.backends import catalogue

#: How far outside a ``--keep`` bound counts, against distance to the target.
PENALTY = 1000.0
#: The first game the trials play: far above any confirmation's games (0 … ``--games``−1), so the trials'
#: seeds and the confirmation's are disjoint by construction.
TRIAL_OFFSET = 2**40


@dataclasses.dataclass(frozen=True)
class Param:
    """A searched rule option: an integer range ``lo..hi`` or a list of values (text)."""

    key: str
    lo: int | None = None
    hi: int | None = None
    values: tuple[str, ...] = ()

    def suggest(self, trial) -> str:
        """This parameter's value for an Optuna trial, as text for the rules class."""
        if self.values:
            return trial.suggest_categorical(self.key, list(self.values))
        return str(trial.suggest_int(self.key, self.lo, self.hi))


def parse_param(text: str, rules_class) -> Param:
    """``key=lo..hi`` or ``key=a,b,c``; the option must exist and every value be allowed."""
    key, sep, rest = text.partition("=")
    key, rest = key.strip(), rest.strip()
    if not sep or not key or not rest:
        raise ValueError(f"--param {text!r}: expected key=lo..hi or key=a,b,c")
    if key not in rules_class.option_names():
        raise ValueError(f"--param {text!r}: unknown rule option {key!r} for {rules_class.game}; allowed options: "
                         f"{', '.join(rules_class.option_names())}")
    found = re.fullmatch(r"(-?\d+)\.\.(-?\d+)", rest)
    if found:
        lo, hi = int(found[1]), int(found[2])
        if lo > hi:
            raise ValueError(f"--param {text!r}: the range {lo}..{hi} is empty")
        param, values = Param(key, lo, hi), [str(lo), str(hi)]
    else:
        values = [v.strip() for v in rest.split(",") if v.strip()]
        param = Param(key, values=tuple(values))
    field = next(f for f in dataclasses.fields(rules_class) if f.name == key)
    for v in values:
        field.metadata["allowed"].parse(key, v)  # ValueError naming the option and what it allows
    return param


@dataclasses.dataclass(frozen=True)
class Goal:
    """``metric`` (``op`` ``=``: as close as possible to ``value``; ``>=`` / ``<=``: a bound)."""

    metric: str
    op: str
    value: float


def parse_goal(text: str, flag: str, ops: tuple[str, ...]) -> Goal:
    """``METRIC=VALUE`` (``--target``) or ``METRIC>=VALUE`` / ``METRIC<=VALUE`` (``--keep``)."""
    found = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*(>=|<=|=)\s*(\S+)\s*", text)
    if not found or found[2] not in ops:
        raise ValueError(f"{flag} {text!r}: expected METRIC{'VALUE or METRIC'.join(ops)}VALUE")
    try:
        value = float(found[3])
    except ValueError:
        raise ValueError(f"{flag} {text!r}: {found[3]!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{flag} {text!r}: the value must be finite")
    return Goal(found[1], found[2], value)


def check_goal(goal: Goal, game: str, flag: str) -> None:
    """Refuse a goal naming a metric the game lacks, or a breakdown (tuned metrics are plain)."""
    if goal.metric == "skill_gap":
        return
    try:
        metric = catalogue(game).metric(goal.metric)
    except ValueError as err:
        raise ValueError(f"{flag}: {err}") from None
    if metric.width != 1:
        raise ValueError(f"{flag}: {goal.metric!r} is a breakdown ({metric.width} values); name a plain metric")


def measured_estimate(analysis: dict, variant: str, metric: str) -> tuple[dict | None, str | None]:
    """``metric`` of ``variant`` in an analysis with its interval, and the table it was read from: the
    first table where it is defined; ``skill_gap`` from the analysis' skill gap (table ``None``)."""
    if metric == "skill_gap" and metric not in analysis["estimates"]:
        gap = analysis["skill_gap"].get(variant)
        return (None if not gap or "value" not in gap else gap), None
    for table in analysis["tables"]:
        est = analysis["estimates"][metric][variant][table["name"]][0]
        if est is not None:
            return est, table["name"]
    return None, None


def measured(analysis: dict, variant: str, metric: str) -> float | None:
    """``metric`` of ``variant`` in an analysis (see :func:`measured_estimate`; ``None`` if undefined)."""
    est, _ = measured_estimate(analysis, variant, metric)
    return None if est is None else est["value"]


def objective(analysis: dict, variant: str, target: Goal, keeps: list[Goal]) -> float:
    """Distance of the target metric from its value, plus ``PENALTY`` times each bound's violation."""
    value = measured(analysis, variant, target.metric)
    if value is None:
        return math.inf
    loss = abs(value - target.value)
    for k in keeps:
        got = measured(analysis, variant, k.metric)
        if got is None:
            return math.inf
        short = k.value - got if k.op == ">=" else got - k.value
        loss += PENALTY * max(0.0, short)
    return loss


def add_parser(sub) -> None:
    """Register ``aerodeck tune``."""
    p = sub.add_parser("tune", help="search the rule options for a metric's target value (Optuna), then "
                       "confirm with compare", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    compare.add_common_arguments(p, "out/tune-<game>")
    p.add_argument("--house", metavar="FILE.py:Class", help="tune under this house rule (docs/designers.md, 'Write a "
                   "house rule'): every trial and the base play on its reference engine, exact and slower")
    p.add_argument("--param", dest="params", action="append", default=[], metavar="KEY=LO..HI|KEY=A,B",
                   help="a rule option to search (repeat)")
    p.add_argument("--target", required=True, metavar="METRIC=VALUE", help="the metric and the value to reach")
    p.add_argument("--keep", dest="keeps", action="append", default=[], metavar="METRIC>=VALUE",
                   help="a bound to keep (repeat; METRIC>=VALUE or METRIC<=VALUE; skill_gap allowed)")
    p.add_argument("--trials", type=int, default=30, help="candidates tried (default 30)")
    p.add_argument("--trial-games", type=int, default=500, help="games per table of each trial (default 500)")
    p.set_defaults(func=main)


@contextlib.contextmanager
def stops_between_trials(study, stopped: list):
    """Ctrl-C or SIGTERM while Optuna records a trial (outside the objective) would break its
    bookkeeping (it then raises an ``UnboundLocalError`` of its own): in there, the exception the
    signal's own handler raises ends the study after the trial instead (``stopped`` keeps it, raised
    after ``optimize``); inside the objective it is raised at once, as everywhere. Only signals with a
    Python handler (``aerodeck``'s SIGTERM, Python's Ctrl-C), only in the main thread."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    previous = {sig: handler for sig, handler in previous.items() if callable(handler)}

    def handle(signum, frame):
        try:
            previous[signum](signum, frame)
        except KeyboardInterrupt as stop:
            if _in_objective(frame):
                raise
            stopped.append(stop)
            study.stop()

    for sig in previous:
        signal.signal(sig, handle)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _in_objective(frame) -> bool:
    """Whether ``frame`` (where a signal arrived) runs inside this module's objective (``run``/``measure``)."""
    while frame is not None:
        if frame.f_code.co_filename == __file__ and frame.f_code.co_name in ("run", "measure"):
            return True
        frame = frame.f_back
    return False


def search(question: compare.Question, params: list[Param], target: Goal, keeps: list[Goal], trials: int,
           trial_games: int, backend, chunk: int, progress: bool) -> tuple[object, list[dict]]:
    """Run the Optuna search; the best rules object and every trial (params, value, metrics measured)."""
    try:
        import optuna
    except ImportError:
        raise ValueError("aerodeck tune needs Optuna: pip install optuna (the README's setup installs it "
                         "with the dev extra)") from None
    from tqdm.auto import tqdm

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    rules_class = envs.spec(question.game).rules_class()
    base = question.variants[question.base]
    fixed = {k: v for k, v in base.changes().items() if k not in {p.key for p in params}}
    house = house_of(base)  # every trial under the base's house rule (tune --house)
    history: list[dict] = []
    seen: dict[object, dict] = {}
    bar = tqdm(total=trials, unit="trial", disable=not progress, leave=False, desc="tune")

    stopped: list[KeyboardInterrupt] = []

    def run(trial) -> float:
        try:
            return measure(trial)
        except KeyboardInterrupt as stop:  # Optuna would log it with a traceback: end the study, raise it after
            stopped.append(stop)
            study.stop()
            raise optuna.TrialPruned() from None

    def measure(trial) -> float:
        values = {p.key: p.suggest(trial) for p in params}
        try:
            rules = with_house(rules_class.from_strings([f"{k}={v}" for k, v in values.items()]).replace(**fixed),
                               house)
        except ValueError as err:
            history.append({"trial": trial.number, "params": values, "skipped": str(err)})
            bar.update()
            raise optuna.TrialPruned() from None
        if rules not in seen:  # the same candidate again (a small space): the same seeds, the same numbers
            q = dataclasses.replace(question, variants={"trial": rules}, games=trial_games, metrics=(),
                                    tables=tuple(t for t in question.tables if not t.extra),
                                    offsets={"trial": TRIAL_OFFSET})
            analysis = compare.analyse(q, compare.play(q, backend, chunk, progress=False))
            seen[rules] = {"loss": objective(analysis, "trial", target, keeps),
                           **{g.metric: measured(analysis, "trial", g.metric) for g in [target, *keeps]}}
        history.append({"trial": trial.number, "params": values, **seen[rules]})
        bar.update()
        return seen[rules]["loss"]

    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=question.seed % 2**32))
    with stops_between_trials(study, stopped):
        study.optimize(run, n_trials=trials)
    bar.close()
    if stopped:
        raise stopped[0]
    done = [t for t in study.trials if t.value is not None and math.isfinite(t.value)]
    if not done:
        raise ValueError("no trial gave a measurable candidate: widen the --param ranges")
    best = min(done, key=lambda t: (t.value, t.number))
    rules = with_house(rules_class.from_strings([f"{k}={v}" for k, v in best.params.items()]).replace(**fixed), house)
    return rules, history


def _goal_text(goal: Goal) -> str:
    return f"{goal.metric} {goal.op} {goal.value:g}"


def confirmation(analysis: dict, target: Goal, keeps: list[Goal], best_trial: dict) -> dict:
    """The verdict of ``tune`` from the confirming compare alone: the target met when its value lies in
    the tuned variant's confirmed interval; each bound kept when the confirmed value satisfies it;
    warnings when the target is missed, a bound broken, or the tuned variant not detectably different
    from the base in the target metric. Returns ``verdict``, ``warnings``, ``confirmed`` (metric ->
    estimate) and ``best_trial`` (metric -> the best trial's value on its own games)."""
    from aerodeck.judge.wording import interval, number

    confirmed, warnings = {}, []
    est, table = measured_estimate(analysis, "tuned", target.metric)
    confirmed[target.metric] = est
    games = f"{analysis['games']:,} fresh games"
    if est is None:
        verdict = f"target {_goal_text(target)} not met: {target.metric} is undefined in the confirmation"
    else:
        met = est["low"] <= target.value <= est["high"]
        verdict = (f"target {_goal_text(target)} {'met' if met else 'not met'}: confirmed {interval(est)} on {games}"
                   f" (the best trial measured {number(best_trial.get(target.metric))} on its own games)")
        if not met:
            warnings.append(f"the confirmed {target.metric} {interval(est)} misses the target {target.value:g}")
    for k in keeps:
        got, _ = measured_estimate(analysis, "tuned", k.metric)
        confirmed[k.metric] = got
        kept = got is not None and (got["value"] >= k.value if k.op == ">=" else got["value"] <= k.value)
        verdict += f"; {_goal_text(k)} {'kept' if kept else 'not kept'}: confirmed {interval(got)}"
        if not kept:
            warnings.append(f"the bound {_goal_text(k)} is not kept on fresh games: confirmed {interval(got)}")
    same = [c for c in analysis["comparisons"] if c["metric"] == target.metric and c["variant"] == "tuned"
            and c["table"] == table and (c["p_holm"] is None or c["p_holm"] >= 0.05)]
    for c in same:
        d = c.get("interval") or c["difference"]
        if c["p_holm"] is None or d.get("low") is None:
            warnings.append(f"the tuned variant's change in {target.metric} is not tested ({c['verdict']})")
            continue
        warnings.append(f"the tuned variant is not detectably different from the base in {target.metric} "
                        f"({c['table']}: {c['difference']['value']:+.4g} [{d['low']:+.4g}, {d['high']:+.4g}], Holm p = "
                        f"{c['p_holm']:.2g}): the search may have chased noise")
    return {"verdict": verdict, "warnings": warnings, "confirmed": confirmed,
            "best_trial": {g.metric: best_trial.get(g.metric) for g in [target, *keeps]}}


def main(args: argparse.Namespace) -> int:
    """``aerodeck tune``."""
    spec = envs.spec(args.game)
    rules_class = spec.rules_class()
    if not args.params:
        raise ValueError("tune needs at least one --param key=lo..hi or key=a,b,c")
    params = [parse_param(p, rules_class) for p in args.params]
    if len({p.key for p in params}) != len(params):
        raise ValueError("--param names an option twice")
    target = parse_goal(args.target, "--target", ("=",))
    keeps = [parse_goal(k, "--keep", (">=", "<=")) for k in args.keeps]
    for goal, flag in [(target, "--target"), *((k, "--keep") for k in keeps)]:
        check_goal(goal, args.game, flag)
    if args.trials < 1 or args.trial_games < 2:
        raise ValueError("--trials must be at least 1 and --trial-games at least 2")
    agents = args.agents or list(catalogue(args.game).default_agents)
    if any(g.metric == "skill_gap" for g in [target, *keeps]) and len(agents) < 2:
        raise ValueError("skill_gap needs two agents: --agent STRONG --agent WEAK")
    base = compare.base_rules(args, spec).replace(**compare.fixed_options(args, spec))
    if args.house:  # every trial, the base included, under the house rule
        base = with_house(base, HouseRule.parse(args.house))
        compare.check_houses(spec, {compare.BASE: base})
    question, backend, out = compare.common_setup(args, {compare.BASE: base}, "tune", search=True)
    rules, history = search(question, params, target, keeps, args.trials, args.trial_games, backend, args.chunk,
                            not args.no_progress)
    if rules == base:
        best = min((t for t in history if "loss" in t), key=lambda t: t["loss"])
        raise ValueError(f"the rules already in use ({base.label()}) came closest to the target ({target.metric} "
                         f"{best[target.metric]:.4g} after {len(history)} trials): no variant to confirm")
    cat = catalogue(args.game)
    named = [g.metric for g in [target, *keeps] if g.metric in cat.names()]
    confirm = dataclasses.replace(question, variants={question.base: base, "tuned": rules},
                                  metrics=tuple(dict.fromkeys([*question.metrics, *named])))
    best_trial = min((t for t in history if "loss" in t), key=lambda t: (t["loss"], t["trial"]))
    tuned = {"target": dataclasses.asdict(target), "keep": [dataclasses.asdict(k) for k in keeps],
             "params": [dataclasses.asdict(p) for p in params], "trials": history, "trial_games": args.trial_games,
             "trial_range": [TRIAL_OFFSET, TRIAL_OFFSET + args.trial_games], "best": rules.changes()}
    analysis = compare.run_question(confirm, backend, out, args,
                                    extra=lambda a: {"tune": {**tuned, **confirmation(a, target, keeps, best_trial)}})
    print(f"tuned: {rules.label()} — written as [tuned] in {out.path / 'variants.toml'}")
    print(analysis["tune"]["verdict"])
    for w in analysis["tune"]["warnings"]:
        print(f"warning: {w}")
    return 0


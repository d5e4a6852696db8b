"""Throughput where users meet the games, measured in one interleaved run: decisions per second.

Subjects, for Airport Scramble and Flight Tycoon (default rules; Flight Tycoon with 4 players, the
shipped model's table), all with observations and legal masks every decision:

- ``reference``: the plain-Python reference engine, random legal play (the oracle; the yardstick);
- ``env``: the single-game environment as users make it — ``gymnasium.make("aerodeck/AirportScramble-v0")``,
  ``aerodeck.envs.flight_tycoon_v0.env()`` (PettingZoo AEC, wrapped) — random legal play;
- ``core B=1 / 256 / 4096``: the batched core, random legal play, finished games restarted at once;
- ``heuristic B=4096`` / ``ppo B=4096``: the agents (``aerodeck.agents.registry.make_agent``) deciding on the
  core at B = 4096, finished games restarted at once;
- ``bench heuristic`` / ``bench ppo``: ``aerodeck bench``'s own play (``aerodeck.bench.bench.Plan``,
  in process), its games/s;
- ``leduc_holdem_v4``: PettingZoo's classic AEC card game, random legal play (the outside yardstick);
- ``pgx leduc B=…``: Pgx's ``leduc_holdem`` on the CPU (JAX, one thread like every other subject:
  ``vmap`` + ``jit``, auto-reset, observation computed by every step), random legal play, at the
  core's batch sizes — the batched peer (the ``pgx`` extra; skipped without JAX). Each core row also
  gets its ratio to Pgx at the same B.

Every subject runs ``--seconds`` per round (a bench plays ``--bench-games`` games) and the rounds
interleave the subjects, so each ratio compares figures taken under the same machine load: the
median over rounds of (subject / reference of its game) and (subject / leduc). Bench subjects
count games, so their ratios are games/s over the reference's (or leduc's) games/s. Prints a table
and writes ``throughput.json`` under ``--out`` (default ``out/benchmarks/``). ``--profile`` adds where
a core step at B = 4096 and a bench run (under cProfile) spend their time.

    .venv/bin/python benchmarks/throughput.py                       # 3 rounds of 2 s per subject
    .venv/bin/python benchmarks/throughput.py --seconds 0.5 --rounds 1 --game airport-scramble
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))

from aerodeck import envs  # noqa: E402
from aerodeck.envs.common.batch import padded_mask, sample_legal  # noqa: E402

GAMES = ("airport-scramble", "flight-tycoon")
LEDUC = "leduc_holdem_v4"
#: The rules every subject of a game plays (Flight Tycoon: the shipped ppo model's table).
RULE_OPTIONS = {"airport-scramble": {}, "flight-tycoon": {"n_players": 4}}


class Subject:
    """Something that plays for a while: ``run(seconds) -> (decisions, games ended, elapsed seconds)``."""

    unit = "decisions"

    def run(self, seconds: float) -> tuple[int, int, float]:
        raise NotImplementedError


class Reference(Subject):
    """Random legal play on the reference engine, one game at a time (observation, mask, step)."""

    def __init__(self, game: str, rules) -> None:
        module = envs.spec(game).core.split(":")[0].rsplit(".", 1)[0] + ".reference"
        self.make = __import__(module, fromlist=["ReferenceGame"]).ReferenceGame
        self.rules, self.seed, self.solo = rules, 0, envs.spec(game).solo
        self.rng = np.random.default_rng(0)
        self.game = self.make(rules, 0)

    def run(self, seconds: float) -> tuple[int, int, float]:
        decisions = ended = 0
        began = time.perf_counter()
        while time.perf_counter() - began < seconds:
            for _ in range(50):
                game = self.game
                game.observe() if self.solo else game.observe(game.to_act)
                legal = np.flatnonzero(game.legal_mask())
                game.step(int(legal[self.rng.integers(legal.size)]))
                decisions += 1
                if game.done:
                    ended += 1
                    self.seed += 1
                    self.game = self.make(self.rules, self.seed)
        return decisions, ended, time.perf_counter() - began


class GymEnv(Subject):
    """Random legal play through a Gymnasium env (``info["action_mask"]``), reset at each end."""

    def __init__(self, env) -> None:
        self.env = env
        self.rng = np.random.default_rng(0)
        self.obs, self.info = env.reset(seed=0)

    def run(self, seconds: float) -> tuple[int, int, float]:
        env, decisions, ended = self.env, 0, 0
        began = time.perf_counter()
        while time.perf_counter() - began < seconds:
            for _ in range(50):
                legal = np.flatnonzero(self.info["action_mask"])
                self.obs, _, terminated, truncated, self.info = env.step(int(legal[self.rng.integers(legal.size)]))
                decisions += 1
                if terminated or truncated:
                    ended += 1
                    self.obs, self.info = env.reset()
        return decisions, ended, time.perf_counter() - began


class AEC(Subject):
    """Random legal play through a PettingZoo AEC env (ours or a classic peer), seeded once."""

    def __init__(self, make) -> None:
        self.env = make()
        self.env.reset(seed=0)
        self.rng = np.random.default_rng(0)

    def run(self, seconds: float) -> tuple[int, int, float]:
        env, decisions, ended = self.env, 0, 0
        began = time.perf_counter()
        while time.perf_counter() - began < seconds:
            for _ in range(50):
                if not env.agents:
                    ended += 1
                    env.reset()
                obs, _, terminated, truncated, _ = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[self.rng.integers(legal.size)]))
                decisions += 1
        return decisions, ended, time.perf_counter() - began


class Core(Subject):
    """B games on the batched core (actions unchecked: they come from the mask), observation and mask
    every decision, each written into a buffer reused step after step as a training loop does
    (``out=``), finished games restarted at once (``core.reset``). ``agent``: None for uniform
    random legal play, else an ``aerodeck.agents.base.Agent`` that decides every game."""

    PARTS = ("to_act", "observe", "legal_mask", "decide", "step", "restart")

    def __init__(self, game: str, rules, batch: int, agent=None) -> None:
        self.core = envs.spec(game).make_core(rules, check_actions=False)
        self.solo = self.core.n_players == 1
        self.batch, self.agent = batch, agent
        self.state = self.core.init(np.arange(batch))
        self.next_seed = batch
        self.rng = np.random.default_rng(0)
        self.buffer, self.mask = padded_mask(batch, self.core.n_actions)
        self.obs = np.empty((batch, self.core.obs_size), np.float32)
        self.clock = dict.fromkeys(self.PARTS, 0.0)

    def decide(self, timed: bool = False) -> tuple[int, int]:
        """One decision in every game; ``(decisions played, games ended)``."""
        core, st = self.core, self.state
        ticks = [time.perf_counter()]
        seat = None if self.solo else np.maximum(core.to_act(st), 0)
        ticks.append(time.perf_counter())
        core.observe(st, seat, out=self.obs)
        ticks.append(time.perf_counter())
        core.legal_mask(st, out=self.mask)
        ticks.append(time.perf_counter())
        if self.agent is None:
            actions = sample_legal(self.buffer, self.rng.random(self.batch))
        else:
            actions = self.agent.act(self.obs, self.mask)
        ticks.append(time.perf_counter())
        live = int(self.batch - st.done.sum())
        core.step(st, actions)
        ticks.append(time.perf_counter())
        ended = np.flatnonzero(st.done)
        if ended.size:
            core.reset(st, ended, np.arange(self.next_seed, self.next_seed + ended.size))
            self.next_seed += ended.size
        ticks.append(time.perf_counter())
        if timed:
            for name, a, b in zip(self.PARTS, ticks, ticks[1:]):
                self.clock[name] += b - a
        return live, int(ended.size)

    def run(self, seconds: float) -> tuple[int, int, float]:
        decisions = ended = 0
        began = time.perf_counter()
        while time.perf_counter() - began < seconds:
            d, e = self.decide()
            decisions, ended = decisions + d, ended + e
        return decisions, ended, time.perf_counter() - began


class Bench(Subject):
    """``aerodeck bench GAME --agent NAME --games N`` in process (its output into a scratch folder);
    counts games, as the command reports them."""

    unit = "games"

    def __init__(self, game: str, rules, agent: str, games: int) -> None:
        from aerodeck.bench.bench import Plan

        self.plan = Plan.build(envs.spec(game), rules, [agent], games, 0)
        self.games = games
        self.scratch = tempfile.TemporaryDirectory(prefix="aerodeck-bench-")

    def run(self, seconds: float) -> tuple[int, int, float]:
        began = time.perf_counter()
        result = self.plan.run(Path(self.scratch.name), progress=False)
        elapsed = time.perf_counter() - began
        games = result.get("games", self.games)
        return 0, games, elapsed


class PgxLeduc(Subject):
    """Pgx's ``leduc_holdem`` stepped ``batch`` games at a time with JAX on the CPU (``jit(vmap(step))``
    with Pgx's auto-reset; the observation is part of Pgx's state, computed every step), actions drawn
    uniformly from the legal mask inside the same compiled step."""

    def __init__(self, batch: int) -> None:
        import os

        if "jax" not in sys.modules:  # one thread, as the numpy subjects and torch here run
            os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
        import jax
        import jax.numpy as jnp
        import pgx
        from pgx.experimental import auto_reset

        env = pgx.make("leduc_holdem")
        step = jax.vmap(auto_reset(env.step, env.init))

        def play(state, key):
            pick, reset = jax.random.split(key)
            actions = jax.random.categorical(pick, jnp.where(state.legal_action_mask, 0.0, -jnp.inf), axis=-1)
            return step(state, actions, jax.random.split(reset, batch))

        self.jax, self.batch = jax, batch
        self.play = jax.jit(play)
        self.key = jax.random.PRNGKey(0)
        self.state = jax.jit(jax.vmap(env.init))(jax.random.split(self.key, batch))
        self.state = self.play(self.state, self.key)  # compile

    def run(self, seconds: float) -> tuple[int, int, float]:
        decisions = ended = 0
        began = time.perf_counter()
        while time.perf_counter() - began < seconds:
            for _ in range(10):
                self.key, key = self.jax.random.split(self.key)
                self.state = self.play(self.state, key)
                ended += int(self.state.terminated.sum())  # also waits for the step
                decisions += self.batch
        return decisions, ended, time.perf_counter() - began


def leduc() -> Subject:
    from pettingzoo.classic import leduc_holdem_v4

    return AEC(leduc_holdem_v4.env)


def make_agent(game: str, name: str, rules):
    from aerodeck.agents.registry import make_agent as make

    return make(game, name, rules, seed=0)


def single_env(game: str, rules) -> Subject:
    """The single-game env of ``game`` as its users make it."""
    if envs.spec(game).solo:
        import gymnasium

        return GymEnv(gymnasium.make(envs.spec(game).gym_id, **rules.to_dict()))
    from aerodeck.envs import flight_tycoon_v0

    return AEC(lambda: flight_tycoon_v0.env(**rules.to_dict()))


def subjects(games: list[str], sizes: list[int], agents: list[str], bench_games: int, skipped: dict) -> dict:
    """``{(game, subject name): Subject}``; subjects that cannot be built here go to ``skipped``."""
    found: dict[tuple[str, str], Subject] = {}
    for game in games:
        rules = envs.spec(game).make_rules(**RULE_OPTIONS[game])
        found[game, "reference"] = Reference(game, rules)
        found[game, "env"] = single_env(game, rules)
        for b in sizes:
            found[game, f"core B={b}"] = Core(game, rules, b)
        for name in agents:
            try:
                found[game, f"{name} B={max(sizes)}"] = Core(game, rules, max(sizes), make_agent(game, name, rules))
                if bench_games:
                    found[game, f"bench {name}"] = Bench(game, rules, name, bench_games)
            except (ValueError, ImportError, OSError) as err:  # e.g. ppo without the train extra
                skipped[f"{game} {name}"] = str(err)
    found["pettingzoo", LEDUC] = leduc()
    for b in sizes:
        try:
            found["pgx", f"leduc B={b}"] = PgxLeduc(b)
        except ImportError as err:  # the pgx extra (JAX) is not installed
            skipped[f"pgx leduc B={b}"] = str(err)
    return found


def profile(game: str, batch: int, steps: int) -> dict[str, float]:
    """Milliseconds per batched decision in each part of the core loop at ``batch`` games."""
    subject = Core(game, envs.spec(game).make_rules(**RULE_OPTIONS[game]), batch)
    for _ in range(10):
        subject.decide()
    for _ in range(steps):
        subject.decide(timed=True)
    return {name: 1e3 * total / steps for name, total in subject.clock.items()}


#: Where a bench's time goes: ``(label, file, function)`` of the calls ``profile_bench`` reports.
BENCH_PARTS = (
    ("play", "aerodeck/arena/loop.py", "play_games"),
    ("network", "agents/ppo.py", "_forward"),
    ("ratings", "aerodeck/arena/tournament.py", "update"),
    ("report", "aerodeck/bench/report.py", "write_bench"),
)


def profile_bench(subject: Bench) -> dict[str, float]:
    """Seconds of one run of a bench subject under cProfile: the whole run and each of
    :data:`BENCH_PARTS` (cumulative: ``network`` lies within ``play``). The profiler slows the Python
    calls more than the network's matrix products, so the network's share is if anything understated."""
    import cProfile
    import pstats

    profiler = cProfile.Profile()
    began = time.perf_counter()
    profiler.runcall(subject.run, 0.0)
    spent = {"total": time.perf_counter() - began}
    stats = pstats.Stats(profiler).stats
    for label, file, function in BENCH_PARTS:
        spent[label] = sum(row[3] for (path, _, name), row in stats.items()
                           if name == function and Path(path).as_posix().endswith(file))
    return spent


def measure(found: dict, seconds: float, rounds: int) -> tuple[dict, dict]:
    """Interleaved rounds: ``(rates, game rates)``, each ``{key: [per round]}`` (decisions/s, games/s)."""
    for subject in found.values():  # warm-up (a bench warms up by its first round)
        if subject.unit == "decisions":
            subject.run(min(0.3, seconds))
    rates = {key: [] for key in found}
    game_rates = {key: [] for key in found}
    for _ in range(rounds):
        for key, subject in found.items():
            decisions, ended, spent = subject.run(seconds)
            rates[key].append(decisions / spent)
            game_rates[key].append(ended / spent)
    return rates, game_rates


def ratios(rates: dict, game_rates: dict, found: dict) -> dict:
    """Per subject: median decisions/s (games/s for a bench) and the medians over rounds of its ratio
    to its game's reference engine and to leduc (games/s against games/s for a bench)."""
    rows = {}
    for (game, name), values in rates.items():
        own = game_rates if found[game, name].unit == "games" else rates
        ref = own.get((game, "reference"), own[("pettingzoo", LEDUC)])
        led = own[("pettingzoo", LEDUC)]
        rows[f"{game} {name}"] = {
            "game": game, "subject": name, "unit": found[game, name].unit + "/s",
            "rate": statistics.median(own[game, name]), "runs": own[game, name],
            "games_per_s": statistics.median(game_rates[game, name]),
            "vs_reference": median_ratio(own[game, name], ref),
            "vs_leduc": median_ratio(own[game, name], led),
        }
        pgx = ("pgx", "leduc " + name.removeprefix("core ")) if name.startswith("core B=") else None
        rows[f"{game} {name}"]["vs_pgx"] = median_ratio(own[game, name], own[pgx]) if pgx in own else None
    return rows


def median_ratio(rates: list[float], yardstick: list[float]) -> float | None:
    """The median over rounds of ``rates / yardstick`` (None if the yardstick never moved, e.g. no
    game ended within a very short round)."""
    pairs = [a / b for a, b in zip(rates, yardstick) if b]
    return statistics.median(pairs) if pairs else None


def print_table(rows: dict, title: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for column, justify in (("game", "left"), ("subject", "left"), ("rate (median)", "right"),
                            ("unit", "left"), ("× reference", "right"), ("× leduc AEC", "right"),
                            ("× Pgx leduc, same B", "right")):
        table.add_column(column, justify=justify)
    for row in rows.values():
        ratios_ = ["–" if x is None else f"{x:,.2f}" for x in (row["vs_reference"], row["vs_leduc"], row["vs_pgx"])]
        table.add_row(row["game"], row["subject"], f"{row['rate']:,.0f}", row["unit"], *ratios_)
    Console(width=None if sys.stdout.isatty() else 120).print(table)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds per subject and round (default 2)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    parser.add_argument("--game", action="append", choices=GAMES, help="only this game (repeatable; default both)")
    parser.add_argument("--sizes", default="1,256,4096", help="core batch sizes (default 1,256,4096)")
    parser.add_argument("--agents", default="heuristic,ppo", help="agents deciding on the core at the largest B")
    parser.add_argument("--bench-games", type=int, default=2048,
                        help="games per round of each `aerodeck bench` subject (0: none; default 2048)")
    parser.add_argument("--profile", action="store_true",
                        help="also time the parts of a core step at the largest B and of a bench run (cProfile)")
    parser.add_argument("--out", type=Path, default=Path("out") / "benchmarks", help="output folder (default out/benchmarks)")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1:
        raise SystemExit("--seconds must be positive and --rounds at least 1")
    games = args.game or list(GAMES)
    sizes = sorted({int(s) for s in args.sizes.split(",")})
    agents = [a for a in args.agents.split(",") if a]
    try:
        import torch

        torch.set_num_threads(1)  # as the bench's workers run
    except ImportError:
        pass
    skipped: dict[str, str] = {}
    found = subjects(games, sizes, agents, args.bench_games, skipped)
    rates, game_rates = measure(found, args.seconds, args.rounds)
    rows = ratios(rates, game_rates, found)
    title = f"decisions/s, random legal play unless an agent is named; {args.rounds} rounds × {args.seconds:g} s"
    print_table(rows, title)
    for what, why in skipped.items():
        print(f"skipped {what}: {why}")
    result = {
        "benchmark": "throughput", "seconds": args.seconds, "rounds": args.rounds,
        "rules": {g: envs.spec(g).make_rules(**RULE_OPTIONS[g]).to_dict() for g in games},
        "machine": {"python": platform.python_version(), "numpy": np.__version__,
                    "processor": platform.processor() or platform.machine(), "platform": platform.platform()},
        "results": rows, "skipped": skipped,
    }
    if args.profile:
        result["profile_ms_per_step"] = {g: profile(g, max(sizes), 50) for g in games}
        for g, parts in result["profile_ms_per_step"].items():
            print(f"{g}: a core step at B={max(sizes)} (ms): " + ", ".join(f"{k} {v:.2f}" for k, v in parts.items())
                  + f", total {sum(parts.values()):.2f}")
        benches = {f"{g} {name}": subject for (g, name), subject in found.items() if isinstance(subject, Bench)}
        result["profile_bench_s"] = {key: profile_bench(subject) for key, subject in benches.items()}
        for key, parts in result["profile_bench_s"].items():
            print(f"{key}, {args.bench_games} games, under cProfile (s): "
                  + ", ".join(f"{k} {v:.2f}" for k, v in parts.items()))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "throughput.json"
    path.write_text(json.dumps(result, indent=2))
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

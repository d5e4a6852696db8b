"""Flight Tycoon throughput: decisions per second of random legal play, observations and masks included.

Subjects, measured in interleaved rounds so that every ratio compares figures taken under the same
machine load: the reference engine (one game in plain Python), the AEC environment
(``envs.flight_tycoon_v0``), the batched core at B = 1, 64, 1024, 4096 (actions unchecked:
``check_actions=False``, as in rollouts — the random player draws from the legal mask), and PettingZoo's classic
``texas_holdem_v4`` and ``leduc_holdem_v4`` (seeded once, not at every reset). Prints a table and writes
JSON to ``benchmarks/results/flight_tycoon_throughput.json``.

    .venv/bin/python benchmarks/flight_tycoon_throughput.py            # 3 rounds of 3 s per subject
    .venv/bin/python benchmarks/flight_tycoon_throughput.py --profile  # also: where a core step's time goes
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from envs.common.batch import sample_legal  # noqa: E402
from envs.flight_tycoon.core import FlightTycoonCore  # noqa: E402
from envs.flight_tycoon.reference import ReferenceGame  # noqa: E402
from envs.flight_tycoon.rules import FlightTycoonRules  # noqa: E402
from envs.flight_tycoon.state import State  # noqa: E402
from envs.flight_tycoon_v0 import env  # noqa: E402

TARGETS = {"core_decisions_per_s": 1_000_000, "vs_reference": 200, "vs_leduc": 100}


class Reference:
    """Random play on the reference engine: observe the seat to act, its mask, a random legal action."""

    def __init__(self, rules):
        self.rules, self.seed = rules, 0
        self.rng = np.random.default_rng(0)
        self.game = ReferenceGame(rules, 0)

    def run(self, seconds: float) -> tuple[int, float]:
        done, began = 0, time.perf_counter()
        while time.perf_counter() - began < seconds:
            for _ in range(100):
                game = self.game
                game.observe(game.to_act)
                legal = np.flatnonzero(game.legal_mask())
                game.step(int(legal[self.rng.integers(legal.size)]))
                done += 1
                if game.done:
                    self.seed += 1
                    self.game = ReferenceGame(self.rules, self.seed)
        return done, time.perf_counter() - began


class AEC:
    """Random play through a PettingZoo AEC environment (ours or a classic peer), seeded once."""

    def __init__(self, make):
        self.env = make()
        self.env.reset(seed=0)
        self.rng = np.random.default_rng(0)

    def run(self, seconds: float) -> tuple[int, float]:
        environment, done, began = self.env, 0, time.perf_counter()
        while time.perf_counter() - began < seconds:
            for _ in range(100):
                if not environment.agents:
                    environment.reset()
                obs, _, term, trunc, _ = environment.last()
                if term or trunc:
                    environment.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"])
                environment.step(int(legal[self.rng.integers(legal.size)]))
                done += 1
        return done, time.perf_counter() - began


class Core:
    """Random play on the batched core: B games; finished games restart from games dealt in bulk (the
    dealing is timed too). Observations go into one reused buffer (``observe(..., out=...)``)."""

    def __init__(self, rules, batch: int):
        self.core = FlightTycoonCore(rules, check_actions=False)
        self.batch = batch
        self.rng = np.random.default_rng(0)
        self.next_seed = 0
        self.reserve: State | None = None
        self.reserve_at = 0
        self.state = self._fresh(batch).copy()
        self.observations = np.empty((batch, self.core.obs_size), np.float32)  # reused, as a training loop would
        self.clock = {"to_act": 0.0, "observe": 0.0, "legal_mask": 0.0, "sample_legal": 0.0, "step": 0.0,
                      "restart": 0.0}

    def _fresh(self, count: int) -> State:
        parts = []
        while count:
            if self.reserve is None or self.reserve_at == self.reserve.batch_size:
                size = max(self.batch, 256)
                self.reserve = self.core.init(np.arange(self.next_seed, self.next_seed + size))
                self.next_seed += size
                self.reserve_at = 0
            take = min(count, self.reserve.batch_size - self.reserve_at)
            parts.append(self.reserve.take(slice(self.reserve_at, self.reserve_at + take)))
            self.reserve_at += take
            count -= take
        return parts[0] if len(parts) == 1 else State.concatenate(parts)

    def decide(self, timed: bool = False) -> int:
        core, st = self.core, self.state
        ticks = [time.perf_counter()]
        seat = core.to_act(st)
        ticks.append(time.perf_counter())
        core.observe(st, np.maximum(seat, 0), out=self.observations)
        ticks.append(time.perf_counter())
        mask = core.legal_mask(st)
        ticks.append(time.perf_counter())
        actions = sample_legal(mask, self.rng.random(self.batch))
        ticks.append(time.perf_counter())
        live = int((~st.done).sum())
        core.step(st, actions)
        ticks.append(time.perf_counter())
        finished = np.flatnonzero(st.done)
        if finished.size:
            st.put(finished, self._fresh(finished.size))
        ticks.append(time.perf_counter())
        if timed:
            for name, a, b in zip(self.clock, ticks, ticks[1:]):
                self.clock[name] += b - a
        return live

    def run(self, seconds: float) -> tuple[int, float]:
        done, began = 0, time.perf_counter()
        while time.perf_counter() - began < seconds:
            done += self.decide()
        return done, time.perf_counter() - began


def subjects(rules, sizes: list[int]) -> dict:
    from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4

    found = {"reference": Reference(rules), "aec_env": AEC(lambda: env(**rules.to_dict()))}
    for b in sizes:
        found[f"core_B{b}"] = Core(rules, b)
    found["texas_holdem_v4"] = AEC(texas_holdem_v4.env)
    found["leduc_holdem_v4"] = AEC(leduc_holdem_v4.env)
    return found


def profile(rules, batch: int, steps: int) -> dict[str, float]:
    """Milliseconds per batched decision spent in each part of the core loop at ``batch`` games."""
    subject = Core(rules, batch)
    for _ in range(20):
        subject.decide()
    for _ in range(steps):
        subject.decide(timed=True)
    return {name: 1e3 * total / steps for name, total in subject.clock.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per subject and round (default 3)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved measurement rounds (default 3)")
    parser.add_argument("--sizes", default="1,64,1024,4096", help="core batch sizes (default 1,64,1024,4096)")
    parser.add_argument("--rule", action="append", default=[], metavar="KEY=VALUE", help="a rule option (repeatable)")
    parser.add_argument("--profile", action="store_true", help="also time the parts of a core step at the largest B")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "flight_tycoon_throughput.json"))
    args = parser.parse_args(argv)
    rules = FlightTycoonRules.from_strings(args.rule)
    sizes = [int(s) for s in args.sizes.split(",")]
    runs = subjects(rules, sizes)
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for name, subject in runs.items():  # warm-up
        subject.run(min(0.5, args.seconds))
    for _ in range(args.rounds):
        for name, subject in runs.items():
            done, spent = subject.run(args.seconds)
            rates[name].append(done / spent)
    biggest = f"core_B{max(sizes)}"
    ratios = {}
    for other in ("reference", "leduc_holdem_v4", "texas_holdem_v4", "aec_env"):
        per_round = [a / b for a, b in zip(rates[biggest], rates[other])]
        ratios[f"{biggest}_vs_{other}"] = statistics.median(per_round)
    for name in rates:
        if name != "reference":
            ratios[f"{name}_vs_reference"] = statistics.median(a / b for a, b in zip(rates[name], rates["reference"]))
    median = {name: statistics.median(values) for name, values in rates.items()}
    met = {
        "core_decisions_per_s": median[biggest] >= TARGETS["core_decisions_per_s"],
        "vs_reference": ratios[f"{biggest}_vs_reference"] >= TARGETS["vs_reference"],
        "vs_leduc": ratios[f"{biggest}_vs_leduc_holdem_v4"] >= TARGETS["vs_leduc"],
    }
    print(f"Flight Tycoon random play, {rules.label()} rules, {args.rounds} rounds × {args.seconds:g} s")
    print(f"{'subject':<18}{'decisions/s (median)':>22}{'min':>14}{'max':>14}{'× reference':>13}")
    for name, values in rates.items():
        ratio = median[name] / median["reference"] if name == "reference" else ratios[f"{name}_vs_reference"]
        print(f"{name:<18}{median[name]:>22,.0f}{min(values):>14,.0f}{max(values):>14,.0f}{ratio:>13.1f}")
    print(f"{biggest}: × leduc_holdem_v4 {ratios[f'{biggest}_vs_leduc_holdem_v4']:.1f}, "
          f"× texas_holdem_v4 {ratios[f'{biggest}_vs_texas_holdem_v4']:.1f}")
    print("targets: " + ", ".join(f"{k} {'met' if v else 'NOT met'}" for k, v in met.items()))
    result = {
        "benchmark": "flight_tycoon_throughput", "rules": rules.to_dict(), "seconds": args.seconds,
        "rounds": args.rounds, "machine": {"python": platform.python_version(), "numpy": np.__version__,
                                           "processor": platform.processor() or platform.machine()},
        "decisions_per_s": rates, "median_decisions_per_s": median, "ratios": ratios, "targets": TARGETS,
        "targets_met": met,
    }
    if args.profile:
        parts = profile(rules, max(sizes), 200)
        result["profile_ms_per_step"] = parts
        print(f"where a step of {biggest} goes (ms): " + ", ".join(f"{k} {v:.3f}" for k, v in parts.items())
              + f", total {sum(parts.values()):.3f}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Airport Scramble heuristic speed: heuristic-driven play at B = 4096, the compiled heuristic
against the numpy planner it replaced (the frozen copy the tests compare it with), and the core's random
play, measured interleaved in one run; and the search agent (the heuristic is its rollout policy),
games/s with either heuristic.

    .venv/bin/python benchmarks/airport_scramble_heuristic.py [--seconds 3] [--repeats 3] [--batch 4096]
        [--search-games 20] [--seed 1] [--out out/]

Play loops: B games at once, legal mask and observation every decision, a finished game replaced by a
fresh deal at once (every decision counts: decisions/s = B · steps / s). Each configuration runs
``--repeats`` times for ``--seconds`` each, the configurations taking turns, and keeps its best rate
(other processes only ever slow a run down). The search agent plays ``--search-games`` games to the end
(as ``aerodeck bench airport-scramble --agent search`` does) with each heuristic, same seeds: the scores
must agree, the heuristics' scores being identical. Writes ``airport_scramble_heuristic.json`` under
``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:  # the frozen planner, this benchmark's reference point, lives beside it
    sys.path.insert(0, str(HERE))

from aerodeck import envs  # noqa: E402
from aerodeck.agents.airport_scramble.heuristic import HeuristicAgent  # noqa: E402
from aerodeck.agents.airport_scramble.search import SearchAgent  # noqa: E402
from aerodeck.agents.random import RandomAgent  # noqa: E402
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules  # noqa: E402
from airport_scramble_heuristic_v1.heuristic import HeuristicAgent as FrozenHeuristic  # noqa: E402

GAME = "airport-scramble"


class Loop:
    """B games played by ``agent`` with refills; ``round()`` plays one decision in every game."""

    def __init__(self, core, agent, state, next_seed: int) -> None:
        self.core, self.agent, self.state, self.next_seed = core, agent, state, next_seed

    def round(self) -> int:
        core, state = self.core, self.state
        masks, obs = core.legal_mask(state), core.observe(state)
        core.step(state, self.agent.act(obs, masks))
        ended = np.flatnonzero(state.done)
        if ended.size:
            core.reset(state, ended, np.arange(self.next_seed, self.next_seed + ended.size))
            self.next_seed += ended.size
        return state.batch_size


def timed(loop: Loop, seconds: float) -> float:
    """Decisions per second of ``loop`` over about ``seconds`` (at least one round)."""
    decisions, start = 0, time.perf_counter()
    while True:
        decisions += loop.round()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return decisions / elapsed


def search_games(rules, heuristic, n_games: int, seed: int) -> tuple[float, np.ndarray]:
    """Games/s of the search agent playing ``n_games`` to the end (one batch, as ``aerodeck bench``)
    with ``heuristic`` as its rollout policy and ranking; and the final scores."""
    spec = envs.spec(GAME)
    core = envs.make_core(GAME, rules)
    agent = SearchAgent(seed=seed, rules=rules)
    agent.heuristic = heuristic
    state = core.init(np.arange(seed * 100_000, seed * 100_000 + n_games))
    start = time.perf_counter()
    while not state.done.all():
        masks, obs = core.legal_mask(state), core.observe(state)
        core.step(state, agent.act(obs, masks, spec.make_view(core, state)))
    return n_games / (time.perf_counter() - start), state.score.astype(np.int64)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (default 3)")
    parser.add_argument("--repeats", type=int, default=3, help="measurements per configuration; the best counts")
    parser.add_argument("--batch", type=int, default=4096, help="games played at once (default 4096)")
    parser.add_argument("--warmup", type=int, default=40, help="decisions played before timing (default 40)")
    parser.add_argument("--search-games", type=int, default=20, help="games of the search agent (0: skip)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the deals and the search agent")
    parser.add_argument("--out", default="out", help="folder of the JSON results (default out/)")
    args = parser.parse_args(argv)
    rules = AirportScrambleRules()
    load_before = os.getloadavg()

    # One start for every loop: games dealt and played a little by the (fast) new heuristic, so that the
    # timed positions are a mix of early and late ones, not all fresh deals.
    core = envs.make_core(GAME, rules, check_actions=False)  # the agents play legal actions only
    warm = Loop(core, HeuristicAgent(rules=rules), core.init(np.arange(args.batch) + args.seed * 10**7),
                args.seed * 10**7 + args.batch)
    for _ in range(args.warmup):
        warm.round()
    loops = {
        "core, random play": Loop(core, RandomAgent(args.seed), warm.state.copy(), warm.next_seed),
        "heuristic (compiled)": Loop(core, HeuristicAgent(rules=rules), warm.state.copy(), warm.next_seed),
        "heuristic (numpy, before)": Loop(core, FrozenHeuristic(rules=rules), warm.state.copy(), warm.next_seed),
    }
    rates: dict[str, list[float]] = {name: [] for name in loops}
    for repeat in range(args.repeats):
        for name, loop in loops.items():
            rates[name].append(timed(loop, args.seconds))
            print(f"  [{repeat + 1}/{args.repeats}] {name}: {rates[name][-1]:,.0f} decisions/s", flush=True)
    best = {name: max(values) for name, values in rates.items()}
    core_rate, new, old = best["core, random play"], best["heuristic (compiled)"], best["heuristic (numpy, before)"]
    result = {
        "rules": rules.to_dict(), "batch": args.batch, "seconds": args.seconds, "repeats": args.repeats,
        "machine": platform.platform(), "processor": platform.processor(), "cpus": os.cpu_count(),
        "load_average_before": load_before,
        "decisions_per_second": best, "runs": rates,
        "heuristic_speedup": new / old,
        "core_over_heuristic": {"compiled": core_rate / new, "numpy (before)": core_rate / old},
        "targets": {"heuristic_speedup": 3.0, "core_over_heuristic": 10.0},
    }
    if args.search_games:
        heuristics = {"compiled": HeuristicAgent(rules=rules), "numpy (before)": FrozenHeuristic(rules=rules)}
        for name, heuristic in heuristics.items():
            games_per_second, scores = search_games(rules, heuristic, args.search_games, args.seed)
            result.setdefault("search_games_per_second", {})[name] = games_per_second
            result.setdefault("search_scores", {})[name] = scores.tolist()
            print(f"  search agent, {name} heuristic: {games_per_second:.2f} games/s", flush=True)
        search = result["search_games_per_second"]
        result["search_speedup"] = search["compiled"] / search["numpy (before)"]
        scores = result["search_scores"]
        result["search_same_scores"] = scores["compiled"] == scores["numpy (before)"]
    result["load_average_after"] = os.getloadavg()

    lines = [f"Airport Scramble heuristic, B = {args.batch} (best of {args.repeats} × {args.seconds:g} s; "
             f"load average {load_before[0]:.1f} before, {result['load_average_after'][0]:.1f} after, "
             f"{os.cpu_count()} CPUs)",
             f"{'configuration':<28}{'decisions/s':>14}{'core / this':>14}"]
    for name, rate in best.items():
        lines.append(f"{name:<28}{rate:>14,.0f}{core_rate / rate:>14.1f}")
    lines.append(f"heuristic speed-up (compiled / numpy): {new / old:.1f}×  (target ≥ 3×)")
    lines.append(f"core / heuristic-driven play: {core_rate / new:.1f} (target ≤ 10; numpy planner: "
                 f"{core_rate / old:.1f})")
    if args.search_games:
        search = result["search_games_per_second"]
        lines.append(f"search agent, {args.search_games} games: {search['compiled']:.2f} games/s compiled, "
                     f"{search['numpy (before)']:.2f} numpy → {result['search_speedup']:.1f}×; same scores: "
                     f"{result['search_same_scores']}")
    print("\n".join(lines))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "airport_scramble_heuristic.json"
    path.write_text(json.dumps(result, indent=2))
    print(f"written to {path}")
    return result


if __name__ == "__main__":
    main()

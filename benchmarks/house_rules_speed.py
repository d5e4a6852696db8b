"""What a house rule costs: games per second on the reference engine behind the core interface
(``aerodeck.envs.common.house.ReferenceCore``) against the batched core, in one run.

Subjects, each played on the same seeds through ``aerodeck.arena.loop.play_games`` (what ``compare`` plays):

- Airport Scramble, the worked example ``examples/house_rules/delivery_in_flight.py`` against the
  built-in ``pickup_in_flight=on`` on the batched core (the same games, so the same work);
- Flight Tycoon at 5 players, ``examples/house_rules/catchup.py`` against the default rules on the
  batched core (one card more in a hand: nearly the same work);

each judged by the heuristic and by a small search (its rollouts run on the engine of the rules). After
an untimed warm-up game of each subject, the rounds interleave the two engines, so each ratio (batched / reference games per second) compares figures
taken under the same machine load; the table gives the median over rounds. Prints the table and
writes ``house_rules_speed.json`` under ``--out`` (default ``out/benchmarks/``).

    .venv/bin/python benchmarks/house_rules_speed.py
    .venv/bin/python benchmarks/house_rules_speed.py --rounds 1 --games 50 --search-games 4
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from aerodeck import envs
from aerodeck.agents.registry import make_agent
from aerodeck.arena.loop import game_seeds, play_games
from aerodeck.envs.common.house import HouseRule, with_house

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "house_rules"
SEARCH = {"airport-scramble": "search:candidates=2,rollouts=2,horizon=8", "flight-tycoon": "search:samples=2,horizon=20"}


def subjects() -> list[tuple[str, dict, object, object]]:
    """(game, {engine: rules}) pairs: the batched core's rules and the house rule's."""
    a, f = envs.spec("airport-scramble"), envs.spec("flight-tycoon")
    in_flight = HouseRule.parse(f"{EXAMPLES}/delivery_in_flight.py:DeliveryInFlight")
    catchup = HouseRule.parse(f"{EXAMPLES}/catchup.py:LastSeatExtraCard")
    return [(a, {"core": a.make_rules(pickup_in_flight=True), "reference": with_house(a.make_rules(), in_flight)}),
            (f, {"core": f.make_rules(n_players=5), "reference": with_house(f.make_rules(n_players=5), catchup)})]


def games_per_second(spec, rules, agent: str, games: int, seed: int) -> tuple[float, float]:
    """Games per second and decisions per second of ``agent`` in every seat on ``games`` deals."""
    core = spec.make_core(rules, check_actions=False)
    seeds = game_seeds(seed, games)
    start = time.perf_counter()
    out = play_games(core, [make_agent(spec.id, agent, rules, seed=1)], seeds, progress=False,
                     make_view=spec.make_view, summary=spec.summary_of())
    seconds = time.perf_counter() - start
    return games / seconds, float(out["length"].sum()) / seconds


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=200, help="games per round for the heuristic (default 200)")
    p.add_argument("--search-games", type=int, default=8, help="games per round for the search (default 8)")
    p.add_argument("--rounds", type=int, default=2, help="rounds, the engines interleaved (default 2)")
    p.add_argument("--out", type=Path, default=Path("out/benchmarks"))
    args = p.parse_args(argv)
    figures: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    for spec, rules in subjects():  # warm up (compiled kernels, imports, the house rule's file), untimed
        for agent in ("heuristic", SEARCH[spec.id]):
            for rule in rules.values():
                games_per_second(spec, rule, agent, 1, 99)
    for r in range(args.rounds):
        for spec, rules in subjects():
            for agent, games in (("heuristic", args.games), (SEARCH[spec.id], args.search_games)):
                for engine, rule in rules.items():
                    figures.setdefault((spec.id, agent, engine), []).append(games_per_second(spec, rule, agent, games, r))
    rows = []
    for spec, _ in subjects():
        for agent in ("heuristic", SEARCH[spec.id]):
            core, ref = figures[(spec.id, agent, "core")], figures[(spec.id, agent, "reference")]
            ratio = statistics.median(c[0] / h[0] for c, h in zip(core, ref))
            rows.append({"game": spec.id, "agent": agent, "core_games_per_s": statistics.median(c[0] for c in core),
                         "reference_games_per_s": statistics.median(h[0] for h in ref),
                         "reference_decisions_per_s": statistics.median(h[1] for h in ref), "core_over_reference": ratio})
    print(f"{'game':<17} {'agent':<42} {'core games/s':>13} {'house rule games/s':>19} {'core / house':>13}")
    for row in rows:
        print(f"{row['game']:<17} {row['agent']:<42} {row['core_games_per_s']:>13.1f} "
              f"{row['reference_games_per_s']:>19.2f} {row['core_over_reference']:>12.0f}×")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "house_rules_speed.json").write_text(json.dumps({"rows": rows, "rounds": args.rounds,
                                                                 "games": args.games, "search_games": args.search_games},
                                                                indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

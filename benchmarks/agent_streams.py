"""The cost of per-game randomness: agents drawing from decision keys vs from one ``numpy`` Generator.

Every agent of a play loop draws its random choices from per-game decision keys (``aerodeck.agents.streams``),
so that a game is played the same way in any batch, chunk or worker. This times, in alternating
rounds on the same positions, (1) one decision of ``B`` games — the keys computed and drawn from, vs
the agent's Generator — for the random agent and the Flight Tycoon heuristic (its tie-break noise),
and (2) whole runs of ``aerodeck.arena.loop.play_games`` with the agent taking keys or not. Prints
each time ratio (keys / Generator; above 1 = the keys cost more) and writes ``agent_streams.json``
under ``--out`` (default ``out/benchmarks/``).

    .venv/bin/python benchmarks/agent_streams.py --batch 4096 --games 2000
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from aerodeck import envs  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from aerodeck.agents.streams import decision_keys  # noqa: E402
from aerodeck.arena.loop import game_seeds, play_games  # noqa: E402

#: (game, agent spec) timed.
AGENTS = (("airport-scramble", "random"), ("flight-tycoon", "random"), ("flight-tycoon", "heuristic"))


def one_decision(game: str, spec: str, batch: int, repeats: int, rounds: int) -> dict:
    """Seconds per decision of ``batch`` games (median over rounds), with keys and with the Generator."""
    core = envs.make_core(game)
    seeds = game_seeds(1, batch)
    state = core.init(seeds)
    agent = make_agent(game, spec, core.rules, seed=1)
    seat = np.maximum(core.to_act(state), 0)
    obs = core.observe(state) if core.n_players == 1 else core.observe(state, seat)
    masks = core.legal_mask(state)
    decisions = np.zeros(batch, np.int64)

    def keyed():
        return agent.act(obs, masks, keys=decision_keys(agent.key, seeds, decisions))

    def generator():
        return agent.act(obs, masks)

    return alternate({"keys": keyed, "generator": generator}, repeats, rounds)


def whole_runs(game: str, spec: str, games: int, batch: int, rounds: int) -> dict:
    """Seconds of ``play_games`` over ``games`` games (median over rounds), the agent taking keys or not."""
    core = envs.make_core(game, check_actions=False)
    seeds = game_seeds(2, games)
    keyed = make_agent(game, spec, core.rules, seed=1)
    plain = make_agent(game, spec, core.rules, seed=1)
    plain.takes_keys = False  # the play loop then calls it without keys: it draws from its Generator
    play = {name: (lambda a=a: play_games(core, [a], seeds, batch_size=batch, progress=False))
            for name, a in (("keys", keyed), ("generator", plain))}
    return alternate(play, 1, rounds)


def alternate(calls: dict, repeats: int, rounds: int) -> dict:
    """Median seconds per call of each of ``calls`` (name -> callable), timed in alternating rounds."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for name, call in calls.items():  # warm up
        call()
    for _ in range(rounds):
        for name, call in calls.items():
            began = time.perf_counter()
            for _ in range(repeats):
                call()
            times[name].append((time.perf_counter() - began) / repeats)
    out = {name: statistics.median(t) for name, t in times.items()}
    out["ratio"] = out["keys"] / out["generator"]
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=4096, help="games per batch (default 4096)")
    parser.add_argument("--games", type=int, default=2000, help="games per whole run (default 2000)")
    parser.add_argument("--repeats", type=int, default=20, help="decisions per timing (default 20)")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    parser.add_argument("--out", type=Path, default=Path("out") / "benchmarks",
                        help="output folder (default out/benchmarks)")
    args = parser.parse_args(argv)
    results = {"batch": args.batch, "games": args.games, "decision": {}, "run": {}}
    for game, spec in AGENTS:
        name = f"{game} {spec}"
        d = results["decision"][name] = one_decision(game, spec, args.batch, args.repeats, args.rounds)
        r = results["run"][name] = whole_runs(game, spec, args.games, args.batch, max(1, args.rounds // 2))
        print(f"{name:32s} one decision of {args.batch}: keys/generator {d['ratio']:.2f}x   "
              f"play_games of {args.games}: keys/generator {r['ratio']:.2f}x")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "agent_streams.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out / 'agent_streams.json'}")


if __name__ == "__main__":
    main()

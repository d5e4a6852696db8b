"""Where does the search's gain over the heuristic come from? (issue 20, Airport Scramble)

The search agent (the heuristic's 4 best candidates × 32 heuristic rollouts) plays the heuristic's
choice unless a rollout-valued candidate beats it. This probe plays it restricted: ``search:only=K``
(the agent's ``only`` knob) may depart from the heuristic only to a candidate of one kind K of action
(AS-19's blocks: a flight, a play, a replace, a wait, an AS-15 line removal); its other candidates
are not tried. The heuristic, the full search and each restricted search play the same ``--games``
deals (the searches with the same decision keys, so the same rollout streams wherever their games
agree). Printed per agent: mean score, − heuristic paired (95 % Student-t interval), the share of its
decisions that depart from the heuristic and the kinds of those departures (the heuristic's choice ->
the agent's); ``--agent`` adds any agent, e.g. the shipped ``ppo``, counted the same way. The sum of
the restricted gains against the full search's says whether the kinds add up or interact.

Writes ``search_gain_by_kind.json`` under ``--out`` (default ``out/benchmarks/``).

    .venv/bin/python research/search_gain_by_kind.py --games 4000
    .venv/bin/python research/search_gain_by_kind.py --games 4000 --kinds play replace --no-full --agent ppo
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from aerodeck import envs  # noqa: E402
from aerodeck.agents.airport_scramble.search import DEPARTURE_KINDS  # noqa: E402
from aerodeck.agents.base import Agent  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from aerodeck.envs.airport_scramble.actions import KINDS  # noqa: E402
from aerodeck.envs.common.rng import game_seeds  # noqa: E402
from aerodeck.arena.loop import agent_seed, play_games  # noqa: E402
from aerodeck.stats.estimates import mean_ci  # noqa: E402

GAME = "airport-scramble"


class Departures(Agent):
    """Plays ``agent`` and counts where it departs from the heuristic (deterministic) on the same
    observations: ``decisions`` (live ones) and ``departures`` {"from->to": count} by kind."""

    def __init__(self, agent: Agent) -> None:
        super().__init__(0, agent.rules)
        self.agent, self.name, self.needs_view, self.key = agent, agent.name, agent.needs_view, agent.key
        self.heuristic = make_agent(GAME, "heuristic", agent.rules)
        self.kind_of = np.array(KINDS)[self.heuristic.geo.actions.index_kinds()]
        self.decisions = 0
        self.departures: Counter = Counter()

    def act(self, observations, masks, view=None, keys=None):
        out = self.agent.act(observations, masks, view, keys) if self.agent.takes_keys else \
            self.agent.act(observations, masks, view)
        choice = self.heuristic.act(observations, masks)
        live = np.asarray(masks, bool).any(axis=1)
        self.decisions += int(live.sum())
        departed = live & (out != choice)
        self.departures.update(f"{a}->{b}" for a, b in zip(self.kind_of[choice[departed]], self.kind_of[out[departed]]))
        return out


def bench(kinds: list[str], full: bool, also: list[str], games: int, seed: int) -> dict:
    """Each agent on the same ``games`` deals of ``seed``: {name: (scores float64 (games,), seconds,
    decisions, departures by kind)}. The searches share one agent seed (so their rollout streams);
    ``also``: more agents by spec."""
    spec = envs.spec(GAME)
    rules = spec.rules_class()()
    core = spec.make_core(rules, check_actions=False)
    searches = (["search"] if full else []) + [f"search:only={k}" for k in kinds]
    agents = {"heuristic": make_agent(GAME, "heuristic", rules, seed=agent_seed(seed, 0)),
              **{name: Departures(make_agent(GAME, name, rules, seed=agent_seed(seed, 1))) for name in searches},
              **{name: Departures(make_agent(GAME, name, rules, seed=agent_seed(seed, 2))) for name in also}}
    out = {}
    for name, agent in agents.items():
        began = time.perf_counter()
        result = play_games(core, [agent], game_seeds(seed, games), make_view=spec.make_view, progress=name)
        out[name] = (result["score"][:, 0], time.perf_counter() - began, getattr(agent, "decisions", 0),
                     dict(getattr(agent, "departures", {})))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="deals every agent plays")
    parser.add_argument("--kinds", nargs="*", choices=DEPARTURE_KINDS, default=list(DEPARTURE_KINDS),
                        help="the kinds of departure, one restricted search each")
    parser.add_argument("--no-full", action="store_true", help="leave the (unrestricted) search out")
    parser.add_argument("--agent", action="append", default=[], metavar="SPEC",
                        help="one more agent whose departures are counted, e.g. ppo (repeatable)")
    parser.add_argument("--seed", type=int, default=20261213)
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "benchmarks")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    if not 0 <= args.seed < 2**64:
        parser.error(f"--seed must be in 0..2**64-1, got {args.seed}")
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        played = bench(args.kinds, not args.no_full, args.agent, args.games, args.seed)
    except ValueError as err:  # an agent spec this game does not take
        parser.error(str(err))
    heuristic = played["heuristic"][0]
    result = {"games": args.games, "seed": args.seed, "agents": {}}
    for name, (score, seconds, decisions, departures) in played.items():
        diff = mean_ci(score - heuristic)
        row = {"mean": float(score.mean()), "games_per_second": args.games / seconds,
               "minus_heuristic": (diff.value, diff.low, diff.high), "decisions": decisions,
               "departures": departures}
        result["agents"][name] = row
        line = f"  {name:>22}: {row['mean']:.3f}  ({row['games_per_second']:.1f} games/s)"
        if name != "heuristic":
            shares = ", ".join(f"{k} {n / decisions:.4f}" for k, n in sorted(departures.items(), key=lambda kv: -kv[1]))
            line += (f"  − heuristic {diff.value:+.3f} [{diff.low:+.3f}, {diff.high:+.3f}]  departs on "
                     f"{sum(departures.values()) / decisions:.4f} of {decisions:,} decisions ({shares or 'none'})")
        print(line)
    restricted = [name for name in played if name.startswith("search:only=")]
    if "search" in played and restricted:
        total = sum(result["agents"][name]["minus_heuristic"][0] for name in restricted)
        print(f"  the restricted gains add up to {total:+.3f}; the full search's: "
              f"{result['agents']['search']['minus_heuristic'][0]:+.3f}")
    path = args.out / "search_gain_by_kind.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Where does the Flight Tycoon search's gain come from? (issue 20; Airport Scramble's probe:
``search_gain_by_kind.py``)

A Flight Tycoon decision is of one kind (FT-16: tower, request, give, discard). The probe plays a base
agent (``--base``: the heuristic, or the shipped ``ppo``) in one seat against three heuristic players,
seats rotated (the probe in seat i mod 4 of game i), and lets the search agent (32 samples × 6
candidates) take over the decisions of one kind — or of every kind (the whole search), or of none
(the base alone). Every variant plays the same ``--games`` deals with the same streams for the
heuristic players, the base and the search, so the differences are paired game by game. Printed per
variant: win share, − the base alone and − the whole search (95 % Student-t intervals), decisions of
each kind, seconds.

Writes ``search_gain_by_decision-BASE.json`` under ``--out`` (default ``out/benchmarks/``).

    .venv/bin/python research/search_gain_by_decision.py --games 4000 --base heuristic
    .venv/bin/python research/search_gain_by_decision.py --games 4000 --base ppo --no-full
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from aerodeck import envs  # noqa: E402
from aerodeck.agents.base import Agent, act  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from aerodeck.envs.flight_tycoon.observation import ObservationLayout  # noqa: E402
from aerodeck.arena.loop import agent_seed, game_seeds, play_games  # noqa: E402
from aerodeck.stats.estimates import mean_ci  # noqa: E402

GAME = "flight-tycoon"
#: The decision kinds in the observation's ``decision`` block (FT-16).
KINDS = ("tower", "request", "give", "discard")


class SearchOn(Agent):
    """``base`` on every decision, except those of the ``kinds`` named, which ``search`` decides (the base's
    choice made the only legal action elsewhere, so the search plays it without searching). ``counts``:
    the decisions of each kind it was asked for."""

    needs_view = True

    def __init__(self, base: Agent, search: Agent | None, kinds: list[str], layout: ObservationLayout) -> None:
        super().__init__(0, base.rules)
        self.base, self.search = base, search
        self.kinds = [KINDS.index(k) for k in kinds]
        self.decision = layout.slice("decision")
        self.counts = np.zeros(len(KINDS), np.int64)

    def act(self, observations, masks, view=None, keys=None):
        out = act(self.base, observations, masks, view, keys)
        kind = observations[:, self.decision].argmax(1)
        self.counts += np.bincount(kind, minlength=len(KINDS))
        searched = np.isin(kind, self.kinds)
        if self.search is None or not searched.any():
            return out
        only = np.zeros_like(masks)
        only[np.arange(len(masks)), out] = True
        only[searched] = masks[searched]
        return self.search.act(observations, only, view, keys)


def variants(full: bool, kinds: list[str]) -> list[list[str]]:
    """The kinds the search decides in each variant: none (the base alone), every kind, then each one."""
    return [[]] + ([list(KINDS)] if full else []) + [[k] for k in kinds]


def play(base: str, searched: list[str], games: int, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """The probe's win share ``float64 (games,)``, its decisions by kind and the seconds taken."""
    spec = envs.spec(GAME)
    rules = spec.make_rules(n_players=4)
    core = spec.make_core(rules, check_actions=False)
    search = make_agent(GAME, "search", rules, seed=agent_seed(seed, 2)) if searched else None
    probe = SearchOn(make_agent(GAME, base, rules, seed=agent_seed(seed, 0)), search, searched, ObservationLayout(rules))
    heuristic = make_agent(GAME, "heuristic", rules, seed=agent_seed(seed, 1))
    lineups = np.ones((games, 4), np.int64)
    lineups[np.arange(games), np.arange(games) % 4] = 0
    began = time.perf_counter()
    out = play_games(core, [probe, heuristic], game_seeds(seed, games), lineups, batch_size=1024,
                     make_view=spec.make_view, summary=spec.summary_of(), progress="+".join(searched) or base)
    return out["win_share"][np.arange(games), np.arange(games) % 4], probe.counts, time.perf_counter() - began


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="deals every variant plays")
    parser.add_argument("--base", default="heuristic", help="the agent on the decisions the search does not take")
    parser.add_argument("--kinds", nargs="*", choices=KINDS, default=list(KINDS), help="one variant each")
    parser.add_argument("--no-full", action="store_true", help="leave the whole search out")
    parser.add_argument("--seed", type=int, default=20261331)
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "benchmarks")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    if not 0 <= args.seed < 2**64:
        parser.error(f"--seed must be in 0..2**64-1, got {args.seed}")
    args.out.mkdir(parents=True, exist_ok=True)
    played = {}
    try:
        for searched in variants(not args.no_full, args.kinds):
            played["+".join(searched) or "none"] = play(args.base, searched, args.games, args.seed)
    except ValueError as err:  # an agent spec this game does not take
        parser.error(str(err))
    alone = played["none"][0]
    whole = played.get("+".join(KINDS), (None,))[0]
    result = {"games": args.games, "seed": args.seed, "base": args.base, "searched": {}}
    print(f"{args.base} + 3 heuristic, seats rotated, {args.games:,} deals of seed {args.seed}; the search decides:")
    for name, (win, counts, seconds) in played.items():
        row = {"win_share": float(win.mean()), "decisions": dict(zip(KINDS, counts.tolist())), "seconds": seconds}
        line = f"  {name:>29}: {row['win_share']:.3f}"
        for label, other in (("base alone", alone), ("the search", whole)):
            if other is not None and other is not win:
                diff = mean_ci(win - other)
                row[f"minus_{label.split()[-1]}"] = (diff.value, diff.low, diff.high)
                line += f"  − {label} {diff.value:+.3f} [{diff.low:+.3f}, {diff.high:+.3f}]"
        result["searched"][name] = row
        print(f"{line}  ({seconds:.0f} s)")
    path = args.out / f"search_gain_by_decision-{args.base.replace(':', '_').replace('/', '_')}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Can a learnt value stand in for the search's rollouts? (issue 20, Airport Scramble)

The search agent (``search``: the heuristic's 4 best candidates × 32 heuristic rollouts) values a
candidate by the rollouts' mean: the tickets completed until one more ticket is done (or the game ends),
plus ``network`` × the share of airport cards in play at that moment. This probe learns that value
from the position *after* each candidate (an afterstate) and plays by it, no rollout:

1. ``--games`` games of the heuristic are played; at each decision the search would search, each of
   its candidates is stepped in ``--samples`` determinizations (fresh random streams, AS-17) and one
   heuristic rollout is played on from each (``SearchAgent.rollout``). ``--target value`` keeps each
   afterstate's observation with its rollout's value (not those where the step itself completed a
   ticket or ended the game: their value is known); ``--target gain`` keeps, per decision, the
   observations after each candidate (the first determinization) with each candidate's mean gain over
   the heuristic's choice, paired over the samples (common random numbers, as the search compares).
2. A small network (two layers of ``--width``, Adam, ``--epochs``, mean squared error) is fitted on
   90 % of them: ``value`` reads an afterstate; ``gain`` (:class:`GainNet`) scores each candidate
   from the observation after it and its difference from the first's.
3. ``lookahead:m`` plays ``--bench`` fresh deals (another seed): at each such decision each candidate
   is stepped in ``--looks`` determinizations and valued by the network (``value``: plus what the step
   completed); another candidate than the heuristic's choice is played only if its mean beats the
   choice's by more than ``m`` (each of ``--margin``) — a core step and a forward pass per candidate
   and look. The heuristic, the search (unless ``--no-search``) and each ``lookahead:m`` play the same
   deals; printed: mean scores, paired differences with 95 % Student-t intervals, games per second.

Writes ``afterstate_value.json`` and the network ``value.pt`` (``--load`` plays a saved one again)
under ``--out`` (default ``out/benchmarks/``).

    .venv/bin/python research/afterstate_value.py --games 20000 --bench 2000 --margin 0 0.1 0.3
    .venv/bin/python research/afterstate_value.py --target gain --samples 8 --games 20000 --bench 2000 \\
        --no-search --margin 0 0.05 0.1
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from aerodeck import envs  # noqa: E402
from aerodeck.agents.airport_scramble.planning import Table  # noqa: E402
from aerodeck.agents.airport_scramble.search import SearchAgent  # noqa: E402
from aerodeck.agents.base import Agent  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from aerodeck.envs.common.rng import game_seeds  # noqa: E402
from aerodeck.arena.loop import agent_seed, play_games  # noqa: E402
from aerodeck.stats.estimates import mean_ci  # noqa: E402

GAME = "airport-scramble"


class Afterstates:
    """The candidates of the searched decisions of a batch, stepped once in ``samples``
    determinizations each: ``state`` (rows (game, sample, candidate)), the tickets the step completed
    ``got`` int64, and the rows' candidate ``first`` int64."""

    def __init__(self, search: SearchAgent, view, observations, masks, keys, samples: int) -> None:
        table = Table.from_observations(search.geo, observations)
        cand, valid, best, _ = search.ranked(table, np.asarray(masks, bool))
        self.best, self.cand, self.valid = best, cand, valid
        self.games = games = np.flatnonzero(search.searched(table, valid, best))
        if not games.size:
            return
        self.branches, self.first = search.determinized(view, games, cand[games], valid[games],
                                                        None if keys is None else keys[games], samples)
        self.state = self.branches.take(np.arange(self.branches.batch_size))
        start = self.state.score.astype(np.int64)
        self.core = search._rollout_core(view)
        self.core.step(self.state, self.first)
        self.got = self.state.score - start


class Collector(Agent):
    """Plays the heuristic and keeps each searched decision's afterstates (module docstring, step 1):
    ``value``: observations ``float16 (N, 528)`` and rollout values ``float32 (N,)`` (where fewer than
    4 candidates are legal, the missing ones repeat the first, as in the search); ``gain``: observations
    ``float16 (N, 4, 528)``, mean gains ``float32 (N, 4)`` and which candidates are legal ``bool (N, 4)``."""

    needs_view = True

    def __init__(self, seed=0, rules=None, samples: int = 1, target: str = "value") -> None:
        super().__init__(seed, rules)
        self.search = SearchAgent(seed, self.rules)
        self.samples, self.target = samples, target
        self.kept: dict[str, list] = {"after": [], "value": [], "valid": []}

    def act(self, observations, masks, view=None, keys=None):
        looked = Afterstates(self.search, view, observations, masks, keys, self.samples)
        if looked.games.size:
            value = self.search.rollout(looked.core, looked.branches, looked.first)
            observe = lambda rows: looked.core.observe(looked.state.take(rows))  # noqa: E731 — only the rows kept
            if self.target == "value":
                open_ = np.flatnonzero((looked.got == 0) & ~looked.state.done)
                self.kept["after"].append(observe(open_).astype(np.float16))
                self.kept["value"].append(value[open_].astype(np.float32))
            else:  # each candidate's mean gain over the heuristic's choice, paired over the samples
                n, k = looked.games.size, looked.cand.shape[1]
                first = (np.arange(n)[:, None] * self.samples * k + np.arange(k)).reshape(-1)  # sample 0's rows
                self.kept["after"].append(observe(first).reshape(n, k, -1).astype(np.float16))
                value = value.reshape(n, self.samples, k)
                self.kept["value"].append((value - value[:, :, :1]).mean(axis=1).astype(np.float32))
                self.kept["valid"].append(looked.valid[looked.games])
        return looked.best


class Lookahead(Agent):
    """Plays each searched decision's best candidate by the value network (module docstring, step 3)."""

    needs_view = True

    def __init__(self, value, seed=0, rules=None, looks: int = 4, network: float = 1.0, margin: float = 0.0) -> None:
        super().__init__(seed, rules)
        self.search = SearchAgent(seed, self.rules)
        self.value, self.looks, self.network, self.margin = value, looks, network, margin

    def act(self, observations, masks, view=None, keys=None):
        looked = Afterstates(self.search, view, observations, masks, keys, self.looks)
        out = looked.best.copy()
        if not looked.games.size:
            return out
        state = looked.state
        n, k = looked.games.size, looked.cand.shape[1]
        if isinstance(self.value, torch.nn.Sequential):
            mean = self._values(looked).reshape(n, self.looks, k).mean(axis=1)
        else:
            with torch.no_grad():
                after = torch.as_tensor(looked.core.observe(state), dtype=torch.float32)
                mean = self.value(after.reshape(n * self.looks, k, -1)).numpy().reshape(n, self.looks, k).mean(axis=1)
        gain = np.where(looked.valid[looked.games], mean - mean[:, :1], -np.inf)
        gain[:, 0] = self.margin  # another candidate must beat the heuristic's choice by more than the margin
        out[looked.games] = looked.cand[looked.games, gain.argmax(axis=1)]
        return out

    def _values(self, looked) -> np.ndarray:
        """float64 (rows,): each afterstate's value — what the step completed, else the network's."""
        state, got = looked.state, looked.got
        in_play = (state.grid >= 0).sum(axis=(1, 2)) / self.search.geo.n_cards
        q = np.where(got >= 1, got + self.network * in_play, 0.0)
        open_ = np.flatnonzero((got == 0) & ~state.done)
        if open_.size:
            with torch.no_grad():
                inputs = torch.as_tensor(looked.core.observe(state.take(open_)), dtype=torch.float32)
                q[open_] = self.value(inputs).squeeze(-1).numpy()
        return q


def collect(games: int, seed: int, samples: int, target: str = "value") -> dict:
    """Step 1 of the module docstring on games 0 … games − 1 of ``seed``."""
    spec = envs.spec(GAME)
    rules = spec.rules_class()()
    core = spec.make_core(rules, check_actions=False)
    collector = Collector(seed=agent_seed(seed, 0), rules=rules, samples=samples, target=target)
    play_games(core, [collector], game_seeds(seed, games), make_view=spec.make_view, progress="afterstates")
    return {key: np.concatenate(value) for key, value in collector.kept.items() if value}


class GainNet(torch.nn.Module):
    """Each candidate's gain over the heuristic's choice from the observations after them:
    float32 (B, k, 528) → (B, k), the first candidate's gain 0."""

    def __init__(self, size: int, width: int) -> None:
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(2 * size, width), torch.nn.ReLU(),
                                        torch.nn.Linear(width, width), torch.nn.ReLU(), torch.nn.Linear(width, 1))

    def forward(self, after):
        out = self.body(torch.cat([after, after - after[:, :1]], dim=2)).squeeze(-1)
        return out - out[:, :1]


def fit(data: dict, width: int, epochs: int, seed: int):
    """Step 2: the network fitted on 90 % of the afterstates (``value``) or decisions (``gain``); it and
    its held-out mean squared error, with the error of a network that learnt nothing."""
    torch.manual_seed(seed)
    gain = "valid" in data
    n = len(data["value"])
    order = np.random.default_rng(seed).permutation(n)
    held, fitted = order[: n // 10], order[n // 10:]
    size = data["after"].shape[-1]
    if gain:
        net = GainNet(size, width)
    else:
        net = torch.nn.Sequential(torch.nn.Linear(size, width), torch.nn.ReLU(), torch.nn.Linear(width, width),
                                  torch.nn.ReLU(), torch.nn.Linear(width, 1))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = lambda rows: torch.as_tensor(data["after"][rows], dtype=torch.float32)  # noqa: E731
    y = torch.as_tensor(data["value"])
    w = torch.as_tensor(data["valid"]).float() if gain else torch.ones(n)
    predict = (lambda rows: net(x(rows))) if gain else (lambda rows: net(x(rows)).squeeze(-1))  # noqa: E731
    generator = torch.Generator().manual_seed(seed)
    for _ in range(epochs):
        for part in torch.randperm(len(fitted), generator=generator).split(512):
            rows = fitted[part.numpy()]
            loss = ((predict(rows) - y[rows]) ** 2 * w[rows]).sum() / w[rows].sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    net.eval()
    with torch.no_grad():
        pred = np.concatenate([predict(held[i:i + 8192]).numpy() for i in range(0, len(held), 8192)])
    target, weight = data["value"][held], w[held].numpy()
    base = 0.0 if gain else data["value"][fitted].mean()
    out = {"held_out_mse": float(((pred - target) ** 2 * weight).sum() / weight.sum()),
           "mean_only_mse": float(((target - base) ** 2 * weight).sum() / weight.sum()), "rows": n}
    if gain:  # the search's choice (its best mean gain, the first unless one is above 0) against the network's
        best = lambda g: np.where(weight > 0, g, -np.inf).argmax(axis=1)  # noqa: E731
        teacher, student = best(target), best(pred)
        out.update(agreement=float((teacher == student).mean()), teacher_departs=float((teacher > 0).mean()),
                   departures_made=float((student == teacher)[teacher > 0].mean()))
    return net, out


def bench(agents: dict, games: int, seed: int) -> dict:
    """Step 3: each agent on the same ``games`` deals of ``seed``: scores float64 (games,) and seconds."""
    spec = envs.spec(GAME)
    rules = spec.rules_class()()
    core = spec.make_core(rules, check_actions=False)
    out = {}
    for name, agent in agents.items():
        began = time.perf_counter()
        result = play_games(core, [agent], game_seeds(seed, games), make_view=spec.make_view, progress=name)
        out[name] = (result["score"][:, 0], time.perf_counter() - began)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="heuristic games whose afterstates are learnt")
    parser.add_argument("--samples", type=int, default=1, help="determinizations per candidate while collecting")
    parser.add_argument("--target", choices=("value", "gain"), default="value",
                        help="learn each afterstate's rollout value, or each candidate's mean gain over the "
                             "heuristic's choice (paired over --samples)")
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--looks", type=int, default=4, help="determinizations per candidate while playing")
    parser.add_argument("--margin", type=float, nargs="+", default=[0.0],
                        help="values by which a candidate must beat the heuristic's choice (one lookahead agent each)")
    parser.add_argument("--load", type=Path, help="a value network saved by an earlier run (skips steps 1 and 2)")
    parser.add_argument("--bench", type=int, default=500, help="fresh deals each agent plays")
    parser.add_argument("--no-search", action="store_true", help="leave the (slow) search agent out of the bench")
    parser.add_argument("--seed", type=int, default=515)
    parser.add_argument("--bench-seed", type=int, default=20261210)
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "benchmarks")
    args = parser.parse_args(argv)
    for name in ("games", "samples", "width", "epochs", "looks", "bench"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1, got {getattr(args, name)}")
    for name in ("seed", "bench_seed"):
        if not 0 <= getattr(args, name) < 2**64:
            parser.error(f"--{name.replace('_', '-')} must be in 0..2**64-1, got {getattr(args, name)}")
    args.out.mkdir(parents=True, exist_ok=True)
    if args.load:
        try:
            net, fitted, collected = torch.load(args.load, weights_only=False), {}, 0.0
        except Exception as err:  # noqa: BLE001 — missing, not a torch file, or a class this script lacks
            parser.error(f"--load {args.load}: not a network saved by this script ({type(err).__name__}: {err})")
        if not isinstance(net, (torch.nn.Sequential, GainNet)):
            parser.error(f"--load {args.load}: holds a {type(net).__name__}, not a network saved by this script")
    else:
        began = time.perf_counter()
        data = collect(args.games, args.seed, args.samples, args.target)
        collected = time.perf_counter() - began
        net, fitted = fit(data, args.width, args.epochs, args.seed)
        del data
        torch.save(net, args.out / "value.pt")
        rows, none = ("afterstates", "the mean alone") if args.target == "value" else ("decisions", "gains of 0")
        print(f"{fitted['rows']:,} {rows} from {args.games} heuristic games in {collected:.0f} s; held-out squared "
              f"error {fitted['held_out_mse']:.4f} ({none}: {fitted['mean_only_mse']:.4f})")
        if args.target == "gain":
            print(f"  the best candidate by these gains: agreement {fitted['agreement']:.3f}, departures made "
                  f"{fitted['departures_made']:.3f} (the targets' best departs on {fitted['teacher_departs']:.3f})")
    spec = envs.spec(GAME)
    rules = spec.rules_class()()
    agents = {"heuristic": make_agent(GAME, "heuristic", rules, seed=agent_seed(args.bench_seed, 0)),
              **{f"lookahead:{m:g}": Lookahead(net, seed=agent_seed(args.bench_seed, 1), rules=rules, looks=args.looks,
                                               margin=m) for m in args.margin}}
    if not args.no_search:
        agents["search"] = make_agent(GAME, "search", rules, seed=agent_seed(args.bench_seed, 2))
    played = bench(agents, args.bench, args.bench_seed)
    given = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items() if k != "out"}
    result = {**given, "collect_seconds": collected, **fitted, "agents": {}}
    for name, (score, seconds) in played.items():
        row = {"mean": float(score.mean()), "games_per_second": args.bench / seconds}
        for other in played:
            if other != name:  # paired over the same deals, Student-t (as aerodeck bench)
                diff = mean_ci(score - played[other][0])
                row[f"minus_{other}"] = (diff.value, diff.low, diff.high)
        result["agents"][name] = row
        print(f"  {name:>14}: {row['mean']:.3f}  ({row['games_per_second']:.1f} games/s)  " + "  ".join(
            f"− {o} {row['minus_' + o][0]:+.3f} [{row['minus_' + o][1]:+.3f}, {row['minus_' + o][2]:+.3f}]"
            for o in played if o != name))
    path = args.out / "afterstate_value.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

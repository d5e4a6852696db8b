"""Would a network that sees each candidate's consequence learn the search's choices? (issue 20)

The Airport Scramble student reads the position and the heuristic's ranking, and makes a fifth to a
quarter of the search's departures from the heuristic however much data or width it gets
(docs/research/model-history-airport-scramble.md). The search sees what each candidate leads to. This measures whether
that view is what the network lacks: ``--teacher`` (default ``search:gate=2``) plays ``--games`` games;
at each decision with two or more of the heuristic's candidates, the decision is kept with the
observation, the observation after each candidate (a determinization of the game — fresh random
streams, AS-17 — stepped once with it) and the candidate the teacher chose. Two small networks (two
layers of ``--width``, Adam, ``--epochs``) are fitted on the first 80 % of the games and scored on the
rest (``--bench``: those reading the position then play fresh deals beside the heuristic):

* ``position``: the observation → one logit per candidate rank (what the student sees, less the mask);
* ``consequence``: one shared network scores each candidate from the observation after it, its change
  from the observation and its rank → the logits;
* ``local`` (with ``--readers``): one shared network scores each candidate from the grid around the
  cell it acts on (the play's cell, the flight's landing, the line's start, else the plane's cell:
  ``--radius`` cells each way, every cell's card colours, the plane and the ticket's airports), the
  card it plays, its kind and rank, and the game's counts (die, points, deck, cards of each colour
  pair left) — the heuristic's planner's view, local and the same on every cell
  (``aerodeck.agents.airport_scramble.local.LocalFeatures``, what the suite's ``local`` policy network reads).

Printed for each: held-out agreement with the teacher, and on the teacher's departures (it chose
another candidate than the heuristic's first) the share the network makes; "first" is the heuristic
alone. Writes ``consequence_probe.json`` under ``--out`` (default ``out/benchmarks/``).

    .venv/bin/python research/consequence_probe.py --games 3000
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from aerodeck import envs  # noqa: E402
from aerodeck.agents.airport_scramble.local import LocalFeatures  # noqa: E402
from aerodeck.agents.base import Agent  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from aerodeck.agents.streams import decision_keys  # noqa: E402
from aerodeck.envs.common.rng import game_seeds  # noqa: E402
from aerodeck.arena.loop import agent_seed, play_games  # noqa: E402

GAME = "airport-scramble"


class Recorder(Agent):
    """Plays the teacher's moves and keeps, at each decision with two or more valid candidates, the
    observation ``float16 (528,)``, the observations after each candidate ``float16 (k, 528)``, which
    candidates are legal ``bool (k,)``, the one chosen (its rank, ``int64``) and the candidates'
    actions ``int64 (k,)`` (an invalid one repeats the first)."""

    needs_view = True

    def __init__(self, teacher, seed=0, rules=None) -> None:
        super().__init__(seed, rules)
        self.teacher = teacher
        self.kept: dict[str, list] = {"before": [], "after": [], "valid": [], "chosen": [], "actions": []}

    def act(self, observations, masks, view=None, keys=None):
        own = None if keys is None else decision_keys(self.teacher.key, keys, np.zeros(keys.size, np.int64))
        out, cand, _ = self.teacher.act_with_policy(observations, masks, view, own)
        valid = np.take_along_axis(np.asarray(masks, bool), cand, axis=1)
        rows = np.flatnonzero(valid.sum(axis=1) >= 2)
        if rows.size:
            n, k = rows.size, cand.shape[1]
            seeds = (np.zeros(len(out), np.uint64) if keys is None else keys)[rows]
            branches = view.determinize(np.repeat(seeds, k), k, rows)
            first = np.where(valid[rows], cand[rows], cand[rows, :1])  # an invalid candidate repeats the first
            view.core.step(branches, first.reshape(-1))
            after = view.core.observe(branches).reshape(n, k, -1)
            kept = self.kept
            kept["before"].append(np.asarray(observations)[rows].astype(np.float16))
            kept["after"].append(after.astype(np.float16))
            kept["valid"].append(valid[rows])
            kept["chosen"].append((cand[rows] == out[rows, None]).argmax(axis=1))
            kept["actions"].append(first)
        return out


def record(games: int, seed: int, teacher: str, first: int = 0) -> dict:
    """The teacher's decisions (see :class:`Recorder`) in games ``first … first + games − 1`` of ``seed``."""
    spec = envs.spec(GAME)
    rules = spec.rules_class()()
    core = spec.make_core(rules, check_actions=False)
    recorder = Recorder(make_agent(GAME, teacher, rules, seed=agent_seed(seed, 0)), seed=seed, rules=rules)
    play_games(core, [recorder], game_seeds(seed, games, first), make_view=spec.make_view, progress=False)
    if not recorder.kept["chosen"]:
        raise ValueError(f"the teacher {teacher!r} offered no decision two candidates: give a search agent")
    return {key: np.concatenate(value) for key, value in recorder.kept.items()}


def fit(kind: str, train: dict, test: dict, width: int, epochs: int, seed: int, radius: int = 3):
    """Fit the ``position``, ``consequence`` or ``local`` network (module docstring) on ``train``. Returns
    its held-out agreement with the teacher and the share of the teacher's departures it makes on
    ``test``, and its choice: ``choose(data) -> int64 (n,)``, the rank it picks for each decision of a
    dict with the keys of :func:`record`."""
    import torch

    torch.manual_seed(seed)
    k = train["valid"].shape[1]
    local = LocalFeatures(envs.spec(GAME).rules_class()(), radius) if kind == "local" else None

    def features(data, rows):  # built a batch at a time: the whole set in float32 would take gigabytes
        before = torch.as_tensor(data["before"][rows], dtype=torch.float32)
        if kind == "position":
            return before
        if kind == "local":
            rank = torch.eye(k).expand(len(before), k, k)
            return torch.cat([torch.as_tensor(local(data["before"][rows], data["actions"][rows])), rank], dim=2)
        after = torch.as_tensor(data["after"][rows], dtype=torch.float32)
        rank = torch.eye(k).expand(len(before), k, k)
        return torch.cat([after, after - before[:, None, :], rank], dim=2)

    size = features(train, slice(0, 1)).shape[-1]
    body = torch.nn.Sequential(torch.nn.Linear(size, width), torch.nn.ReLU(), torch.nn.Linear(width, width),
                               torch.nn.ReLU(), torch.nn.Linear(width, k if kind == "position" else 1))

    def logits(data, rows):
        inputs = features(data, rows)
        out = body(inputs) if kind == "position" else body(inputs).squeeze(-1)
        return out.masked_fill(~torch.as_tensor(data["valid"][rows]), float("-inf"))

    optimizer = torch.optim.Adam(body.parameters(), lr=1e-3)
    generator = torch.Generator().manual_seed(seed)
    y = torch.as_tensor(train["chosen"])
    for _ in range(epochs):
        for part in torch.randperm(len(y), generator=generator).split(512):
            loss = torch.nn.functional.cross_entropy(logits(train, part.numpy()), y[part])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    def choose(data) -> np.ndarray:
        with torch.no_grad():
            return np.concatenate([logits(data, slice(i, i + 4096)).argmax(dim=1).numpy()
                                   for i in range(0, len(data["valid"]), 4096)]).astype(np.int64)

    return scores(choose(test), test["chosen"]), choose


class Chooser(Agent):
    """Plays by a fitted network that reads the position (``position`` or ``local``): among the
    heuristic's best candidates (as the search ranks them) the one the network picks, wherever two or
    more are legal; else the heuristic's choice. One forward pass per decision, no rollout."""

    def __init__(self, choose, candidates: int, seed=0, rules=None) -> None:
        super().__init__(seed, rules)
        from aerodeck.agents.airport_scramble.planning import Table
        from aerodeck.agents.airport_scramble.search import SearchAgent

        self.choose, self.table = choose, Table
        self.ranker = SearchAgent(rules=self.rules, candidates=candidates)

    def act(self, observations, masks, view=None, keys=None):
        masks = np.asarray(masks, bool)
        cand, valid, best, _ = self.ranker.ranked(self.table.from_observations(self.ranker.geo, observations), masks)
        out = best.copy()
        rows = np.flatnonzero(valid.sum(axis=1) >= 2)
        if rows.size:
            first = np.where(valid[rows], cand[rows], cand[rows, :1])
            rank = self.choose({"before": np.asarray(observations)[rows], "actions": first, "valid": valid[rows]})
            out[rows] = first[np.arange(rows.size), rank]
        return out


def scores(chosen: np.ndarray, teacher: np.ndarray) -> dict:
    """Agreement of the ranks ``chosen`` with the teacher's, overall and on its departures (rank > 0)."""
    departs = teacher > 0
    return {"agreement": float((chosen == teacher).mean()),
            "departures_made": float((chosen == teacher)[departs].mean()) if departs.any() else 0.0,
            "departs": float((chosen > 0).mean())}


def bench(choosers: dict, candidates: int, games: int, seed: int) -> dict:
    """The heuristic and a :class:`Chooser` per fitted network on the same ``games`` deals of ``seed``:
    mean scores and paired differences to the heuristic (Student-t 95 %), printed and returned."""
    from aerodeck.stats.estimates import mean_ci

    game = envs.spec(GAME)
    rules = game.rules_class()()
    core = game.make_core(rules, check_actions=False)
    seeds = game_seeds(seed, games)
    heuristic = play_games(core, [make_agent(GAME, "heuristic", rules)], seeds, progress=False)["score"][:, 0]
    out = {"games": games, "seed": seed, "heuristic": float(heuristic.mean())}
    print(f"  on {games:,} fresh deals (seed {seed}): heuristic {heuristic.mean():.3f}")
    for kind, choose in choosers.items():
        score = play_games(core, [Chooser(choose, candidates, rules=rules)], seeds, progress=kind)["score"][:, 0]
        diff = mean_ci(score - heuristic)
        out[kind] = {"mean": float(score.mean()), "minus_heuristic": (diff.value, diff.low, diff.high)}
        print(f"  {kind:>11}: {score.mean():.3f}, − heuristic {diff.value:+.3f} [{diff.low:+.3f}, {diff.high:+.3f}]")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--teacher", default="search:gate=2", help="the agent spec whose choices are learnt")
    parser.add_argument("--games", type=int, default=3000, help="games played (80 %% to fit, 20 %% held out)")
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=909)
    parser.add_argument("--readers", nargs="+", choices=("position", "consequence", "local"),
                        default=["position", "consequence"], help="the networks fitted")
    parser.add_argument("--radius", type=int, default=3, help="the local reader's cells each way")
    parser.add_argument("--bench", type=int, default=0,
                        help="fresh deals the heuristic and each fitted position or local reader play (0: none)")
    parser.add_argument("--bench-seed", type=int, default=20261216)
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "benchmarks")
    args = parser.parse_args(argv)
    if args.games < 5:
        parser.error(f"--games must be at least 5, got {args.games}")
    if not 1 <= args.radius <= 8:
        parser.error(f"--radius must be in 1..8, got {args.radius}")
    if args.bench < 0:
        parser.error(f"--bench must be at least 0, got {args.bench}")
    for name in ("seed", "bench_seed"):
        if not 0 <= getattr(args, name) < 2**64:
            parser.error(f"--{name.replace('_', '-')} must be in 0..2**64-1, got {getattr(args, name)}")
    fitted = int(args.games * 0.8)
    try:
        train = record(fitted, args.seed, args.teacher)
        test = record(args.games - fitted, args.seed, args.teacher, first=fitted)
    except ValueError as err:  # a bad agent spec: the message names what is allowed
        parser.error(str(err))
    result = {"teacher": args.teacher, "games": args.games, "seed": args.seed, "width": args.width,
              "epochs": args.epochs, "decisions": {"fitted": len(train["chosen"]), "held_out": len(test["chosen"])},
              "teacher_departs": float((test["chosen"] > 0).mean()),
              "first": scores(np.zeros_like(test["chosen"]), test["chosen"])}
    choosers = {}
    for kind in args.readers:
        result[kind], choosers[kind] = fit(kind, train, test, args.width, args.epochs, args.seed, args.radius)
    print(f"{GAME}: {result['decisions']['fitted']:,} decisions fitted, {result['decisions']['held_out']:,} held out "
          f"({args.teacher}, {args.games} games, seed {args.seed}); the teacher departs on {result['teacher_departs']:.3f}")
    for kind in ("first", *args.readers):
        r = result[kind]
        print(f"  {kind:>11}: agreement {r['agreement']:.3f}, departures made {r['departures_made']:.3f}, "
              f"departs {r['departs']:.3f}")
    if args.bench:
        result["bench"] = bench({kind: choosers[kind] for kind in args.readers if kind != "consequence"},
                                train["valid"].shape[1], args.bench, args.bench_seed)
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "consequence_probe.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

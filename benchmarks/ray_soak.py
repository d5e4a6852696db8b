"""A soak of the Ray backend: one compare played over and over on one local Ray for N minutes.

Each repeat plays the same question (a solo game's base rules against one variant, judged by two agents,
``--games`` games per cell in tasks of ``--chunk`` games) on the same Ray instance and hashes what it
played (every cell's per-game metrics) and the analysis's verdicts. The script reports:

- whether every repeat gave the same results (one hash over all repeats, and the same hash as one run on
  the local backend at the start);
- the driver's resident memory (RSS) after each repeat: first, last, most, and the growth of the last
  third over the first third (a leak grows it repeat after repeat);
- the Ray processes this script started (the descendants of this process), and how many are still alive
  after ``ray.shutdown()`` (none should be);
- the repeats that failed (an exception), each named; the soak goes on after one.

    nice -n 5 .venv/bin/python benchmarks/ray_soak.py --minutes 20 [--games 400] [--chunk 50] [--cpus 2]

It prints one line per repeat and a summary; ``--json FILE`` writes the figures too. Exit status 1 if the
repeats differ, a repeat failed, memory grew by more than ``--max-growth-mb`` or Ray processes were left
behind.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time

import numpy as np
import psutil


def question(game: str, games: int, seed: int):
    """The soak's compare: the base rules and the variant ``--variant`` of ``game``, judged by random and
    heuristic play."""
    from aerodeck import envs
    from aerodeck.judge.compare import Question, assemble_variants, catalogue, make_tables

    spec = envs.spec(game)
    cat = catalogue(game)
    variants = assemble_variants([("variant", spec.rules_class()().replace(**VARIANT[game]))], spec.rules_class())
    return Question(game, variants, make_tables(game, ["heuristic", "random"], ["heuristic"]), games, seed,
                    tuple(m.name for m in cat.headline()))


#: The rule change the soak compares with the base, per game.
VARIANT = {"airport-scramble": {"ticket_turn_bonus": 1}}


def fingerprint(q, backend, chunk: int) -> str:
    """A hash of every cell's per-game metrics and the analysis's JSON."""
    from aerodeck.judge.analysis import analyse
    from aerodeck.judge.compare import play

    cells = play(q, backend, chunk, progress=False)
    h = hashlib.sha256()
    for key in sorted(cells):
        for name in sorted(cells[key]["metrics"]):
            num, den = cells[key]["metrics"][name]
            h.update(f"{key}{name}".encode())
            h.update(np.ascontiguousarray(num).tobytes())
            h.update(np.ascontiguousarray(den).tobytes())
    h.update(json.dumps(analyse(q, cells), sort_keys=True, default=str).encode())
    return h.hexdigest()[:16]


def ray_descendants() -> list[psutil.Process]:
    """The processes this script started that belong to Ray (raylet, gcs_server, workers, ...)."""
    out = []
    for p in psutil.Process().children(recursive=True):
        try:
            words = " ".join(p.cmdline())
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        if "ray" in words:
            out.append(p)
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--minutes", type=float, default=2.0, help="how long to repeat the compare (default 2)")
    p.add_argument("--game", default="airport-scramble", choices=sorted(VARIANT))
    p.add_argument("--games", type=int, default=400, help="games per cell (default 400)")
    p.add_argument("--chunk", type=int, default=50, help="games per Ray task (default 50)")
    p.add_argument("--cpus", type=int, default=2, help="the local Ray's CPUs (default 2)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-growth-mb", type=float, default=50.0,
                   help="the most the driver's RSS may grow from the first third of the repeats to the last (default 50)")
    p.add_argument("--json", help="also write the figures to this file")
    args = p.parse_args(argv)

    import ray

    from aerodeck.arena.backends import LocalBackend, RayBackend

    q = question(args.game, args.games, args.seed)
    reference = fingerprint(q, LocalBackend(), args.chunk)
    print(f"local backend: {reference}", flush=True)
    began = time.monotonic()
    ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False)
    ours: dict[int, str] = {}
    hashes, rss, seconds, errors = [], [], [], []
    try:
        backend = RayBackend()
        me = psutil.Process()
        while time.monotonic() - began < args.minutes * 60:
            t = time.monotonic()
            try:
                hashes.append(fingerprint(q, backend, args.chunk))
            except Exception as err:  # noted and counted: a soak reports its failures, it does not stop at one
                errors.append(f"{type(err).__name__}: {err}"[:200])
                print(f"repeat failed: {errors[-1]}", flush=True)
                continue
            seconds.append(time.monotonic() - t)
            rss.append(me.memory_info().rss / 2**20)
            for proc in ray_descendants():
                ours.setdefault(proc.pid, " ".join(proc.cmdline())[:60])
            print(f"repeat {len(hashes)}: {hashes[-1]} in {seconds[-1]:.1f} s; driver RSS {rss[-1]:.0f} MiB; "
                  f"{time.monotonic() - began:.0f} s", flush=True)
    finally:
        ray.shutdown()
    time.sleep(5)  # Ray's processes end within a few seconds of the shutdown
    left = [pid for pid in ours if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE]
    third = max(1, len(rss) // 3)
    growth = float(np.mean(rss[-third:]) - np.mean(rss[:third]))
    figures = {
        "minutes": round((time.monotonic() - began) / 60, 1), "repeats": len(hashes),
        "games_per_repeat": args.games * len(q.variants) * len(q.tables), "chunk": args.chunk, "cpus": args.cpus,
        "distinct_hashes": sorted(set(hashes)), "same_as_local": set(hashes) == {reference},
        "seconds_per_repeat": {"first": round(seconds[0], 1), "median": round(float(np.median(seconds)), 1),
                               "max": round(max(seconds), 1)} if seconds else None,
        "driver_rss_mib": {"first": round(rss[0]), "last": round(rss[-1]), "max": round(max(rss)),
                           "growth_last_third_over_first": round(growth, 1)} if rss else None,
        "ray_processes_seen": len(ours), "ray_processes_left": len(left), "failed_repeats": errors,
    }
    print(json.dumps(figures, indent=1))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(figures, f, indent=1)
    ok = figures["same_as_local"] and growth <= args.max_growth_mb and not left and not errors
    for pid in left:
        print(f"left behind: {pid} {ours[pid]}", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    raise SystemExit(main())

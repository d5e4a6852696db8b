"""A rule-general model against the game's opponent agent on rule variants it never saw.

Draws ``--variants`` variants from the model's own option ranges (its sidecar's variant space; variant
i of ``--draw-seed`` is ``VariantSpace.draw(draw_seed, i)``, so whoever picks the seed picks the
variants) and plays ``aerodeck bench`` under each: a solo game pairs the model with the opponent on the
same ``--games`` deals (the model's mean score minus the opponent's, with its interval); a multi-player
game seats the model with n−1 opponents, seats rotated (its win share against the opponent's, which
is the fair share 1/n in a table of opponents). Each variant's bench files go to ``--out``/variant-i/;
``rule_general.json`` and ``rule_general.md`` there hold the table.

    .venv/bin/python benchmarks/rule_general.py airport-scramble --variants 5 --games 5000 --draw-seed 777
    .venv/bin/python benchmarks/rule_general.py flight-tycoon --players 4 --variants 5 --games 5000 --draw-seed 777
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import envs  # noqa: E402
from agents.ppo import read_sidecar, shipped_path  # noqa: E402
from agents.variants import VariantSpace  # noqa: E402
from train.evaluate.bench import Plan  # noqa: E402


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=envs.games())
    parser.add_argument("--players", type=int, help="multi-player games: the player count of the model")
    parser.add_argument("--model", type=Path, help="the rule-general model zip (default: the shipped ppo:general)")
    parser.add_argument("--variants", type=int, default=5, help="variants to draw (default 5)")
    parser.add_argument("--draw-seed", type=int, required=True, help="seed of the variants' draw")
    parser.add_argument("--games", type=int, default=5000, help="deals (games) per variant (default 5000)")
    parser.add_argument("--seed", type=int, default=0, help="aerodeck bench's --seed: the deals (default 0)")
    parser.add_argument("--out", type=Path, default=Path("out") / "rule_general", help="output folder")
    args = parser.parse_args(argv)
    game = envs.spec(args.game)
    base = game.make_rules(**({game.players_option: args.players} if args.players and game.players_option else {}))
    model = args.model or shipped_path(game, base, general=True)
    variants = read_sidecar(model).get("inputs", {}).get("variants")
    if not variants:
        parser.error(f"{model} is not a rule-general model (its sidecar names no variant space)")
    space = VariantSpace.from_dict(game, variants)
    agent = f"ppo:path={model}"
    rows = []
    for i in range(args.variants):
        rules = space.draw(args.draw_seed, i)
        began = time.perf_counter()
        if game.solo:
            plan = Plan.build(game, rules, [game.opponent, agent], args.games, args.seed)
        else:
            n = game.players(rules)
            plan = Plan.build(game, rules, [agent, game.opponent], args.games, args.seed,
                              lineup=[agent] + [game.opponent] * (n - 1))
        result = plan.run(args.out / f"variant-{i}", progress=False)
        row = {"variant": i, "rules": rules.label(), "games": result["games"], "seconds": round(time.perf_counter() - began, 1)}
        if game.solo:
            gap = next(c for c in result["comparisons"] if c["agent"] == agent)["mean_score_difference"]
            row.update(model=result["agents"][agent]["mean_score"]["value"],
                       opponent=result["agents"][game.opponent]["mean_score"]["value"],
                       difference=gap["value"], low=gap["low"], high=gap["high"], p=gap.get("p_value"))
        else:
            win = result["agents"][agent]["win_rate"]
            row.update(model=win["value"], low=win["low"], high=win["high"], opponent=1.0 / n,
                       difference=win["value"] - 1.0 / n)
        rows.append(row)
        print(json.dumps(row), flush=True)
    figure = "mean score" if game.solo else "win share"
    lines = [f"{game.title}: {model} against {game.opponent} on {args.variants} variants of {space.describe()} "
             f"(draw seed {args.draw_seed}), {args.games:,} {'deals' if game.solo else 'games'} each, bench seed {args.seed}",
             "", f"| variant | rules | model {figure} | {game.opponent} {figure} | difference | "
                 f"95% CI of the {'difference (paired)' if game.solo else 'model win share'} |",
             "|---|---|---:|---:|---:|---|"]
    for r in rows:
        lines.append(f"| {r['variant']} | {r['rules']} | {r['model']:.3f} | {r['opponent']:.3f} | {r['difference']:+.3f} | "
                     f"[{r['low']:.3f}, {r['high']:.3f}] |")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "rule_general.md").write_text("\n".join(lines) + "\n")
    (args.out / "rule_general.json").write_text(json.dumps({"model": str(model), "space": space.to_dict(),
                                                            "draw_seed": args.draw_seed, "rows": rows}, indent=2) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

"""A rule-general model against the game's opponent agent on rule variants it never saw.

Draws ``--variants`` variants from the model's own option ranges (its sidecar's variant space; variant
i of ``--draw-seed`` is ``VariantSpace.draw(draw_seed, i)``, so whoever picks the seed picks the
variants) and plays ``aerodeck bench`` under each: a solo game pairs the model with the opponent on the
same ``--games`` deals (the model's mean score minus the opponent's, with its interval); a multi-player
game seats the model with n−1 opponents, seats rotated (its win share against the opponent's, which
is the fair share 1/n in a table of opponents), and pairs it with the opponent agent in the model's
seat on the same deals (:func:`paired_seat`: the model's win share minus that agent's there). Each variant's bench files go to ``--out``/variant-i/;
``rule_general.json`` and ``rule_general.md`` there hold the table.

``--cautions 0,1,2`` benches the model at each of those cautions (``ppo``'s ``caution`` knob: it leaves the
heuristic's choice only for an action it favours by more than that many logits); ``--set-caution``
then writes the caution whose worst variant is best into the model's sidecar, which the model plays
with from then on (``ppo:general`` included) unless ``caution=`` is given. Choose it on a draw seed of
its own, and measure the result on another. ``--check 1000`` benches the model with a self-check of that
many deals under each variant (``ppo``'s ``check`` knob, :mod:`aerodeck.agents.self_check`: it plays at the caution
its own games under the variant show best, or as the heuristic where none is shown better); a
model that checks itself (so, or by its sidecar) has each variant's check recorded; ``--set-check`` then writes it into the model's sidecar, so the model
checks itself under any rules it is named for (``ppo:general`` included) unless ``check=`` or ``caution=``
is given.

    .venv/bin/python benchmarks/rule_general.py airport-scramble --variants 5 --games 5000 --draw-seed 777
    .venv/bin/python benchmarks/rule_general.py flight-tycoon --players 4 --variants 5 --games 5000 --draw-seed 777
    .venv/bin/python benchmarks/rule_general.py airport-scramble --variants 8 --games 400 --draw-seed 1 --cautions 0,1,2,4 --set-caution
    .venv/bin/python benchmarks/rule_general.py airport-scramble --variants 5 --games 5000 --draw-seed 777 --check 1000
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

from aerodeck import envs  # noqa: E402
from aerodeck.agents.ppo import read_sidecar, shipped_path, sidecar_path  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from aerodeck.agents.self_check import describe, seat_figures  # noqa: E402
from aerodeck.agents.variants import VariantSpace  # noqa: E402
from aerodeck.bench.bench import Plan  # noqa: E402
from aerodeck.arena.loop import agent_seed, game_seeds  # noqa: E402
from aerodeck.stats.estimates import mean_ci  # noqa: E402
from aerodeck.arena.output import write_file  # noqa: E402


def paired_seat(game, rules, spec: str, games: int, seed: int) -> dict:
    """A multi-player model against its opponent agent in the same seat: in game i (seeded as game i of
    ``seed``) the agent ``spec`` sits in seat i mod n, the opponent agent in the others; then the
    opponent agent, seeded as the model (so with its decision keys), sits in that seat on the same deals.
    ``{"difference", "low", "high"}``: the model's win share minus the opponent's there, paired, 95% CI.
    A model that plays as its prior agent (the opponent, e.g. after its self-check) makes the same moves
    there: a difference of 0."""
    core = game.make_core(rules)
    seeds = game_seeds(seed, games)
    others = make_agent(game.id, game.opponent, rules, seed=agent_seed(seed, 1))
    shares = [seat_figures(game, core, make_agent(game.id, s, rules, seed=agent_seed(seed, 0)), others, seeds)
              for s in (spec, game.opponent)]
    gap = mean_ci(shares[0] - shares[1])
    return {"difference": gap.value, "low": gap.low, "high": gap.high}


def bench_variant(game, rules, agents: dict, games: int, seed: int, out: Path) -> dict:
    """``{label: {"model", "opponent", "difference", "low", "high"}}`` for each agent spec of ``agents``
    (``{label: spec}``) under ``rules``: a solo game benches them all with the opponent on the same deals
    (the difference paired, with its interval); a multi-player game seats each with n − 1 opponents,
    seats rotated (its win share with its interval; the opponent's is the fair share 1/n), and adds
    ``"paired"``, the difference to the opponent agent in its seat (:func:`paired_seat`). A model that
    checked itself under ``rules`` adds its ``"check"`` (``aerodeck.agents.self_check``)."""
    rows = {}
    if game.solo:
        result = Plan.build(game, rules, [game.opponent, *agents.values()], games, seed).run(out, progress=False)
        for label, agent in agents.items():
            gap = next(c for c in result["comparisons"]
                       if c["agent"] == agent and c["versus"] == game.opponent)["mean_score_difference"]
            rows[label] = {"model": result["agents"][agent]["mean_score"]["value"],
                           "opponent": result["agents"][game.opponent]["mean_score"]["value"],
                           "difference": gap["value"], "low": gap["low"], "high": gap["high"]}
            if agent in result.get("self_checks", {}):
                rows[label]["check"] = result["self_checks"][agent]
        return rows
    n = game.players(rules)
    for label, agent in agents.items():
        plan = Plan.build(game, rules, [agent, game.opponent], games, seed, lineup=[agent] + [game.opponent] * (n - 1))
        result = plan.run(out / (f"caution-{label}" if len(agents) > 1 else ""), progress=False)
        win = result["agents"][agent]["win_rate"]
        rows[label] = {"model": win["value"], "opponent": 1.0 / n, "difference": win["value"] - 1.0 / n,
                       "low": win["low"], "high": win["high"], "paired": paired_seat(game, rules, agent, games, seed)}
        if agent in result.get("self_checks", {}):
            rows[label]["check"] = result["self_checks"][agent]
    return rows


def worst_differences(rows: list[dict], cautions: list[float]) -> dict[str, float]:
    """``{caution label: the smallest difference to the opponent over the variants}``."""
    return {f"{m:g}": min(r["cautions"][f"{m:g}"]["difference"] for r in rows) for m in cautions}


def choose_caution(rows: list[dict], cautions: list[float]) -> float:
    """The caution whose worst variant is best (the largest smallest difference to the opponent over
    the variants; the smaller caution on a tie): the rule-general target asks for at least the
    opponent's figure on every variant."""
    worst = worst_differences(rows, cautions)
    return max(cautions, key=lambda m: (worst[f"{m:g}"], -m))


def set_sidecar(model: Path, key: str, entry: dict) -> None:
    """Write ``entry`` (what the model plays with, and how it was chosen) as ``key`` of the sidecar of
    ``model``, atomically."""
    sidecar = {**read_sidecar(model), key: entry}
    write_file(sidecar_path(model), json.dumps(sidecar, indent=2) + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=envs.games())
    parser.add_argument("--players", type=int, help="multi-player games: the player count of the model")
    parser.add_argument("--model", type=Path, help="the rule-general model zip (default: the shipped ppo:general)")
    parser.add_argument("--variants", type=int, default=5, help="variants to draw (default 5)")
    parser.add_argument("--draw-seed", type=int, required=True, help="seed of the variants' draw")
    parser.add_argument("--games", type=int, default=5000, help="deals (games) per variant (default 5000)")
    parser.add_argument("--seed", type=int, default=0, help="aerodeck bench's --seed: the deals (default 0)")
    parser.add_argument("--cautions", help="comma-separated cautions to bench the model at (ppo's caution knob; "
                                          "default: the model as it plays, its sidecar's caution)")
    parser.add_argument("--set-caution", action="store_true",
                        help="write the caution whose worst variant is best into the model's sidecar (needs --cautions)")
    parser.add_argument("--check", type=int, help="bench the model with a self-check of this many deals under each "
                                                   "variant (ppo's check knob; 0: none; default: as it plays)")
    parser.add_argument("--set-check", action="store_true",
                        help="write --check into the model's sidecar: the model then checks itself under any rules")
    parser.add_argument("--out", type=Path, default=Path("out") / "rule_general", help="output folder")
    args = parser.parse_args(argv)
    game = envs.spec(args.game)
    base = game.make_rules(**({game.players_option: args.players} if args.players and game.players_option else {}))
    model = args.model or shipped_path(game, base, general=True)
    variants = read_sidecar(model).get("inputs", {}).get("variants")
    if not variants:
        parser.error(f"{model} is not a rule-general model (its sidecar names no variant space)")
    try:
        cautions = [float(m) for m in args.cautions.split(",")] if args.cautions else []
    except ValueError:
        parser.error(f"--cautions takes comma-separated numbers, got {args.cautions!r}")
    if any(not 0 <= m <= 1000 for m in cautions):
        parser.error(f"--cautions must be in 0..1000, got {args.cautions!r}")
    if args.set_caution and not cautions:
        parser.error("--set-caution chooses among --cautions; give them")
    if args.check is not None and (cautions or not (args.check == 0 or 2 <= args.check <= 100_000)):
        parser.error("--check takes 0 (no check) or deals in 2..100000, and no --cautions (the check chooses the caution)")
    if args.set_check and not args.check:
        parser.error("--set-check writes --check into the sidecar; give it")
    space = VariantSpace.from_dict(game, variants)
    agents = ({f"{m:g}": f"ppo:path={model},caution={m:g}" for m in cautions} if cautions
              else {"model": f"ppo:path={model}" + (f",check={args.check}" if args.check is not None else "")})
    rows = []
    for i in range(args.variants):
        rules = space.draw(args.draw_seed, i)
        began = time.perf_counter()
        figures = bench_variant(game, rules, agents, args.games, args.seed, args.out / f"variant-{i}")
        row = {"variant": i, "rules": rules.label(), "games": args.games, "seconds": round(time.perf_counter() - began, 1),
               "cautions": figures}
        if not cautions:
            row.update(row.pop("cautions")["model"])
        rows.append(row)
        print(json.dumps(row), flush=True)
    figure = "mean score" if game.solo else "win share"
    interval = "difference (paired)" if game.solo else "model win share"
    lines = [f"{game.title}: {model} against {game.opponent} on {args.variants} variants of {space.describe()} "
             f"(draw seed {args.draw_seed}), {args.games:,} {'deals' if game.solo else 'games'} each, bench seed {args.seed}", ""]
    if cautions:
        lines += [f"The model's {'difference to the ' + game.opponent if game.solo else 'win share'} [95% CI of the "
                  f"{interval}] at each caution:", "",
                  "| variant | rules | " + " | ".join(f"caution {m:g}" for m in cautions) + " |",
                  "|---|---|" + "---:|" * len(cautions)]
        for r in rows:
            cells = [r["cautions"][f"{m:g}"] for m in cautions]
            lines.append(f"| {r['variant']} | {r['rules']} | " + " | ".join(
                (f"{c['difference']:+.3f}" if game.solo else f"{c['model']:.3f}")
                + f" [{c['low']:.3f}, {c['high']:.3f}]" for c in cells) + " |")
        best = choose_caution(rows, cautions)
        lines += ["", f"The caution whose worst variant is best: {best:g}"]
    else:
        checked = any("check" in r for r in rows)
        paired = f" − {game.opponent} in its seat, paired [95% CI] |" if not game.solo else ""
        lines += [f"| variant | rules | model {figure} | {game.opponent} {figure} | difference | 95% CI of the {interval} "
                  f"|{paired}{' self-check plays |' if checked else ''}",
                  "|---|---|---:|---:|---:|---|" + ("---:|" if paired else "") + ("---|" if checked else "")]
        for r in rows:
            seat = (f" {r['paired']['difference']:+.4f} [{r['paired']['low']:+.4f}, {r['paired']['high']:+.4f}] |"
                    if paired else "")
            lines.append(f"| {r['variant']} | {r['rules']} | {r['model']:.3f} | {r['opponent']:.3f} | {r['difference']:+.3f} | "
                         f"[{r['low']:.3f}, {r['high']:.3f}] |{seat}" + (f" {describe(r['check'])} |" if checked else ""))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "rule_general.md").write_text("\n".join(lines) + "\n")
    (args.out / "rule_general.json").write_text(json.dumps({"model": str(model), "space": space.to_dict(),
                                                            "draw_seed": args.draw_seed, "rows": rows}, indent=2) + "\n")
    print("\n".join(lines))
    command = "benchmarks/rule_general.py " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.set_caution:
        set_sidecar(model, "caution", {"value": best, "chosen_by": command,
                                       "worst_difference": worst_differences(rows, cautions)})
        print(f"{sidecar_path(model)}: caution {best:g}")
    if args.set_check:
        set_sidecar(model, "check", {"deals": args.check, "measured_by": command,
                                     "worst_difference": min(r["difference"] for r in rows)})
        print(f"{sidecar_path(model)}: check {args.check} deals")


if __name__ == "__main__":
    main()

"""How learnable a teacher is: how often a search agent agrees with itself.

A student cloned from a search agent's choices learns from labels that are partly noise where two runs
of the search on the same position (other decision keys, so other samples and rollouts) choose
differently. If the teacher chose action a with probability p(a) at a position, two runs agree with
probability Σ p(a)²; the best a student can do is always choose the most probable action, which
agrees with a run max p(a) of the time — between Σ p(a)² and √Σ p(a)². So the teacher's agreement with
itself, q, bounds what any student's agreement with it can be: at least q is reachable in principle,
more than √q (averaged over positions, by Jensen's inequality) is not.

This plays ``--games`` games with the ``--along`` agent (default: the heuristic) choosing every move,
in every seat; at each decision the ``--teacher`` is asked twice, with independent decision keys, and
the heuristic once. Printed: decisions; the teacher's agreement with itself; how often it departs from
the heuristic's choice; how many of those departures its second run makes again. With ``--student``
(e.g. ``ppo``, a network distilled from the teacher), that agent is asked once too: how often it agrees with
the teacher's first run, and how many of the teacher's departures it makes — on the positions the
``--along`` agent reaches (play the student along to see it on its own positions, the teacher along to
see it on the positions it was trained on). Actions are compared by their number; proportions over
decisions (those of one game are not independent: read them as rough). Writes
``teacher_agreement-<game>.json`` under ``--out`` (default ``out/benchmarks/``).

    .venv/bin/python research/teacher_agreement.py airport-scramble --teacher search:gate=2 --games 400
    .venv/bin/python research/teacher_agreement.py flight-tycoon --players 4 --teacher search --games 40
    .venv/bin/python research/teacher_agreement.py airport-scramble --teacher search:gate=2 --student ppo --along ppo
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
from aerodeck.agents.base import Agent, act  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from aerodeck.agents.streams import decision_keys  # noqa: E402
from aerodeck.envs.common.rng import game_seeds  # noqa: E402
from aerodeck.arena.args import load_rules  # noqa: E402
from aerodeck.arena.loop import agent_seed, play_games  # noqa: E402


class Probe(Agent):
    """Plays ``along``'s moves and asks the teacher (twice) and the heuristic at each decision; ``counts``
    adds up what agreed. Each asked agent draws from the probe's decision keys mixed with its own key."""

    needs_view = True

    def __init__(self, along, teachers, heuristic, student=None, seed=0, rules=None) -> None:
        super().__init__(seed, rules)
        self.along, self.teachers, self.heuristic, self.student = along, teachers, heuristic, student
        names = ["decisions", "teacher_same", "departures", "departures_again"]
        if student is not None:
            names += ["student_same", "student_departures", "departures_student_makes"]
        self.counts = dict.fromkeys(names, 0)

    def _count(self, live, first, second, rule_of_thumb, student) -> None:
        """Add the decisions of the games ``live`` (``bool (B,)``) to the counts."""
        counts = self.counts
        departs = live & (first != rule_of_thumb)
        teacher_same = live & (first == second)
        counts["decisions"] += int(live.sum())
        counts["teacher_same"] += int(teacher_same.sum())
        counts["departures"] += int(departs.sum())
        counts["departures_again"] += int((departs & teacher_same).sum())
        if student is not None:
            student_same = live & (student == first)
            counts["student_same"] += int(student_same.sum())
            counts["student_departures"] += int((live & (student != rule_of_thumb)).sum())
            counts["departures_student_makes"] += int((departs & student_same).sum())

    def _ask(self, agent, observations, masks, view, keys):
        own = None if keys is None else decision_keys(agent.key, keys, np.zeros(keys.size, np.int64))
        return act(agent, observations, masks, view, own)

    def act(self, observations, masks, view=None, keys=None):
        first, second = (self._ask(t, observations, masks, view, keys) for t in self.teachers)
        rule_of_thumb = self._ask(self.heuristic, observations, masks, view, keys)
        answers = {self.heuristic: rule_of_thumb}
        student = None
        if self.student is not None:
            student = answers[self.student] = self._ask(self.student, observations, masks, view, keys)
        live = masks.any(1)  # (a lone agent's batch holds its finished games too: not decisions)
        self._count(live, first, second, rule_of_thumb, student)
        if self.along in answers:  # (its moves are already known)
            return answers[self.along]
        return self._ask(self.along, observations, masks, view, keys)


def measure(game: str, teacher: str, along: str, games: int, seed: int, players: int | None = None,
            student: str | None = None) -> dict:
    """The counts and proportions of one measurement (see the module docstring)."""
    spec = envs.spec(game)
    rules = load_rules(spec, None, [], players=players)
    core = spec.make_core(rules, check_actions=False)
    heuristic = make_agent(game, "heuristic", rules, seed=agent_seed(seed, 0))
    teachers = [make_agent(game, teacher, rules, seed=agent_seed(seed, k)) for k in (1, 2)]
    student_agent = make_agent(game, student, rules, seed=agent_seed(seed, 4)) if student else None
    along_agent = {"heuristic": heuristic, student: student_agent}.get(along) or make_agent(
        game, along, rules, seed=agent_seed(seed, 3))
    probe = Probe(along_agent, teachers, heuristic, student_agent, seed=seed, rules=rules)
    play_games(core, [probe], game_seeds(seed, games), make_view=spec.make_view, progress=False)
    return {"game": game, "players": core.n_players, "teacher": teacher, "along": along, "student": student,
            "games": games, "seed": seed, "counts": probe.counts, "proportions": proportions(probe.counts)}


def proportions(c: dict) -> dict:
    """The proportions printed, from the counts of :class:`Probe`."""
    share = {"teacher_self_agreement": c["teacher_same"] / c["decisions"],
             "teacher_departure_rate": c["departures"] / c["decisions"],
             "departures_made_again": c["departures_again"] / max(c["departures"], 1)}
    if "student_same" in c:
        share.update({"student_teacher_agreement": c["student_same"] / c["decisions"],
                      "student_departure_rate": c["student_departures"] / c["decisions"],
                      "teacher_departures_student_makes": c["departures_student_makes"] / max(c["departures"], 1)})
    return share


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=[s.id for s in envs.specs()])
    parser.add_argument("--teacher", default="search", help="the agent spec asked twice (default: search)")
    parser.add_argument("--along", default="heuristic", help="the agent whose moves are played (default: heuristic)")
    parser.add_argument("--student", default=None, help="an agent spec asked once, compared with the teacher")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "benchmarks")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    try:
        result = measure(args.game, args.teacher, args.along, args.games, args.seed, args.players, args.student)
    except ValueError as err:  # a bad agent spec or player count: the message names what is allowed
        parser.error(str(err))
    c = result["counts"]
    print(f"{args.game}: {c['decisions']:,} decisions of {args.games} games ({args.along} playing, seed {args.seed})")
    for name, value in result["proportions"].items():
        print(f"  {name.replace('_', ' ')}: {value:.3f}")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"teacher_agreement-{args.game}.json"
    path.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

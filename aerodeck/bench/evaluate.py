"""The benchmark's evaluation protocol (``Task.evaluate``): greedy masked play on a task's held-out deals
through the arena's play loop (``aerodeck.arena.loop.play_games``, as ``aerodeck bench`` plays), the raw
score per game and the normalized score, each with its 95 % interval.

Flight Tycoon: in evaluation game ``g`` the learner sits at seat ``g mod n`` (every seat equally often)
and, on a population task, member ``g mod m`` of the population plays the other seats (so over
``lcm(n, m)`` games every seat meets every member equally often). The opponents' seeds are the task's
own (:func:`opponent_seed`), so they play the same way against every agent evaluated. The raw score
is the learner's win share (1/k for a k-way shared win by the FT-12 standings, else 0).

A raw score's interval is Student's t over the games (Airport Scramble) or Wilson's score interval over
the win shares (Flight Tycoon: a t interval shrinks to a point when every game is lost, as random loses
nearly every game against three heuristic players). The normalized score's interval maps the raw one through the task's references
(measured once on the same deals, each the mean over several agent seeds) and widens it by the
references' own standard errors (delta method: ``z = (x − r) / (h − r)``, half-width
``sqrt(hx² + (1.96 se_r (1 − z))² + (1.96 se_h z)²) / (h − r)``). On a rules-generalization task each
game's score is normalized by its variant's own references and averaged over the held-out variants (the
variants play the same deals): the interval is the t interval of those per-deal averages, widened by the
variants' reference errors averaged the same way.
"""

from __future__ import annotations

import numpy as np

from aerodeck.bench.deals import task_key
from aerodeck.bench.results import Evaluation, Interval, mean_interval, share_interval


def check_game_count(games) -> int:
    """``games`` if it is a positive integer, else ``ValueError`` saying what is allowed."""
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    return int(games)


def opponent_seed(task) -> int:
    """The seed of a task's opponents in evaluation (their key: fixed by the task's name)."""
    return task_key(task.name + "/opponents")


def learner_agent(task, agent, rules, seed: int):
    """The agent that plays the learner's seat under ``rules``: built from a spec or a ``rules -> Agent``
    callable, or ``agent`` itself."""
    from aerodeck.agents.base import Agent
    from aerodeck.agents.registry import make_agent

    if isinstance(agent, str):
        return make_agent(task.game, agent, rules, seed=seed)
    if isinstance(agent, Agent):
        if task.general:
            raise ValueError(f"task {task.name} plays {len(task.test_variants)} rule variants: give an agent spec "
                             "or a callable rules -> Agent that builds the agent for each variant")
        return agent
    if callable(agent):
        built = agent(rules)
        if not callable(getattr(built, "act", None)):
            raise ValueError(f"the agent factory gave {type(built).__name__}, not an agent with act()")
        return built
    raise ValueError(f"agent must be an agent spec, an aerodeck Agent or a callable rules -> Agent; got {agent!r}")


def agent_label(agent) -> str:
    """How an evaluated agent is named in results."""
    if isinstance(agent, str):
        return agent
    return str(getattr(agent, "name", None) or getattr(agent, "__name__", None) or type(agent).__name__)


def lineups(task, games: int) -> tuple[np.ndarray, np.ndarray]:
    """The seats of evaluation games ``0 .. games-1``: ``lineup`` ``int64 (games, n)`` — the agent index
    of each seat, 0 the learner and 1.. the opponents (the distinct specs of ``task.opponents`` in order)
    — and the learner's seat ``int64 (games,)``."""
    n = task.players
    g = np.arange(games)
    seat = g % n
    lineup = np.zeros((games, n), np.int64)
    distinct = list(dict.fromkeys(task.opponents))
    for offset in range(1, n):
        if task.population:
            who = 1 + g % len(distinct)
        else:
            who = np.full(games, 1 + distinct.index(task.opponents[offset - 1]))
        lineup[g, (seat + offset) % n] = who
    return lineup, seat


def play(task, rules, learner, seeds: np.ndarray, *, batch_size: int = 4096, progress=False) -> np.ndarray:
    """The learner's raw score in each game of ``seeds`` under ``rules``: ``float64 (G,)``."""
    from aerodeck.arena.loop import play_games

    spec = task.spec
    core = spec.make_core(rules, check_actions=False)
    if spec.solo:
        out = play_games(core, [learner], seeds, batch_size=batch_size, progress=progress,
                         make_view=spec.make_view, summary=spec.summary_of())
        return out["score"][:, 0]
    lineup, seat = lineups(task, seeds.size)
    agents = [learner, *task.opponent_agents(rules, opponent_seed(task))]
    out = play_games(core, agents, seeds, lineup, batch_size=batch_size, progress=progress,
                     make_view=spec.make_view, summary=spec.summary_of())
    return out["win_share"][np.arange(seeds.size), seat]


def normalized_interval(task, raw: Interval, variant: int | None = None) -> Interval:
    """``raw`` mapped through the task's references (random → 0, heuristic → 1); the interval also carries
    the references' own standard errors (their play's noise on the deals), by the delta method."""
    z = task.normalize(raw.value, variant)
    half = _half(task, (raw.high - raw.low) / 2, z, variant)
    return Interval(z, z - half, z + half, raw.n)


def _half(task, raw_half: float, z, variant: int | None) -> float:
    """The normalized half-width: the raw one and the references' (``z``: the normalized score)."""
    ref = task.reference if variant is None else task.reference["variants"][variant]
    span = abs(ref["heuristic"] - ref["random"])
    t = 1.959963984540054
    se_r, se_h = ref.get("random_se") or 0.0, ref.get("heuristic_se") or 0.0
    return float(np.sqrt(raw_half**2 + (t * se_r * (1 - z)) ** 2 + (t * se_h * z) ** 2) / span)


def evaluate(task, agent, games: int | None = None, seed: int = 0, *, batch_size: int = 4096,
             progress=False) -> Evaluation:
    """See :meth:`aerodeck.bench.tasks.Task.evaluate`."""
    from aerodeck.envs.common.checks import check_seed

    games = task.eval_games if games is None else check_game_count(games)
    seed = check_seed(seed)
    seeds = task.eval_seeds(games)
    label = agent_label(agent)
    if not task.general:
        scores = play(task, task.rules, learner_agent(task, agent, task.rules, seed), seeds,
                      batch_size=batch_size, progress=progress)
        raw = mean_interval(scores) if task.spec.solo else share_interval(scores)
        return Evaluation(task.name, label, seed, scores, raw,
                          normalized_interval(task, raw) if task.has_reference else None)
    rows, figures = [], []
    for v, rules in enumerate(task.test_variants):
        scores = play(task, rules, learner_agent(task, agent, rules, seed), seeds, batch_size=batch_size,
                      progress=progress)
        rows.append(scores)
        raw = mean_interval(scores) if task.spec.solo else share_interval(scores)
        figures.append({"rules": rules.changes(), "raw": raw.to_dict(),
                        "normalized": normalized_interval(task, raw, v).to_dict() if task.has_reference else None})
    scores = np.stack(rows)
    raw = mean_interval(scores.mean(axis=0))
    if not task.has_reference:
        return Evaluation(task.name, label, seed, scores, raw, None, tuple(figures))
    per_deal = np.mean([task.normalize(s, v) for v, s in enumerate(rows)], axis=0)
    mean = mean_interval(per_deal)  # the deals' spread; then each variant's references', averaged over variants
    z = [task.normalize(float(s.mean()), v) for v, s in enumerate(rows)]
    refs = np.sqrt(sum(_half(task, 0.0, z[v], v) ** 2 for v in range(len(rows)))) / len(rows)
    half = float(np.hypot((mean.high - mean.low) / 2, refs))
    return Evaluation(task.name, label, seed, scores, raw, Interval(mean.value, mean.value - half, mean.value + half,
                                                                    mean.n), tuple(figures))

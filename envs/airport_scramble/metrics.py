"""Airport Scramble's metric catalogue: what ``aerodeck compare / sweep / tune`` measure per game.

:data:`CATALOGUE` lists the metrics (definition, unit, the rules each reads; ``docs/metrics.md`` is
their table) and :class:`Recorder` measures them as a step observer of the batched core (see
``aerodeck.envs.common.metrics``). The recorder reads each step's outcome from the state after the step and
the few fields it kept from before it (plane, points, die, ticket, phase, redraw flag), so it costs a
handful of array operations per step whatever the agent.
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.airport_scramble.actions import KINDS, STOP_EARLY
from aerodeck.envs.airport_scramble.position import LINE_CHOICE
from aerodeck.envs.airport_scramble.rules import DIE_SIDES, AirportScrambleRules
from aerodeck.envs.common.metrics import Catalogue, Metric

#: Score columns of the distribution: 0 … 9 tickets, then 10 or more.
SCORE_COLUMNS = tuple(str(k) for k in range(10)) + ("10+",)
#: Rows of the action mix by turn of the ticket: turn 1 … 7 of the current ticket, then 8 or later.
TICKET_TURN_ROWS = tuple(str(k) for k in range(1, DIE_SIDES)) + (f"{DIE_SIDES}+",)
#: Rows of the action mix by stage: tickets completed so far.
STAGE_ROWS = ("0 done", "1 done", "2 done", "3+ done")
#: Columns of cards in play over the game: after turn 1 … 39, then 40 or later.
TURN_COLUMNS = tuple(str(k) for k in range(1, 40)) + ("40+",)


def ticket_labels(rules: AirportScrambleRules) -> tuple[str, ...]:
    """One label per ticket of the edition, e.g. ``"0 CDG-JFK 8"`` (id, origin, destination, card turns)."""
    comp = rules.components
    return tuple(f"{t} {comp.codes[o]}-{comp.codes[d]} {n}" for t, (o, d, n) in
                 enumerate(zip(comp.ticket_origin, comp.ticket_destination, comp.ticket_turns)))


#: Columns of the completion rate by the ticket's turns: 1 … 16 (AS-3: up to 8 on the die plus a
#: ``ticket_turn_bonus`` of up to 8), the same for every variant so that variants compare.
TICKET_TURN_COLUMNS = tuple(str(k) for k in range(1, 2 * DIE_SIDES + 1))


def metrics(rules: AirportScrambleRules | None = None) -> tuple[Metric, ...]:
    """The catalogue for ``rules`` (the breakdowns by ticket and by turns depend on the edition)."""
    rules = rules or AirportScrambleRules()
    return (
        Metric("score", "tickets completed in the game", "tickets", "AS-12, AS-16", headline=True,
               practical=0.1),
        Metric("zero_tickets", "games that end with no ticket completed", "share of games", "AS-13, AS-16",
               kind="share", headline=True),
        Metric("one_ticket", "games that end with exactly one ticket completed", "share of games", "AS-16",
               kind="share"),
        Metric("three_plus", "games with three or more tickets completed", "share of games", "AS-16",
               kind="share", headline=True),
        Metric("won", "games won: every ticket completed, the ticket deck empty (the other end cause is a "
               "failed ticket)", "share of games", "AS-13, AS-14, AS-16", kind="share"),
        Metric("turns", "turns played in the game (a turn ends when its action points are spent)", "turns",
               "AS-7, AS-13", headline=True, plot="histogram",
               practical=0.5),
        Metric("decisions", "decisions taken in the game (turn actions and line choices)", "decisions",
               "AS-18"),
        Metric("turns_per_ticket", "turns used per completed ticket, the turn of completion included "
               "(Σ over games / Σ tickets completed)", "turns", "AS-3, AS-13", headline=True,
               practical=0.25),
        Metric("line_removals", "lines removed because of a pre-played ticket", "lines per game", "AS-15",
               headline=True, practical=0.1),
        Metric("preplayed", "drawn tickets whose two airports were already in play (shuffled back, "
               "redrawn or kept, as preplayed_rule says; the set-up ticket never counts)", "tickets per game",
               "AS-6, AS-15", headline=True, practical=0.1),
        Metric("cards_in_play", "airport cards on the table when the game ends", "cards", "AS-5, AS-9, AS-15"),
        Metric("score_distribution", "share of games ending with each score", "share of games", "AS-16",
               kind="share", columns=SCORE_COLUMNS, plot="distribution"),
        Metric("ticket_completion", "completion rate of each ticket: completed / attempted, where a ticket is "
               "attempted once it is the current ticket", "share of attempts", "AS-3, AS-12, AS-13",
               kind="rate", columns=ticket_labels(rules)),
        Metric("completion_by_turns", "completion rate of tickets by their turns (the card's plus "
               "ticket_turn_bonus)", "share of attempts", "AS-3, AS-13", kind="rate", columns=TICKET_TURN_COLUMNS),
        Metric("action_mix", "share of decisions of each kind (a flight short of the reach is stop_early)",
               "share of decisions", "AS-8, AS-9, AS-10, AS-11, AS-15", kind="rate", columns=KINDS),
        Metric("action_mix_by_ticket_turn", "share of decisions of each kind in turn k of the current ticket "
               "(a line choice counts in turn 1 of the ticket drawn after it)", "share of decisions",
               "AS-3, AS-8…AS-11, AS-13, AS-15", kind="rate", rows=TICKET_TURN_ROWS, columns=KINDS, plot="stacked"),
        Metric("action_mix_by_stage", "share of decisions of each kind by tickets completed so far",
               "share of decisions", "AS-8…AS-11, AS-15, AS-16", kind="rate", rows=STAGE_ROWS, columns=KINDS),
        Metric("cards_in_play_by_turn", "airport cards on the table at the end of turn k, over the games "
               "still going then", "cards", "AS-5, AS-9, AS-15", columns=TURN_COLUMNS, plot="curve"),
    )


#: The catalogue (``GameSpec.metrics`` names it); ``metrics(rules)`` labels the tickets of another edition.
CATALOGUE = Catalogue(
    game="airport-scramble",
    metrics=metrics(),
    metrics_for="aerodeck.envs.airport_scramble.metrics:metrics",
    recorder="aerodeck.envs.airport_scramble.metrics:Recorder",
    default_agents=("heuristic", "random"),
    deal_options=("edition", "grid_size", "face_up", "n_colors", "plain_per_color", "hubs", "n_tickets",
                  "ticket_turns", "deck_seed"),
    skill_gap="score",
    # the heuristic, and the expert (a small search whose candidates the shipped network proposes, valued by
    # rollouts under the variant's own rules: docs/agents.md, "Strength per second")
    judges=("heuristic", "expert"),
    # what `aerodeck tune` found for a heuristic mean score between 3 and 5 tickets with a large skill gap
    # to random (docs/designers.md); `aerodeck run` ends by comparing it with the standard edition
    showcase=("action_points=4", "face_up=6", "max_replace=3", "ticket_turn_bonus=3"),
)


class Recorder:
    """Measures :func:`metrics` for ``n_games`` games (indices ``0 … n_games-1``) as they are played.

    ``on_start(core, state, games)`` when games start, ``on_step(core, state, actions, rewards, games)``
    after every batched step (``state`` after the step, ``actions`` int ``(B,)``, ``rewards`` float32
    ``(B, 1)``, ``games`` int ``(B,)`` the state's rows as game indices); ``result()`` then gives each
    metric's ``(numerator, denominator)``, float64 ``(n_games, width)``.
    """

    def __init__(self, core, n_games: int, lineups=None, focus: int = 0) -> None:
        G = n_games
        self.n_tickets = core.T
        self.ticket_turns = np.asarray(core.turns, np.int64)  # AS-3: the card's turns plus the bonus
        self.n_kinds = len(KINDS)
        self.turn_cap = len(TURN_COLUMNS)
        # kept from before each step, by game
        self.plane = np.zeros(G, np.int64)
        self.points = np.zeros(G, np.int64)
        self.die = np.zeros(G, np.int64)
        self.ticket = np.full(G, -1, np.int64)
        self.phase = np.zeros(G, np.int64)
        self.redraw = np.zeros(G, bool)
        self.over = np.zeros(G, bool)
        # counts, by game
        self.score = np.zeros(G, np.int64)
        self.won = np.zeros(G, bool)
        self.turns = np.zeros(G, np.int64)
        self.decisions = np.zeros(G, np.int64)
        self.turns_used = np.zeros(G, np.int64)
        self.line_removals = np.zeros(G, np.int64)
        self.preplayed = np.zeros(G, np.int64)
        self.cards = np.zeros(G, np.int64)
        self.completed = np.zeros((G, self.n_tickets), np.int64)
        self.failed = np.zeros((G, self.n_tickets), np.int64)
        self.by_ticket_turn = np.zeros((G, len(TICKET_TURN_ROWS) * self.n_kinds), np.int64)
        self.by_stage = np.zeros((G, len(STAGE_ROWS) * self.n_kinds), np.int64)
        self.cards_by_turn = np.zeros((G, self.turn_cap), np.int64)
        self.alive_by_turn = np.zeros((G, self.turn_cap), np.int64)

    def _keep(self, state, games) -> None:
        """Remember what the next step's outcome is read against."""
        self.plane[games] = state.plane
        self.points[games] = state.points
        self.die[games] = state.die
        self.ticket[games] = state.ticket
        self.phase[games] = state.phase
        self.redraw[games] = state.redraw_used

    def on_start(self, core, state, games) -> None:
        """Games ``games`` start from ``state`` (AS-6: the set-up ticket is never pre-played)."""
        games = np.asarray(games, np.int64)
        self._keep(state, games)
        self.over[games] = state.done

    def on_step(self, core, state, actions, rewards, games) -> None:
        """Read one batched step's outcome (``state`` after the step)."""
        games = np.asarray(games, np.int64)
        live = np.flatnonzero(~self.over[games])  # rows whose game took this step's action
        if live.size == 0:
            return
        g = games[live]
        a = np.asarray(actions)[live].astype(np.int64)
        G, G2 = core.G, core.G2
        # The kind of each decision: the action's block; a flight is stop_early when the cell past its
        # end is occupied (AS-8: the reach went further). A flight never changes the grid.
        kind = core.index_kinds[a].astype(np.int64)
        fly = np.flatnonzero(a < core.actions.n_fly)
        if fly.size:
            d, k = a[fly] // (G - 1), a[fly] % (G - 1) + 1
            past = core.ray[self.plane[g[fly]], d, k]  # the cell k + 1 steps away (G² off the grid)
            grid = state.grid.reshape(len(state.done), G2)
            occupied = np.zeros(fly.size, bool)
            inside = past < G2
            occupied[inside] = grid[live[fly][inside], past[inside]] >= 0
            kind[fly[occupied]] = KINDS.index(STOP_EARLY)
        ticket, die, choosing = self.ticket[g], self.die[g], self.phase[g] == LINE_CHOICE
        turn_of_ticket = np.where(choosing | (ticket < 0), 0, self.ticket_turns[np.maximum(ticket, 0)] - die)
        row = np.minimum(turn_of_ticket, len(TICKET_TURN_ROWS) - 1)
        self.by_ticket_turn[g, row * self.n_kinds + kind] += 1
        stage = np.minimum(self.score[g], len(STAGE_ROWS) - 1)
        self.by_stage[g, stage * self.n_kinds + kind] += 1
        self.decisions[g] += 1
        self.line_removals[g] += choosing
        # AS-12/16: a reward is a completed ticket; it took the turns of the die so far, this one included.
        done_now = np.asarray(rewards).reshape(len(state.done), -1)[live, 0] > 0
        c = np.flatnonzero(done_now & (ticket >= 0))
        self.completed[g[c], ticket[c]] += 1
        self.turns_used[g[c]] += turn_of_ticket[c] + 1
        self.score[g] = state.score[live]
        # AS-7/13: a turn action spends at least a point, so the points left only stay or grow when the
        # turn ended (a new one began) — or the game ended at that turn's end.
        post_done = state.done[live]
        ended = ~choosing & ((state.points[live] >= self.points[g]) | post_done)
        e = np.flatnonzero(ended)
        if e.size:
            ge = g[e]
            self.turns[ge] += 1
            column = np.minimum(self.turns[ge], self.turn_cap) - 1
            self.cards_by_turn[ge, column] += state.n_placed[live[e]]
            self.alive_by_turn[ge, column] += 1
        # AS-15: a pre-played ticket leads to a line choice, a redraw, or is kept.
        new_ticket = state.ticket[live].astype(np.int64)
        drawn = (new_ticket >= 0) & (new_ticket != ticket)
        both_in_play = np.zeros(live.size, bool)
        dr = np.flatnonzero(drawn)
        if dr.size:
            loc = state.location[live[dr]]
            t = new_ticket[dr]
            rows = np.arange(dr.size)
            both_in_play[dr] = (loc[rows, core.origin[t]] >= 0) & (loc[rows, core.origin[t]] < G2) & \
                (loc[rows, core.destination[t]] >= 0) & (loc[rows, core.destination[t]] < G2)
        redrawn = state.redraw_used[live] & (~self.redraw[g] | ended)
        self.preplayed[g] += (state.phase[live] == LINE_CHOICE) + redrawn + both_in_play
        # The end: a failed ticket stays current (AS-13); a won game has none (AS-14).
        f = np.flatnonzero(post_done)
        if f.size:
            gf = g[f]
            last = new_ticket[f]
            lost = last >= 0
            self.failed[gf[lost], last[lost]] += 1
            self.won[gf] = ~lost
            self.cards[gf] = state.n_placed[live[f]]
            self.over[gf] = True
        self._keep(state, games)

    def result(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per metric ``(numerator, denominator)``, float64 ``(n_games, width)``."""
        G = len(self.score)
        ones = np.ones((G, 1))
        score = self.score.astype(np.float64)[:, None]

        def plain(values) -> tuple[np.ndarray, np.ndarray]:
            return np.asarray(values, np.float64).reshape(G, -1), ones

        def mix(counts, width) -> tuple[np.ndarray, np.ndarray]:
            """Counts by (row, kind) over the decisions of their row."""
            per_row = counts.reshape(G, -1, width).sum(axis=2, keepdims=True)
            return counts.astype(np.float64), np.repeat(per_row, width, axis=2).reshape(G, -1).astype(np.float64)

        distribution = np.zeros((G, len(SCORE_COLUMNS)))
        distribution[np.arange(G), np.minimum(self.score, len(SCORE_COLUMNS) - 1)] = 1
        attempts = self.completed + self.failed
        by_turns = np.zeros((G, len(TICKET_TURN_COLUMNS)))
        by_turns_attempts = np.zeros_like(by_turns)
        for t, n in enumerate(self.ticket_turns):
            by_turns[:, n - 1] += self.completed[:, t]
            by_turns_attempts[:, n - 1] += attempts[:, t]
        kinds = self.by_stage.reshape(G, -1, self.n_kinds).sum(axis=1)
        return {
            "score": (score, ones),
            "zero_tickets": plain(self.score == 0),
            "one_ticket": plain(self.score == 1),
            "three_plus": plain(self.score >= 3),
            "won": plain(self.won),
            "turns": plain(self.turns),
            "decisions": plain(self.decisions),
            "turns_per_ticket": (self.turns_used.astype(np.float64)[:, None], score),
            "line_removals": plain(self.line_removals),
            "preplayed": plain(self.preplayed),
            "cards_in_play": plain(self.cards),
            "score_distribution": (distribution, np.ones_like(distribution)),
            "ticket_completion": (self.completed.astype(np.float64), attempts.astype(np.float64)),
            "completion_by_turns": (by_turns, by_turns_attempts),
            "action_mix": (kinds.astype(np.float64),
                           np.repeat(self.decisions[:, None], self.n_kinds, axis=1).astype(np.float64)),
            "action_mix_by_ticket_turn": mix(self.by_ticket_turn, self.n_kinds),
            "action_mix_by_stage": mix(self.by_stage, self.n_kinds),
            "cards_in_play_by_turn": (self.cards_by_turn.astype(np.float64), self.alive_by_turn.astype(np.float64)),
        }

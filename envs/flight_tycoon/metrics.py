"""Flight Tycoon's metric catalogue: what ``aerodeck compare / sweep / tune`` measure per game.

:data:`CATALOGUE` lists the metrics (definition, unit, the rules each reads; ``docs/metrics.md`` is
their table) and :class:`Recorder` measures them as a step observer of the batched core (see
``aerodeck.envs.common.metrics``), from the state after each step and the few fields it kept from before it
(phase, hands, discards, VP, stock).

Readings: a game's *turns* are its requests (FT-8; a turn passed for want of a target is not
counted). Every request ends in a landing or a collision before the game can end (FT-12 ends games
at the end of a turn), so the tokens left on the map are the landings (FT-10 returns a colliding
turn's token). Seats are counted from the starting player (FT-7): position 1 plays first.
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.common.bits import popcount
from aerodeck.envs.common.metrics import Catalogue, Metric
from aerodeck.envs.flight_tycoon.rules import CARD_BITS, DISCARD, GIVE, MONTH_BITS, N_SQUARES, N_SUITS, OVER, REQUEST, SQUARE_NAMES

#: Columns of the end cause (FT-12); a game may end with both the stock and the deck empty.
END_CAUSES = ("stock", "deck", "no_real_cards")
#: Positions from the starting player, enough for every player count (FT-5: at most 5).
POSITIONS = ("1st", "2nd", "3rd", "4th", "5th")


def metrics(rules=None) -> tuple[Metric, ...]:
    """The catalogue (the same for every rules object; positions past the player count stay undefined)."""
    return (
        Metric("first_player_win", "share of the win going to the starting player (a shared win is split); "
               "fair share 1/n", "share of games", "FT-7, FT-12", kind="share", headline=True, seat_share=True),
        Metric("win_by_position", "share of the win by seat position from the starting player (Wilson "
               "intervals); fair share 1/n each", "share of games", "FT-7, FT-12", kind="share",
               columns=POSITIONS, seat_share=True, same_as=(("1st", "first_player_win"),)),
        Metric("skill_gap", "in a table mixing agents: share of the win going to the seats of the first agent "
               "named (the stronger; fair share: its seats / n)", "share of games", "FT-12", kind="share",
               headline=True),
        Metric("game_length", "turns in the game (requests made)", "turns", "FT-8, FT-12", headline=True,
               plot="histogram", practical=1.0),
        Metric("end_cause", "what ended the game: empty stock, empty deck, no real card in any hand (a game "
               "may end on more than one)", "share of games", "FT-12", kind="share", columns=END_CAUSES),
        Metric("ended_by_stock", "games that end with the token stock empty", "share of games", "FT-4, FT-12",
               kind="share", headline=True),
        Metric("landings", "requests that landed", "landings per game", "FT-10", headline=True, practical=0.5),
        Metric("collisions", "requests that collided", "collisions per game", "FT-10", headline=True,
               practical=0.5),
        Metric("tower_blocks", "collisions where only a tower matched the received card's month (it alone "
               "is discarded)", "collisions per game", "FT-2, FT-10"),
        Metric("last_card_collisions", "share of gives of a tower month's last real card (every other real "
               "card of that month discarded or laid aside) that collided", "share of such gives",
               "FT-2, FT-6, FT-9, FT-10", kind="rate"),
        Metric("landings_by_square", "share of all landings on each schedule square", "share of landings",
               "FT-3, FT-10, FT-11", kind="rate", columns=SQUARE_NAMES, plot="heatmap"),
        Metric("vp_by_square", "share of all VP scored on each schedule square", "share of VP",
               "FT-3, FT-11", kind="rate", columns=SQUARE_NAMES, plot="heatmap"),
        Metric("vp_concentration", "Herfindahl index of a game's VP over the squares (Σ share²): 1/24 ≈ 0.04 "
               "if spread evenly, 1 if one square gave all VP", "index", "FT-3, FT-11", headline=True, practical=0.01),
        Metric("vp_margin", "final VP of the winner minus the best other player's", "VP", "FT-11, FT-12",
               headline=True, plot="histogram", practical=0.5),
        Metric("mean_vp", "final VP per player", "VP", "FT-11"),
        Metric("lead_changes", "times the VP lead passed to another player (a tie keeps the lead)",
               "changes per game", "FT-11", headline=True, plot="histogram", practical=0.25),
        Metric("tie_rate", "games whose win is shared (equal VP and real cards)", "share of games", "FT-12",
               kind="share", headline=True),
        Metric("decisions", "decisions taken in the game, every seat together", "decisions", "FT-16"),
    )


CATALOGUE = Catalogue(
    game="flight-tycoon",
    metrics=metrics(),
    recorder="aerodeck.envs.flight_tycoon.metrics:Recorder",
    default_agents=("heuristic", "random"),
    deal_options=("n_players", "hand_size"),
    skill_gap="skill_gap",
    # the heuristic, and the expert (a small search whose candidates the shipped network proposes, valued by
    # rollouts under the variant's own rules: docs/agents.md, "Strength per second")
    judges=("heuristic", "expert"),
)


class Recorder:
    """Measures :func:`metrics` for ``n_games`` games (indices ``0 … n_games-1``) as they are played.

    ``lineups``: the agent index of each seat, int ``(n_games, n)`` (``None``: one agent everywhere);
    ``focus``: the agent whose share of the win is the skill gap. Call ``on_start(core, state, games)``
    when games start and ``on_step(core, state, actions, rewards, games)`` after every batched step
    (``state`` after the step, ``games`` int ``(B,)`` the state's rows as game indices); ``result()``
    gives each metric's ``(numerator, denominator)``, float64 ``(n_games, width)``.
    """

    def __init__(self, core, n_games: int, lineups=None, focus: int = 0) -> None:
        G, n = n_games, core.n_players
        self.n = n
        lineups = np.zeros((G, n), np.int64) if lineups is None else np.asarray(lineups, np.int64)
        if lineups.shape != (G, n):
            raise ValueError(f"lineups must be ({G}, {n}), got {lineups.shape}")
        self.mixed = (lineups != lineups[:, :1]).any(axis=1)
        self.focus_seats = lineups == focus
        # kept from before each step, by game
        self.phase = np.zeros(G, np.int64)
        self.hand = np.zeros((G, n), np.uint64)
        self.discard = np.zeros(G, np.uint64)
        self.vp = np.zeros((G, n), np.int64)
        self.leader = np.full(G, -1, np.int64)
        self.over = np.zeros(G, bool)
        # counts, by game
        self.decisions = np.zeros(G, np.int64)
        self.requests = np.zeros(G, np.int64)
        self.tower_blocks = np.zeros(G, np.int64)
        self.last_gives = np.zeros(G, np.int64)
        self.last_collided = np.zeros(G, np.int64)
        self.lead_changes = np.zeros(G, np.int64)
        self.vp_by_square = np.zeros((G, N_SQUARES), np.int64)
        self.tokens = np.zeros((G, N_SQUARES), np.int64)
        self.final_vp = np.zeros((G, n), np.int64)
        self.win_share = np.zeros((G, n))
        self.start = np.zeros(G, np.int64)
        self.ends = np.zeros((G, len(END_CAUSES)), bool)

    def _keep(self, state, games) -> None:
        self.phase[games] = state.phase
        self.hand[games] = state.hand
        self.discard[games] = state.discard
        self.vp[games] = state.vp

    def on_start(self, core, state, games) -> None:
        """Games ``games`` start from ``state`` (the tower phase, FT-6)."""
        games = np.asarray(games, np.int64)
        self._keep(state, games)
        self.over[games] = state.done
        self.start[games] = state.start

    def on_step(self, core, state, actions, rewards, games) -> None:
        """Read one batched step's outcome (``state`` after the step)."""
        games = np.asarray(games, np.int64)
        live = np.flatnonzero(~self.over[games])
        if live.size == 0:
            return
        g = games[live]
        phase = self.phase[g]
        post_phase = state.phase[live]
        self.decisions[g] += 1
        self.requests[g] += phase == REQUEST
        # FT-10: the discards of this step — two cards for a collision with one real match, the received
        # card alone when only a tower matched, one card at a time around a discard choice.
        discard = state.discard[live]
        added = popcount(discard & ~self.discard[g])
        resolving = (phase == REQUEST) | (phase == GIVE)
        self.tower_blocks[g] += resolving & (added == 1) & (post_phase != DISCARD)
        # FT-9: a give happened when a give choice was made, or a request was answered by a forced give.
        give = (phase == GIVE) | ((phase == REQUEST) & (post_phase != GIVE))
        k = np.flatnonzero(give)
        if k.size:
            target = state.target[live[k]].astype(np.int64)
            given = self.hand[g[k], target] & ~state.hand[live[k], target]  # one real card (none: a tower)
            real = given != 0
            # the one set bit's index; a given tower (FT-9 with tower_giveable) has none: card 0 stands in,
            # and `real` keeps it out of the counts
            card = np.where(real, np.bitwise_count(given - np.uint64(1)).astype(np.int64), 0)
            month = card // N_SUITS
            laid = state.laid[live[k]].astype(np.int64)
            laid_of_month = ((laid >= 0) & (laid // N_SUITS == month[:, None])).sum(axis=1)
            gone = popcount(self.discard[g[k]] & MONTH_BITS[month]) + laid_of_month
            last = real & (laid_of_month > 0) & (gone == N_SUITS - 1)  # a tower's month, its last real card
            collided = (discard[k] & CARD_BITS[card]) != 0
            self.last_gives[g[k]] += last
            self.last_collided[g[k]] += last & collided
        # FT-11: VP changes only at a landing, on the square just requested.
        vp = state.vp[live].astype(np.int64)
        gained = (vp - self.vp[g]).sum(axis=1)
        s = np.flatnonzero(gained > 0)
        self.vp_by_square[g[s], state.square[live[s]].astype(np.int64)] += gained[s]
        # The lead: a unique VP maximum; a tie keeps the previous leader.
        top = vp.max(axis=1)
        unique = (vp == top[:, None]).sum(axis=1) == 1
        leader = np.where(unique, vp.argmax(axis=1), self.leader[g])
        self.lead_changes[g] += (self.leader[g] >= 0) & (leader != self.leader[g])
        self.leader[g] = leader
        # FT-12: the end.
        f = np.flatnonzero(state.done[live] | (post_phase == OVER))
        if f.size:
            gf, rows = g[f], live[f]
            self.final_vp[gf] = state.vp[rows]
            self.tokens[gf] = state.tokens[rows]
            standing = core.standings(state)[rows]
            winners = standing == standing.max(axis=1, keepdims=True)
            self.win_share[gf] = winners / winners.sum(axis=1, keepdims=True)
            self.ends[gf, 0] = state.stock[rows] == 0
            self.ends[gf, 1] = state.deck[rows] == 0
            self.ends[gf, 2] = (state.hand[rows] == 0).all(axis=1)
            self.over[gf] = True
        self._keep(state, games)

    def result(self) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per metric ``(numerator, denominator)``, float64 ``(n_games, width)``."""
        G, n = self.win_share.shape
        ones = np.ones((G, 1))

        def plain(values) -> tuple[np.ndarray, np.ndarray]:
            return np.asarray(values, np.float64).reshape(G, -1), ones

        position = (np.arange(n)[None, :] - self.start[:, None]) % n  # seat -> position from the start
        by_position = np.zeros((G, len(POSITIONS)))
        np.put_along_axis(by_position, position, self.win_share, axis=1)
        position_den = np.zeros_like(by_position)
        position_den[:, :n] = 1
        landings = self.tokens.sum(axis=1)
        total_vp = self.vp_by_square.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            share = self.vp_by_square / total_vp[:, None]
        hhi = np.where(total_vp > 0, np.nan_to_num(share**2).sum(axis=1), 0.0)
        ranked = np.sort(self.final_vp, axis=1)
        mixed = self.mixed.astype(np.float64)[:, None]
        return {
            "first_player_win": plain(by_position[:, 0]),
            "win_by_position": (by_position, position_den),
            "skill_gap": ((self.win_share * self.focus_seats).sum(axis=1)[:, None] * mixed, mixed),
            "game_length": plain(self.requests),
            "end_cause": (self.ends.astype(np.float64), np.ones((G, len(END_CAUSES)))),
            "ended_by_stock": plain(self.ends[:, 0]),
            "landings": plain(landings),
            "collisions": plain(self.requests - landings),
            "tower_blocks": plain(self.tower_blocks),
            "last_card_collisions": (self.last_collided.astype(np.float64)[:, None],
                                     self.last_gives.astype(np.float64)[:, None]),
            "landings_by_square": (self.tokens.astype(np.float64),
                                   np.repeat(landings[:, None], N_SQUARES, axis=1).astype(np.float64)),
            "vp_by_square": (self.vp_by_square.astype(np.float64),
                             np.repeat(total_vp[:, None], N_SQUARES, axis=1).astype(np.float64)),
            "vp_concentration": (hhi[:, None], (total_vp > 0).astype(np.float64)[:, None]),
            "vp_margin": plain(ranked[:, -1] - ranked[:, -2]),
            "mean_vp": plain(self.final_vp.mean(axis=1)),
            "lead_changes": plain(self.lead_changes),
            "tie_rate": plain((self.win_share > 0).sum(axis=1) > 1),
            "decisions": plain(self.decisions),
        }

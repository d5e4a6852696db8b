"""The batched engine: B games of Airport Scramble as numpy arrays (leading axis = game).

Same behaviour as ``reference.py`` game by game (the differential test checks it after every step).
The hot path has no Python loop over games: play legality is one AND over (B, F, G²) against
per-cell neighbour colour bits kept up to date as cards are placed, reach is a table lookup on the
occupancy bits of the plane's row and column, draws are the k-th remaining card by id from the
counter-based stream (``envs/common/rng.py``), several draws of a game in one pass. The rare AS-15
line-choice phase works on the subset of games in it; large scratch arrays are reused.
"""

from __future__ import annotations

import numpy as np

from envs.airport_scramble.actions import KINDS, STOP_EARLY, explain_illegal
from envs.airport_scramble.kernel import legal_rows, observe_rows
from envs.airport_scramble.lines import choosable_lines, line_cells
from envs.airport_scramble.position import LINE_CHOICE, TURN_ACTION, Position
from envs.airport_scramble.rules import AirportScrambleRules
from envs.airport_scramble.state import State
from envs.airport_scramble.tables import ISOLATED, OCCUPIED, tables
from envs.common import rng
from envs.common.batch import flat, restore_state, save_state
from envs.common.bits import BIT, kth_member, pack_set, set_size
from envs.common.checks import check_seeds, refuse_illegal, step_actions


def _enumerate(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(row, j)``, int64, one entry per item of ``counts[row]`` items: j = 0 .. counts[row] - 1, row by row."""
    row = np.repeat(np.arange(len(counts)), counts)
    return row, np.arange(len(row)) - np.repeat(np.cumsum(counts) - counts, counts)


def occupancy_bits(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(row_bits, col_bits)``, each ``uint16 (n, G)``, of grids ``int8 (n, G, G)``: bit c of
    ``row_bits[:, r]`` and bit r of ``col_bits[:, c]`` tell whether cell (r, c) holds a card."""
    occupied = (grid >= 0).astype(np.uint16)
    weights = (1 << np.arange(grid.shape[1])).astype(np.uint16)
    return (occupied * weights).sum(axis=2, dtype=np.uint16), (occupied * weights[:, None]).sum(axis=1, dtype=np.uint16)


class AirportScrambleCore:
    """B games of Airport Scramble under one rules object (``envs.common.core.Core``).

    ``init(seeds) -> State``; ``legal_mask(state) -> bool (B, n_actions)``; ``observe(state) ->
    float32 (B, obs_size)``; ``step(state, actions) -> float32 (B, 1)`` rewards (mutates ``state``);
    ``reset(state, games, seeds)``; ``reseed(state, seeds)``; ``save`` / ``restore``;
    ``load_positions(positions)`` / ``snapshot(state, i)`` to build or read single games. With
    ``check_actions`` (default) ``step`` refuses an illegal action with an ``IllegalActionError``
    naming the game, the action and why; trusted callers that draw from ``legal_mask`` (rollouts,
    benchmarks, the environments, which check against their own mask) pass ``check_actions=False``.
    """

    #: Airport Scramble is a solo game: one seat, 0.
    n_players = 1

    def __init__(self, rules: AirportScrambleRules | None = None, check_actions: bool = True) -> None:
        if rules is None:
            rules = AirportScrambleRules()
        if not isinstance(rules, AirportScrambleRules):
            raise TypeError(f"rules must be an AirportScrambleRules, got {type(rules).__name__}")
        self.rules = rules
        self.check_actions = bool(check_actions)
        # The tables, read as the core's own attributes (one attribute lookup each in the hot path).
        self.tables = tables(rules)
        vars(self).update(vars(self.tables))
        self._cache: dict = {}  # small per-batch-size tables (see _steps)
        self.start = self._start_tables()
        at, lay, L = self.obs_start, self.observation, self.actions
        #: What ``kernel.observe_rows`` and ``kernel.legal_rows`` read besides the state (their docstrings).
        self._observe_tables = (
            np.array([at[name] for name in ("cell_hv", "plane", "slot_hv", "origin_hv", "die", "deck", "card_place",
                                            "ticket_deck")], np.int64),
            np.array([lay.die_scale, rules.action_points, self.N, self.T, self.place_scale, 1], np.float32),
            self.hv_values.view(np.float32).reshape(-1, 2), self.ticket_hv.view(np.float32).reshape(self.T + 1, 4),
            self.ticket_cards, self.ticket_code_offset, self.ticket_one_hot)
        self._legal_tables = (
            self.cell_row, self.cell_col, self.run_before, self.run_after, self.fly_table, self.slot_misfit,
            self.replace_table, np.array([L.play_offset, L.replace_offset, L.line_offset, L.wait, self.G,
                                          rules.stop_early_cost, rules.replace_cost, rules.allow_wait], np.int64))

    def _start_tables(self) -> State:
        """AS-6 by first ticket t (row t): the table before slots 1..F-1 are drawn.

        The origin lies at the centre with the plane on it, the destination in slot 0, both out of
        the airport deck; the ticket is out of the ticket deck."""
        T = self.T
        s = self._empty(T)
        t = np.arange(T)
        origin, destination = self.origin, self.destination
        s.deck[:] = True
        s.deck[t, origin] = False
        s.deck[t, destination] = False
        s.ticket_deck[:] = True
        s.ticket_deck[t, t] = False
        self._place(s, t, np.full(T, self.centre), origin)
        s.slots[:, 0] = destination
        s.location[t, destination] = self.G2
        s.deck_bits[:], s.ticket_bits[:] = pack_set(s.deck), pack_set(s.ticket_deck)
        return s

    # --- state creation ---------------------------------------------------------------------------

    def _empty(self, B: int) -> State:
        G, F, N = self.G, self.F, self.N
        return State(
            key=np.zeros(B, np.uint64),
            counter=np.zeros(B, np.int64),
            grid=np.full((B, G, G), -1, np.int8),
            plane=np.full(B, self.centre, np.int16),
            slots=np.full((B, F), -1, np.int8),
            deck=np.zeros((B, N), bool),
            ticket_deck=np.zeros((B, self.T), bool),
            ticket=np.full(B, -1, np.int8),
            die=np.zeros(B, np.int8),
            points=np.full(B, self.rules.action_points, np.int8),
            aboard=np.zeros(B, bool),
            phase=np.zeros(B, np.int8),
            redraw_used=np.zeros(B, bool),
            score=np.zeros(B, np.int16),
            done=np.zeros(B, bool),
            nb=np.repeat(self.nb_template[None], B, axis=0),
            location=np.full((B, N), -1, np.int16),
            row_bits=np.zeros((B, G), np.uint16),
            col_bits=np.zeros((B, G), np.uint16),
            cell_values=np.zeros((B, 2 * self.G2), np.float32),
            lines=np.zeros((B, 2, G, G), bool),
            deck_bits=np.zeros((B, -(-N // 64)), np.uint64),
            ticket_bits=np.zeros((B, 1), np.uint64),
            placed=np.zeros((B, self.G2), np.int16),
            n_placed=np.zeros(B, np.int16),
        )

    @staticmethod
    def _keys(seeds) -> np.ndarray:
        return rng.game_keys(check_seeds(seeds))

    def init(self, seeds) -> State:
        """New games, one per seed (AS-6 set-up). ``seeds``: integers (B,) in 0..2**64-1."""
        keys = self._keys(seeds)
        state = self._empty(len(keys))
        self._set_up(state, np.arange(len(keys)), keys)
        return state

    def reset(self, state: State, games, seeds) -> None:
        """Start new games (from ``seeds``, one per game) in place of ``games`` (indices) of ``state``."""
        games = np.asarray(games, np.int64).reshape(-1)
        keys = self._keys(seeds)
        if keys.shape != games.shape:
            raise ValueError(f"reset needs one seed per game: {games.size} games, {keys.size} seeds")
        self._set_up(state, games, keys)

    def _set_up(self, s: State, games: np.ndarray, keys: np.ndarray) -> None:
        """AS-6 for ``games``: the first ticket (random value 0) decides the table, the rest is drawn."""
        n = len(games)
        t = rng.draw_below_array(rng.stream_array(keys, np.zeros(n, np.int64)), self.T)  # the k-th of a full deck
        s.key[games], s.counter[games] = keys, 1
        start = self.start
        for name in ("grid", "nb", "location", "cell_values", "row_bits", "col_bits", "deck", "deck_bits",
                     "ticket_deck", "ticket_bits", "slots"):
            getattr(s, name)[games] = np.take(getattr(start, name), t, axis=0)
        s.plane[games] = self.centre
        s.placed[games] = 0  # (so that a reset game is field for field the game init gives)
        s.placed[games, 0], s.n_placed[games] = self.centre, 1  # (the start tables' one card)
        s.lines[games] = False
        s.ticket[games], s.die[games] = t, self.turns[t]
        s.points[games] = self.rules.action_points
        s.aboard[games] = True  # AS-6: the passenger boards at once
        s.phase[games] = TURN_ACTION
        s.redraw_used[games] = False
        s.score[games] = 0
        s.done[games] = False
        count = min(self.F - 1, self.N - 2)  # slots 1..F-1 in order; a slot stays empty if the deck is
        if count > 0:
            self._deal_slots(s, games, t, count)

    def _deal_slots(self, s: State, games: np.ndarray, t: np.ndarray, count: int) -> None:
        """AS-6: slots 1..count of the new games ``games`` (int64 (n,)), first ticket ``t`` (n,), drawn
        as ``_draw`` would draw them one by one (draw j: the k_j-th remaining card by id, counter 1 + j),
        all at once: the ranks among the start deck are the permutation prefix with Lehmer code k,
        decoded right to left (a later draw moves up past every earlier card at or below it)."""
        n, N = len(games), self.N
        words = np.take(self.start.deck_bits, t, axis=0)  # (n, W): every game's deck is its table's
        j = np.arange(count)
        values = rng.stream_array(s.key[games][:, None], 1 + j)  # (n, count)
        rank = rng.draw_below_array(values, set_size(words)[:, None] - j)
        for i in range(count - 2, -1, -1):
            later = rank[:, i + 1:]
            later += later >= rank[:, i:i + 1]
        card = kth_member(np.repeat(words, count, axis=0), rank.reshape(-1)).reshape(n, count)
        s.slots[games, 1 : count + 1] = card
        flat(s.location)[(games * N)[:, None] + card] = self.G2 + 1 + j
        flat(s.deck)[(games * N)[:, None] + card] = False
        if words.shape[1] == 1:
            s.deck_bits[games, 0] = words[:, 0] & ~np.bitwise_or.reduce(BIT[card], axis=1)
        else:
            s.deck_bits[games] = pack_set(s.deck[games])
        s.counter[games] += count

    def reseed(self, state: State, seeds) -> None:
        """Give every game a fresh random stream (key from ``seeds``, counter 0); the table is kept."""
        keys = self._keys(seeds)
        if keys.shape[0] != state.batch_size:
            raise ValueError(f"reseed needs {state.batch_size} seeds, got {keys.shape[0]}")
        state.key[:] = keys
        state.counter[:] = 0

    def load_positions(self, positions: list[Position]) -> State:
        """A state holding the given positions, game i = ``positions[i]`` (tests and scenarios build
        them with ``make_position``; ``ReferenceGame.from_position`` loads the same ones)."""
        B = len(positions)
        s = self._empty(B)
        for i, p in enumerate(positions):
            s.key[i], s.counter[i] = p.key, p.counter
            s.deck[i, sorted(p.deck)] = True
            s.ticket_deck[i, sorted(p.ticket_deck)] = True
            s.slots[i] = p.slots
            s.grid[i] = p.grid
            s.plane[i] = p.plane[0] * self.G + p.plane[1]
            for name in ("ticket", "die", "points", "aboard", "phase", "redraw_used", "score", "done"):
                getattr(s, name)[i] = getattr(p, name)
            for card, (r, c) in p.cards_in_play().items():
                s.location[i, card] = r * self.G + c
            for slot, card in enumerate(p.slots):
                if card >= 0:
                    s.location[i, card] = self.G2 + slot
        s.nb[:] = self.neighbour_bits(s.grid)
        s.row_bits[:], s.col_bits[:] = occupancy_bits(s.grid)
        s.placed[:], s.n_placed[:] = self._placed_cells(s.grid)
        s.deck_bits[:], s.ticket_bits[:] = pack_set(s.deck), pack_set(s.ticket_deck)
        s.cell_values.view(np.uint64)[:] = self.hv_values[s.grid.reshape(B, -1).view(np.uint8)]
        choosing = np.flatnonzero(s.phase == LINE_CHOICE)
        s.lines[choosing] = choosable_lines(s.grid[choosing])
        return s

    def snapshot(self, state: State, i: int) -> Position:
        """Game ``i`` of ``state`` as a :class:`Position` (what ``ReferenceGame.snapshot()`` gives)."""
        return Position(
            grid=tuple(tuple(int(x) for x in row) for row in state.grid[i]),
            plane=(int(state.plane[i]) // self.G, int(state.plane[i]) % self.G),
            slots=tuple(int(x) for x in state.slots[i]),
            deck=frozenset(np.flatnonzero(state.deck[i]).tolist()),
            ticket_deck=frozenset(np.flatnonzero(state.ticket_deck[i]).tolist()),
            ticket=int(state.ticket[i]),
            die=int(state.die[i]),
            points=int(state.points[i]),
            aboard=bool(state.aboard[i]),
            phase=int(state.phase[i]),
            redraw_used=bool(state.redraw_used[i]),
            score=int(state.score[i]),
            done=bool(state.done[i]),
            key=int(state.key[i]),
            counter=int(state.counter[i]),
        )

    def save(self, state: State) -> dict[str, np.ndarray]:
        """The whole batch as plain arrays (field name -> array; ``numpy.savez``-able)."""
        return save_state(state)

    def restore(self, saved) -> State:
        """The batch that :meth:`save` wrote (for these rules); ``ValueError`` naming a missing or
        misshapen field."""
        return restore_state(self.start, saved)

    def to_act(self, state: State) -> np.ndarray:
        """``int64 (B,)``: the seat to decide, 0 (solo), or -1 in a finished game."""
        return np.where(state.done, -1, 0).astype(np.int64)

    def explain_illegal(self, state: State, game: int, action: int) -> str | None:
        """Why ``action`` is illegal in game ``game`` of ``state`` now, or None if it is legal
        (``actions.explain_illegal`` on the game's snapshot)."""
        return explain_illegal(self.rules, self.snapshot(state, game), action)

    def action_kinds(self, state: State) -> np.ndarray:
        """``int8 (B, n_actions)``: the kind (index into ``actions.kinds``) of each legal action, -1
        where illegal; a flight shorter than the reach is ``stop_early`` (AS-8)."""
        B, G = state.batch_size, self.G
        kinds = np.where(self.legal_mask(state), self.index_kinds, np.int8(-1)).astype(np.int8)
        fly = kinds[:, : self.actions.n_fly].reshape(B, 4, G - 1)
        reach = self._reach(state, self._steps(B, 1), state.plane)  # (B, 4)
        early = (np.arange(1, G)[None, None, :] < reach[:, :, None]) & (fly >= 0)
        fly[early] = KINDS.index(STOP_EARLY)
        return kinds

    # --- cards moving -----------------------------------------------------------------------------

    @staticmethod
    def _draw(s: State, games: np.ndarray, counts: np.ndarray, bits: np.ndarray, present: np.ndarray):
        """Draw ``counts[i]`` cards, one after another, from the set of game ``games[i]`` (each holding
        enough), given both as ``bits`` ``uint64 (B, W)`` and as ``present`` ``bool (B, n)``.

        Draw j of a game is the k-th remaining card by id, ``k = draw_below(stream(key, counter + j),
        cards left)``, exactly as drawing one at a time. Returns ``(row, j, card)``, int64 arrays with
        one entry per card drawn, game by game in draw order: ``games[row]`` drew ``card`` as its
        draw ``j``. Removes the cards from ``bits`` and ``present``; advances the counters.
        """
        n, M = len(games), int(counts.max(initial=0))
        if M <= 1:
            row = np.arange(n) if M and counts.min() == 1 else np.flatnonzero(counts)
            j = np.zeros(len(row), np.int64)
        else:
            row, j = _enumerate(counts)
        g = games[row]
        words = np.take(bits, games, axis=0)
        values = rng.stream_array(s.key[g], s.counter[g] + j)
        k = rng.draw_below_array(values, set_size(words)[row] - j)  # among the cards left then
        for jj in range(1, M):  # -> rank among the cards before any draw (a game's draws are adjacent)
            at = np.flatnonzero(j == jj)
            rank = x = k[at]
            for _ in range(jj):  # x = rank + (earlier draws at or below x): a fixed point
                x = rank + sum(k[at - jj + i] <= x for i in range(jj))
            k[at] = x
        card = kth_member(np.take(words, row, axis=0), k)
        flat(present)[g * present.shape[1] + card] = False
        if words.shape[1] == 1:
            left = words[:, 0]
            np.bitwise_and.at(left, row, ~BIT[card])
            bits[games, 0] = left
        else:
            bits[games] = pack_set(present[games])
        s.counter[games] += counts
        return row, j, card

    def _place(self, s: State, games, cells, cards) -> None:
        """Put ``cards`` on ``cells`` of ``games`` (int64 (n,) each, one card per game) and update the
        derived fields around them."""
        G, G2 = self.G, self.G2
        flat(s.grid)[games * G2 + cells] = cards
        flat(s.location)[games * self.N + cards] = cells
        flat(s.placed)[games * G2 + s.n_placed[games]] = cells
        s.n_placed[games] += 1
        row, col = self.cell_row[cells], self.cell_col[cells]
        flat(s.row_bits)[games * G + row] |= self.position_bit[col]
        flat(s.col_bits)[games * G + col] |= self.position_bit[row]
        flat(s.cell_values.view(np.uint64))[games * G2 + cells] = self.hv_values[cards]
        nb = flat(s.nb)
        at = games * (G2 + 1) + cells
        nb[at] = nb[at] & ~ISOLATED | OCCUPIED
        # N and S neighbours see the card's V colour, E and W its H colour (off-grid: the scratch cell).
        at = np.take(self.neighbour.T, cells, axis=1) + games * (G2 + 1)  # (4, n): not (n, 4), a short last axis
        nb[at] = nb[at] & ~ISOLATED | np.take(self.neighbour_demand.T, cards, axis=1)

    def _placed_cells(self, grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The ``placed`` and ``n_placed`` fields computed from scratch for grids ``int8 (n, G, G)``."""
        empty = grid.reshape(len(grid), -1) < 0
        return np.argsort(empty, axis=1, kind="stable").astype(np.int16), (~empty).sum(axis=1).astype(np.int16)

    def neighbour_bits(self, grid: np.ndarray) -> np.ndarray:
        """``uint16 (n, G²+1)``: the ``nb`` field computed from scratch for grids ``int8 (n, G, G)``."""
        n, G = grid.shape[0], self.G
        ids = np.full((n, G + 2, G + 2), -1, np.int64)
        ids[:, 1:-1, 1:-1] = grid
        h, v = self.h_bits[ids], self.v_bits[ids]
        bits = h[:, 1:-1, :-2] | h[:, 1:-1, 2:] | v[:, :-2, 1:-1] | v[:, 2:, 1:-1]
        bits |= (grid >= 0) * OCCUPIED
        bits |= (bits == 0) * ISOLATED
        nb = np.full((n, self.G2 + 1), OCCUPIED, np.uint16)  # the scratch cell as in nb_template
        nb[:, : self.G2] = bits.reshape(n, -1)
        return nb

    # --- legal actions ------------------------------------------------------------------------------

    def _reach(self, s: State, games: np.ndarray, plane: np.ndarray) -> np.ndarray:
        """AS-8: int64 (len(games), 4) consecutive occupied cells from ``plane`` in each direction
        (N, E, S, W), read from the occupancy bits of the plane's row and column."""
        G = self.G
        row, col = self.cell_row[plane], self.cell_col[plane]
        # index of (bits, position) in the run tables
        in_row = flat(s.row_bits)[games * G + row].astype(np.intp) * G
        in_col = flat(s.col_bits)[games * G + col].astype(np.intp) * G
        reach = np.empty((len(games), 4), np.uint8)
        np.take(self.run_before, in_col + row, out=reach[:, 0])
        np.take(self.run_after, in_row + col, out=reach[:, 1])
        np.take(self.run_after, in_col + row, out=reach[:, 2])
        np.take(self.run_before, in_row + col, out=reach[:, 3])
        return reach.astype(np.intp)

    def _steps(self, B: int, step: int) -> np.ndarray:
        """``int64 (B,)``: 0, step, 2 step, ... (row offsets for flat indices; cached, read-only)."""
        key = ("steps", B, step)
        steps = self._cache.get(key)
        if steps is None:
            steps = self._cache[key] = np.arange(0, B * step, step)
            steps.flags.writeable = False
        return steps

    def legal_mask(self, state: State, out: np.ndarray | None = None) -> np.ndarray:
        """``bool (B, n_actions)``: the legal actions of each game's decision now (none if done;
        ``kernel.legal_rows``).

        ``out``: optional preallocated ``bool (B, n_actions)`` array (it may be a view) to write into.
        """
        s = state
        mask = np.empty((s.batch_size, self.n_actions), bool) if out is None else out
        legal_rows(mask, s.plane, s.row_bits, s.col_bits, s.points, s.nb, s.slots, s.deck, s.phase, s.lines, s.done,
                   *self._legal_tables)
        return mask

    # --- observation --------------------------------------------------------------------------------

    def observe(self, state: State, seat=None, out: np.ndarray | None = None) -> np.ndarray:
        """``float32 (B, obs_size)`` as laid out in ``ObservationLayout`` (docs/airport_scramble.md;
        ``kernel.observe_rows``).

        ``seat``: None or 0 (an int or integers (B,)): the one seat of this solo game.
        ``out``: optional preallocated ``float32 (B, obs_size)`` array (it may be a view) to write into.
        """
        if seat is not None and np.any(np.asarray(seat) != 0):
            raise ValueError(f"Airport Scramble has one seat: seat must be None or 0, got {seat!r}")
        s = state
        obs = np.empty((s.batch_size, self.obs_size), np.float32) if out is None else out
        observe_rows(obs, s.plane, s.slots, s.ticket, s.location, s.cell_values, s.die, s.points, s.aboard, s.phase,
                     s.redraw_used, s.score, s.deck, s.ticket_deck, *self._observe_tables)
        return obs

    # --- playing ------------------------------------------------------------------------------------

    def step(self, state: State, actions) -> np.ndarray:
        """Play one action per unfinished game (in place); return ``float32 (B, 1)`` rewards (AS-16).

        ``actions``: integers (B,); a finished game ignores its action. With ``check_actions`` an
        out-of-range action raises ``ValueError`` and an illegal one :class:`IllegalActionError`
        (before any game is stepped); without, every action must be legal (see ``legal_mask``).
        """
        s = state
        B = s.batch_size
        a = step_actions(actions, B, self.n_actions, ~s.done, check_range=self.check_actions)
        if self.check_actions:
            self._refuse_illegal(s, a)
        rewards = np.zeros((B, 1), np.float32)
        self._apply(s, a, rewards[:, 0])
        return rewards

    def _refuse_illegal(self, s: State, a: np.ndarray) -> None:
        """``IllegalActionError`` naming the first unfinished game whose action ``a`` (int64 (B,),
        in range where the game is on) is illegal, the action and why."""
        legal = self.legal_mask(s)[np.arange(s.batch_size), np.clip(a, 0, self.n_actions - 1)] | s.done
        refuse_illegal(legal, lambda game: f"Airport Scramble game {game}: action {int(a[game])} "
                                           f"({self.actions.describe(int(a[game]))}) is illegal: "
                                           f"{self.explain_illegal(s, game, int(a[game]))}")

    def _apply(self, s: State, a: np.ndarray, rewards: np.ndarray) -> None:
        """``step`` on checked actions ``a`` (int64 (B,)), adding each game's reward to ``rewards``
        (float32 (B,), a view of step's result)."""
        L = self.actions
        live = ~s.done
        turn = live & (s.phase == TURN_ACTION)
        choosing = np.flatnonzero(live & (s.phase == LINE_CHOICE))
        play = np.flatnonzero(turn & (a >= L.play_offset) & (a < L.replace_offset))
        fly = np.flatnonzero(turn & (a < L.play_offset))
        replace = np.flatnonzero(turn & (a >= L.replace_offset) & (a < L.line_offset))
        wait = np.flatnonzero(turn & (a == L.wait))
        if play.size or replace.size:
            self._play_and_replace(s, play, a[play] - L.play_offset, replace, a[replace] - L.replace_offset + 1)
        if fly.size:
            self._fly(s, fly, a[fly], rewards)
        if wait.size:
            s.points[wait] -= 1  # AS-11
        if choosing.size:
            self._remove_line(s, choosing, a[choosing] - L.line_offset)
        ended = np.flatnonzero(turn & (s.points == 0))  # AS-7: at 0 points the turn ends
        if ended.size:
            self._end_turn(s, ended)

    def _play_and_replace(self, s: State, play, play_rel, replace, slot_mask) -> None:
        """AS-9 play (place, refill the slot at once, empty if the deck is) and AS-10 replace (draw
        the replacements in slot order, then shuffle the chosen cards back), drawing in one pass."""
        F, N, G2 = self.F, self.N, self.G2
        slots, location = flat(s.slots), flat(s.location)
        slot, cell = play_rel // G2, play_rel % G2
        played_at = play * F + slot
        self._place(s, play, cell, slots[played_at].astype(np.int64))
        s.points[play] -= 1
        s.points[replace] -= self.rules.replace_cost
        refill = np.take(s.deck_bits, play, axis=0).any(axis=1)
        # The chosen slots of a replace, in slot order (a play refills its one slot the same way).
        chosen = np.take(self.replace_slots, slot_mask, axis=0).reshape(-1)  # (n * F,), -1 padded
        back = np.flatnonzero(chosen >= 0)
        back_game = replace[back // F]
        back_at = back_game * F + chosen[back]
        returned = slots[back_at].astype(np.int64)
        games = np.concatenate([play, replace])
        counts = np.concatenate([refill.astype(np.int64), self.replace_count[slot_mask]])
        row, j, card = self._draw(s, games, counts, s.deck_bits, s.deck)
        masks = np.concatenate([self.slot_bits[slot], slot_mask])
        target = self.replace_slots.reshape(-1)[masks[row] * F + j]
        game = games[row]
        slots[game * F + target] = card
        location[game * N + card] = G2 + target
        slots[played_at[~refill]] = -1
        flat(s.deck)[back_game * N + returned] = True
        location[back_game * N + returned] = -1
        if s.deck_bits.shape[1] == 1:
            back = s.deck_bits[:, 0]  # a contiguous view: the bits go back in place
            np.bitwise_or.at(back, back_game, BIT[returned])
        else:
            s.deck_bits[replace] = pack_set(s.deck[replace])

    def _fly(self, s: State, games, actions, rewards) -> None:
        """AS-8 and AS-12."""
        G = self.G
        d, k = actions // (G - 1), actions % (G - 1) + 1
        start = s.plane[games].astype(np.int64)
        reach = self._reach(s, games, start).reshape(-1)[np.arange(0, 4 * len(games), 4) + d]
        s.points[games] -= np.where(k == reach, 1, 1 + self.rules.stop_early_cost).astype(np.int8)
        s.plane[games] = self.ray.reshape(-1)[(start * 4 + d) * G + k - 1]
        if self.rules.pickup_in_flight:
            path = self.ray[start, d]  # (n, G) cells along the flight
            for j in range(int(k.max())):  # the cells along the path, in order
                on = k > j
                self._arrive(s, games[on], path[on, j], rewards)
        else:
            self._arrive(s, games, s.plane[games], rewards)

    def _arrive(self, s: State, games, cells, rewards) -> None:
        """AS-12: board at the origin; with the passenger aboard, complete at the destination."""
        t = s.ticket[games].astype(np.int64)
        active = t >= 0
        card = flat(s.grid)[games * self.G2 + cells]
        board = active & ~s.aboard[games] & (card == self.origin[t])
        complete = active & s.aboard[games] & (card == self.destination[t])
        s.aboard[games[board]] = True
        done = games[complete]
        if done.size:
            s.score[done] += 1
            rewards[done] += 1
            s.ticket[done] = -1  # set aside; the next is drawn at the start of the next turn
            s.die[done] = 0
            s.aboard[done] = False

    def _end_turn(self, s: State, games) -> None:
        """AS-13: the die goes down for an open ticket (at 0 the game is over); a new turn starts."""
        open_ = s.ticket[games] >= 0
        s.die[games[open_]] -= 1
        failed = open_ & (s.die[games] == 0)
        s.done[games[failed]] = True
        going = games[~failed]
        s.points[going] = self.rules.action_points
        s.redraw_used[going] = False
        drawing = going[s.ticket[going] < 0]
        if drawing.size:
            self._draw_ticket(s, drawing)

    def _draw_ticket(self, s: State, games) -> None:
        """AS-14, AS-15 and AS-12's board-on-draw for games that need a new ticket."""
        won = s.ticket_bits[games, 0] == 0
        s.done[games[won]] = True  # AS-14: the ticket deck is empty
        games = games[~won]
        if not games.size:
            return
        one = np.ones(len(games), np.int64)
        t = self._draw(s, games, one, s.ticket_bits, s.ticket_deck)[2]
        s.ticket[games], s.die[games], s.aboard[games] = t, self.turns[t], False
        origin, destination = s.location[games, self.origin[t]], s.location[games, self.destination[t]]
        preplayed = (origin >= 0) & (origin < self.G2) & (destination >= 0) & (destination < self.G2)
        rule = self.rules.preplayed_rule
        if rule == "remove_line" and preplayed.any():
            pre = games[preplayed]
            lines = choosable_lines(s.grid[pre])
            choose = lines.reshape(len(pre), -1).any(axis=1)  # else no line may be chosen: keep it
            back = pre[choose]
            s.ticket_deck[back, s.ticket[back]] = True
            s.ticket_bits[back, 0] |= BIT[s.ticket[back]]
            s.ticket[back], s.die[back], s.phase[back] = -1, 0, LINE_CHOICE
            s.lines[back] = lines[choose]
        elif rule == "redraw" and preplayed.any():
            again = games[preplayed & ~s.redraw_used[games]]  # at most once per turn
            s.ticket_deck[again, s.ticket[again]] = True
            s.ticket_bits[again, 0] |= BIT[s.ticket[again]]
            s.redraw_used[again] = True
            t2 = self._draw(s, again, one[: len(again)], s.ticket_bits, s.ticket_deck)[2]
            s.ticket[again], s.die[again] = t2, self.turns[t2]
        if self.rules.board_on_draw:
            kept = games[s.phase[games] == TURN_ACTION]
            on = s.grid.reshape(len(s.done), -1)[kept, s.plane[kept]] == self.origin[s.ticket[kept]]
            s.aboard[kept[on]] = True

    def _remove_line(self, s: State, games, rel) -> None:
        """AS-15: shuffle the chosen line back into the deck, relocate the plane, draw a ticket."""
        G2 = self.G2
        grid = s.grid.reshape(len(s.done), -1)
        for j, cells in line_cells(s.grid[games], rel // G2, rel % G2):
            gone = games[j]
            cards = grid[gone, cells]
            s.deck[gone, cards] = True
            s.location[gone, cards] = -1
            grid[gone, cells] = -1
            s.cell_values.view(np.uint64)[gone, cells] = 0
        s.nb[games] = self.neighbour_bits(s.grid[games])
        s.deck_bits[games] = pack_set(s.deck[games])
        s.row_bits[games], s.col_bits[games] = occupancy_bits(s.grid[games])
        s.placed[games], s.n_placed[games] = self._placed_cells(s.grid[games])
        lost = games[grid[games, s.plane[games]] < 0]
        if lost.size:  # nearest remaining card: Manhattan distance, then row, then column
            order = self.nearest[s.plane[lost]]
            nearest = np.argmax(grid[lost[:, None], order] >= 0, axis=1)
            s.plane[lost] = order[np.arange(len(lost)), nearest]
        s.phase[games] = TURN_ACTION
        self._draw_ticket(s, games)

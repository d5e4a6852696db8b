"""The batched engine: B games of Airport Scramble as numpy arrays (leading axis = game).

Same behaviour as ``reference.py`` game by game (the differential test checks it after every step).
The state keeps derived fields up to date as cards move: per-cell neighbour colour bits (a play is
legal when one AND says the card's colours fit), the occupancy bits of each row and column (reach is
a table lookup), both decks as bitsets (a draw is the k-th remaining card by id from the
counter-based stream, ``envs/common/rng.py``). The observation, the legal mask, the turn actions
and dealing are compiled, one game at a time (``kernel.py``); the rare AS-15 line choice is numpy on
the games in it.
"""

from __future__ import annotations

import numpy as np

from aerodeck.envs.airport_scramble.actions import KINDS, STOP_EARLY, explain_illegal
from aerodeck.envs.airport_scramble import kernel
from aerodeck.envs.airport_scramble.kernel import deal, draw_tickets, legal_rows, observe_rows, step_turns
from aerodeck.envs.airport_scramble.lines import choosable_lines, line_cells
from aerodeck.envs.airport_scramble.position import LINE_CHOICE, TURN_ACTION, Position
from aerodeck.envs.airport_scramble.rules import AirportScrambleRules
from aerodeck.envs.airport_scramble.state import State
from aerodeck.envs.airport_scramble.tables import ISOLATED, OCCUPIED, tables
from aerodeck.envs.common import compiled, rng
from aerodeck.envs.common.batch import flat, restore_state, save_state
from aerodeck.envs.common.bits import BIT, pack_set
from aerodeck.envs.common.checks import check_seeds, refuse_illegal, step_actions


def occupancy_bits(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(row_bits, col_bits)``, each ``uint16 (n, G)``, of grids ``int8 (n, G, G)``: bit c of
    ``row_bits[:, r]`` and bit r of ``col_bits[:, c]`` tell whether cell (r, c) holds a card."""
    occupied = (grid >= 0).astype(np.uint16)
    weights = (1 << np.arange(grid.shape[1])).astype(np.uint16)
    return (occupied * weights).sum(axis=2, dtype=np.uint16), (occupied * weights[:, None]).sum(axis=1, dtype=np.uint16)


class AirportScrambleCore:
    """B games of Airport Scramble under one rules object (``aerodeck.envs.common.core.Core``).

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
    #: The state's fields in the order the kernels take them (``kernel.step_turns``, ``deal``).
    _FIELDS = ("key", "counter", "grid", "plane", "slots", "deck", "ticket_deck", "ticket", "die", "points", "aboard",
               "phase", "redraw_used", "score", "done", "nb", "location", "row_bits", "col_bits", "cell_values",
               "deck_bits", "ticket_bits", "placed", "n_placed")

    def __init__(self, rules: AirportScrambleRules | None = None, check_actions: bool = True) -> None:
        compiled.announce(kernel)  # a first run compiles the kernels: one line says so
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
        hv_pairs = self.hv_values.view(np.float32).reshape(-1, 2)
        # What the kernels read besides the state (as their docstrings list them): observe_rows, legal_rows,
        # and step_turns / draw_tickets / deal.
        self._observe_tables = (
            np.array([at[name] for name in ("cell_hv", "plane", "slot_hv", "origin_hv", "die", "deck", "card_place",
                                            "ticket_deck")], np.int64),
            np.array([lay.die_scale, rules.action_points, self.N, self.T, self.place_scale, 1], np.float32),
            hv_pairs, self.ticket_hv.view(np.float32).reshape(self.T + 1, 4),
            self.ticket_cards, self.ticket_code_offset, self.ticket_one_hot)
        self._legal_tables = (
            self.cell_row, self.cell_col, self.run_before, self.run_after, self.fly_table, self.slot_misfit,
            self.replace_table, np.array([L.play_offset, L.replace_offset, L.line_offset, L.wait, self.G,
                                          rules.stop_early_cost, rules.replace_cost, rules.allow_wait], np.int64))
        preplayed = ("off", "remove_line", "redraw").index(rules.preplayed_rule)
        self._step_tables = (
            self.cell_row, self.cell_col, self.position_bit, self.run_before, self.run_after, self.ray, self.neighbour,
            self.neighbour_demand, hv_pairs, self.replace_slots,
            self.replace_count, self.turns, self.origin, self.destination,
            np.array([L.play_offset, L.replace_offset, L.line_offset, L.wait, self.G, rules.action_points,
                      rules.stop_early_cost, rules.replace_cost, rules.pickup_in_flight, rules.board_on_draw,
                      preplayed], np.int64))

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
        """AS-6 for ``games``: the first ticket (random value 0) decides the table, the rest is drawn
        (``kernel.deal``)."""
        s.lines[games] = False
        deal(games, keys, self._fields(s), self._fields(self.start), self._step_tables, self.centre,
             min(self.F - 1, self.N - 2))

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
        """``float32 (B, obs_size)`` as laid out in ``ObservationLayout`` (docs/airport-scramble.md;
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

    def _fields(self, s: State) -> tuple:
        """The fields of ``s`` in :attr:`_FIELDS` order (how the kernels take a state)."""
        return tuple(getattr(s, name) for name in self._FIELDS)

    def _apply(self, s: State, a: np.ndarray, rewards: np.ndarray) -> None:
        """``step`` on checked actions ``a`` (int64 (B,)), adding each game's reward to ``rewards``
        (float32 (B,), a view of step's result): the turn actions compiled (``kernel.step_turns``),
        the AS-15 line choices here."""
        live = ~s.done
        choosing = np.flatnonzero(live & (s.phase == LINE_CHOICE))
        turn = np.flatnonzero(live & (s.phase == TURN_ACTION))
        pending = np.empty(turn.size, np.int64)
        n = step_turns(turn, a, self._fields(s), self._step_tables, rewards, pending)
        self._preplayed(s, pending[:n])
        if choosing.size:
            self._remove_line(s, choosing, a[choosing] - self.actions.line_offset)

    def _draw_ticket(self, s: State, games) -> None:
        """AS-14, AS-15 and AS-12's board-on-draw for ``games`` (int64 (n,)), which need a new ticket."""
        pending = np.empty(len(games), np.int64)
        n = draw_tickets(games, self._fields(s), self._step_tables, pending)
        self._preplayed(s, pending[:n])

    def _preplayed(self, s: State, games) -> None:
        """AS-15 ``remove_line`` for ``games`` (int64 (n,)) that drew a pre-played ticket: the ticket goes
        back and a line is chosen next, if one may be (else the ticket is kept); then AS-12's
        board-on-draw for those that kept it."""
        if not games.size:
            return
        lines = choosable_lines(s.grid[games])
        choose = lines.reshape(len(games), -1).any(axis=1)
        back = games[choose]
        s.ticket_deck[back, s.ticket[back]] = True
        s.ticket_bits[back, 0] |= BIT[s.ticket[back]]
        s.ticket[back], s.die[back], s.phase[back] = -1, 0, LINE_CHOICE
        s.lines[back] = lines[choose]
        if self.rules.board_on_draw:
            kept = games[~choose]
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

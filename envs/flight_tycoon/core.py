"""The batched Flight Tycoon engine: B games as arrays, no Python loop over games in the hot path.

``FlightTycoonCore`` satisfies ``aerodeck.envs.common.core.Core`` (the contract every game's core meets;
``tests/test_contract.py``). Behaviour is that of ``reference.py`` game by game, bit for bit (same
random streams, same observations): the differential tests hold the two together.

A step plays one decision per game and then every forced step that follows (FT-16): towers →
requests → gives → landings / collisions → discards → draws → end of turn → next turn (passing turns
loop until the game waits for a decision or is over). The step and the observation are compiled
(``kernel.py``: one game at a time, no pass over the batch per stage); masks, deals and checks are
numpy on the whole batch.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from aerodeck.envs.common import compiled
from aerodeck.envs.common.batch import flat, restore_state, save_state
from aerodeck.envs.common.bits import BELOW, popcount, unpack_bits, unpack_words
from aerodeck.envs.common.checks import check_seeds, refuse_illegal, step_actions
from aerodeck.envs.common.rng import draw_below_array, game_keys, stream_array
from aerodeck.envs.flight_tycoon.actions import ActionLayout, illegal_reason
from aerodeck.envs.flight_tycoon.knowledge import sample_hidden
from aerodeck.envs.flight_tycoon.observation import CARD_SCALE, ObservationLayout, inverse
from aerodeck.envs.flight_tycoon.position import Position
from aerodeck.envs.flight_tycoon.rules import (
    ALL_CARDS, CARD_BITS, DISCARD, GIVE, MONTH_BITS, N_CARDS, N_MONTHS, N_SQUARES, OVER, REQUEST,
    SQUARE_BITS, TOWER, TOWER_MEETS, FlightTycoonRules, landing_vp_table,
)
from aerodeck.envs.flight_tycoon import kernel
from aerodeck.envs.flight_tycoon.kernel import MONTHS_BELOW, begin_turns, observe_rows, step_games
from aerodeck.envs.flight_tycoon.state import State

_MONTH_BIT = (1 << np.arange(N_MONTHS)).astype(np.uint16)
#: (slot + 1)/48 and count/48 as scaled in the observation, index = value (0 → 0.0).
_BY48 = np.arange(64, dtype=np.float32) * inverse(CARD_SCALE)


def standing(vp: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """FT-12 order key from VP (…, n) and packed real hands (…, n): ``vp · 64 + real cards``, int64."""
    return vp.astype(np.int64) * 64 + popcount(hand)


class FlightTycoonCore:
    """The batched engine for one rules object (``aerodeck.envs.common.core.Core``).

    ``n_actions`` = 48 + 24·(n−1) (FT-17, ``actions``), ``obs_size`` = 65·n + 158 (``observation``).
    With ``check_actions`` (default) ``step`` refuses malformed actions with a ``ValueError`` and
    illegal ones with an ``IllegalActionError`` naming the game, the action and why; without it
    (trusted callers: rollouts, benchmarks) actions are not looked at beyond their shape.
    """

    def __init__(self, rules: FlightTycoonRules | None = None, check_actions: bool = True) -> None:
        compiled.announce(kernel)  # a first run compiles the kernels: one line says so
        if rules is None:
            rules = FlightTycoonRules()
        if not isinstance(rules, FlightTycoonRules):
            raise TypeError(f"FlightTycoonCore needs a FlightTycoonRules, got {type(rules).__name__}")
        self.rules = rules
        self.n_players = n = rules.n_players
        self.actions = ActionLayout(rules)
        self.observation = lay = ObservationLayout(rules)
        self.n_actions = self.actions.n_actions
        self.obs_size = lay.size
        self.check_actions = check_actions
        self._giveable = rules.tower_giveable
        self._vp_table = landing_vp_table(rules).astype(np.int32)  # FT-11: [square, tokens there with the new one]
        self._per_vp = inverse(lay.vp_scale)
        self._per_token = inverse(lay.token_scale)
        # the kernel zeroes the towers block up to hand_size, and the one-hots from decision up to turn_slots
        assert lay["hand_size"].start == lay["towers"].stop and lay["turn_slots"].start == lay["turn_outcome"].stop
        self._seats = np.arange(n)
        #: absolute seat at offset t of seat s: ``_order[s, t]``.
        self._order = (self._seats[:, None] + self._seats[None, :]) % n
        #: The starts of the blocks ``kernel.observe_rows`` writes, in its order.
        self._kernel_offsets = np.array([lay[name].start for name in (
            "hand", "discard", "laid", "towers", "hand_size", "vp", "tokens", "deck", "stock", "decision", "decider",
            "turn_active", "turn_target", "turn_square", "turn_outcome", "turn_slots")], np.int64)
        blank = State.empty(1, n)  # what ``reset`` writes into a game before dealing
        self._blank = {name: value[0] for name, value in vars(blank).items()}

    # --- set-up ----------------------------------------------------------------------------------------

    def init(self, seeds) -> State:
        """New games, one per seed (integers in [0, 2**64), shape (B,)). FT-5 deal, FT-7 start player;
        the tower phase (FT-6) begins with seat 0."""
        seeds = check_seeds(seeds)
        st = State.empty(seeds.size, self.n_players)
        self._deal(st, slice(None), game_keys(seeds))
        return st

    def reset(self, state: State, games, seeds) -> None:
        """Start new games from ``seeds`` (one per game) in place of the games ``games`` (integer
        indices into ``state``, ``(k,)``); the other games are untouched."""
        games = np.asarray(games)
        seeds = check_seeds(seeds)
        if games.ndim != 1 or games.dtype.kind not in "iu" or games.size != seeds.size:
            raise ValueError(f"games must be {seeds.size} integer indices (one per seed), "
                             f"got {games.dtype} {games.shape}")
        if games.size and (games.min() < -state.batch_size or games.max() >= state.batch_size):
            raise ValueError(f"games must be indices into a batch of {state.batch_size}, got {games.tolist()}")
        for name, value in self._blank.items():  # every field as ``State.empty`` sets it …
            getattr(state, name)[games] = value
        self._deal(state, games, game_keys(seeds))  # … then the deal

    def _deal(self, st: State, games, keys: np.ndarray) -> None:
        """FT-5 and FT-7 for ``games`` (a slice or indices (k,)) of blank games ``st``: ``keys`` uint64 (k,).

        Draw i is the k_i-th remaining card by id, k_i = draw_below(stream(key, i), 48 − i). All draws
        at once: the cards are the permutation prefix whose Lehmer code is k, decoded right to left (a
        later draw moves up past every earlier card at or below it)."""
        n, h = self.n_players, self.rules.hand_size
        draws = n * h
        values = stream_array(keys[:, None], np.arange(draws + 1)[None, :])  # (k, draws + 1)
        cards = draw_below_array(values[:, :draws], N_CARDS - np.arange(draws))
        for i in range(draws - 2, -1, -1):
            later = cards[:, i + 1:]
            later += later >= cards[:, i:i + 1]
        hands = np.bitwise_or.reduce(CARD_BITS.take(cards).reshape(-1, n, h), axis=2)  # seat by seat
        st.key[games] = keys
        st.hand[games] = hands
        st.known[games] = hands
        st.deck[games] = ALL_CARDS & ~np.bitwise_or.reduce(hands, axis=1)
        st.start[games] = draw_below_array(values[:, draws], n)  # FT-7
        st.counter[games] = draws + 1
        st.stock[games] = self.rules.tokens

    def load_positions(self, positions: list[Position], seeds=None) -> State:
        """Games starting at the given positions (see ``Position``); random streams from ``seeds`` (default 0…)."""
        B, n = len(positions), self.n_players
        seeds = np.arange(B) if seeds is None else check_seeds(seeds)
        if seeds.size != B:
            raise ValueError(f"seeds: one per position ({B}), got {seeds.size}")
        st = State.empty(B, n)
        st.key[:] = game_keys(seeds)
        begins = []

        def bits(cards) -> np.uint64:
            return np.bitwise_or.reduce(CARD_BITS[list(cards)]) if len(cards) else np.uint64(0)

        for b, raw in enumerate(positions):
            pos = raw.normalized(self.rules)
            revealed = all(c is not None for c in pos.laid)
            laid = [c for c in pos.laid if c is not None]
            for p, cards in enumerate(pos.hands):
                st.hand[b, p] = bits(cards)
                st.known[b, p] = bits(cards) | bits(pos.known[p]) | bits(pos.discard)
                st.known[b, p] |= bits(laid) if revealed else bits([pos.laid[p]] if pos.laid[p] is not None else [])
            st.deck[b] = bits(pos.deck)
            st.discard[b] = bits(pos.discard)
            for t, card in enumerate(pos.laid):
                if card is None:
                    continue
                st.laid[b, t] = card
                holder = pos.tower_holders[t]
                st.tower_holder[b, t] = -1 if holder is None else holder
                if holder is not None:
                    st.tower_months[b, holder] |= _MONTH_BIT[card // 4]
            st.tokens[b] = pos.tokens
            st.stock[b] = pos.stock
            st.vp[b] = pos.vp
            st.start[b] = pos.start
            st.active[b] = pos.active
            if revealed:
                st.phase[b] = REQUEST
                begins.append(b)
        begin_turns(np.asarray(begins, np.int64), self._fields(st), np.zeros((B, n), np.float32), False)
        return st

    def reseed(self, state: State, seeds) -> None:
        """Give the games fresh random streams (key from ``seeds``, one per game, counter 0); the table is kept."""
        seeds = check_seeds(seeds)
        if seeds.size != state.batch_size:
            raise ValueError(f"seeds: one per game ({state.batch_size}), got {seeds.size}")
        state.key[:] = game_keys(seeds)
        state.counter[:] = 0

    def save(self, state: State) -> dict[str, np.ndarray]:
        """The whole batch as plain arrays (``State`` field name -> array; ``numpy.savez``-able)."""
        return save_state(state)

    def restore(self, saved) -> State:
        """The batch that :meth:`save` wrote; ``ValueError`` naming a missing or misshapen field."""
        return restore_state(State.empty(1, self.n_players), saved)

    # --- queries ---------------------------------------------------------------------------------------

    def to_act(self, state: State) -> np.ndarray:
        """``int64 (B,)``: the absolute seat whose decision it is (FT-16); −1 for a finished game."""
        seat = np.where(state.phase == GIVE, state.target, state.active).astype(np.int64)
        seat[state.phase == OVER] = -1
        return seat

    def _gifts(self, st: State, g: np.ndarray) -> np.ndarray:
        """FT-9: ``uint64 (k,)`` the gifts allowed to the target of games ``g`` (towers by their laid id)."""
        target = st.target[g]
        held = flat(st.hand).take(g * self.n_players + target)
        square = st.square[g]
        allowed = held & SQUARE_BITS.take(square)
        if self._giveable:
            towers = self._tower_bits(st, g, target)
            allowed |= towers & TOWER_MEETS[square]
            held = held | towers
        return np.where(allowed != 0, allowed, held)

    def _tower_bits(self, st: State, g: np.ndarray, seat: np.ndarray) -> np.ndarray:
        """``uint64 (k,)``: the laid-aside ids of the towers that ``seat`` holds."""
        holders, laid = st.tower_holder[g], st.laid[g]
        mine = (holders == seat[:, None]) & (laid >= 0)
        return np.bitwise_or.reduce(np.where(mine, CARD_BITS[laid], np.uint64(0)), axis=1)

    def _card_choices(self, st: State, g: np.ndarray) -> np.ndarray:
        """``uint64 (k,)``: the cards the decider may name (tower, give, discard); 0 for requests and over."""
        phase = st.phase[g]
        own = flat(st.hand).take(g * self.n_players + st.active[g])
        choices = np.where(phase == TOWER, own, np.uint64(0))
        choices = np.where(phase == DISCARD, own & MONTH_BITS.take(np.maximum(st.received[g], 0) >> 2), choices)
        give = np.flatnonzero(phase == GIVE)
        if give.size:
            choices[give] = self._gifts(st, g[give])
        return choices

    def _targets(self, st: State, g: np.ndarray) -> np.ndarray:
        """``bool (k, n−1)``: the player at offset 1 … n−1 holds a real card (FT-8)."""
        others = (g * self.n_players)[:, None] + self._order[:, 1:].take(st.active[g], axis=0)
        return flat(st.hand).take(others) != 0

    def legal_mask(self, state: State, games=None, out: np.ndarray | None = None) -> np.ndarray:
        """``bool (B, n_actions)`` for the seat in ``to_act`` (FT-16, FT-17; request targets by offset).

        ``games`` (optional index array): only those games, in that order. Finished games: all False.
        ``out``: optional preallocated ``bool (k, n_actions)`` array (it may be a view) to write into.
        """
        st = state
        g = np.arange(st.batch_size) if games is None else np.asarray(games, np.int64)
        mask = np.empty((g.size, self.n_actions), bool) if out is None else out
        mask[:, :N_CARDS] = unpack_words(self._card_choices(st, g))[:, :N_CARDS].view(bool)
        # FT-8: in a request, any other player holding a real card, any square
        targets = self._targets(st, g) & (st.phase[g] == REQUEST)[:, None]
        mask[:, N_CARDS:] = np.repeat(targets, N_SQUARES, axis=1)
        return mask

    # --- the step ----------------------------------------------------------------------------------------

    def step(self, state: State, actions, games=None) -> np.ndarray:
        """Play one decision in every unfinished game (or in ``games`` only) and the forced steps after it.

        ``actions``: integers (B,) — the action of the seat in ``to_act``; ignored for finished games
        and games outside ``games``. Mutates ``state``. Returns ``float32 (B, n)`` rewards by absolute
        seat: FT-15 ``outcome`` when a game ends, or ``vp`` at each landing.
        """
        st, n = state, self.n_players
        B = st.batch_size
        live = ~st.done
        if games is not None:
            chosen = np.zeros(B, bool)
            chosen[np.asarray(games)] = True
            live &= chosen
        actions = step_actions(actions, B, self.n_actions, live, check_range=self.check_actions)
        rewards = np.zeros((B, n), np.float32)
        idx = np.flatnonzero(live)
        if idx.size == 0:
            return rewards
        act = actions[idx].astype(np.int64)
        if self.check_actions:
            self._check(st, idx, act)
        # one decision per game, then the forced steps in rule order (compiled, one game at a time)
        step_games(idx, act, self._fields(st), self._vp_table, self._giveable, self.rules.reward == "vp",
                   self.rules.reward == "outcome", rewards)
        return rewards

    @staticmethod
    def _fields(st: State) -> tuple:
        """The state's arrays in ``State`` order, as the compiled step reads them."""
        return tuple(getattr(st, f.name) for f in dataclasses.fields(st))

    def _check(self, st: State, idx: np.ndarray, act: np.ndarray) -> None:
        """Refuse illegal actions (``act`` in range): ``IllegalActionError`` naming the first bad game,
        its action and why."""
        card = act < N_CARDS
        ok = card != (st.phase[idx] == REQUEST)
        choices = self._card_choices(st, idx)
        ok &= ~card | ((choices >> np.where(card, act, 0).astype(np.uint64)) & np.uint64(1) != 0)
        req = np.flatnonzero(ok & ~card)
        if req.size:
            offset = (act[req] - N_CARDS) // N_SQUARES
            ok[req] = self._targets(st, idx[req])[np.arange(req.size), offset]
        refuse_illegal(ok, lambda bad: f"Flight Tycoon game {int(idx[bad])}: "
                                       f"{self.explain_illegal(st, int(idx[bad]), int(act[bad]))}")

    def explain_illegal(self, state: State, game: int, action: int) -> str | None:
        """Why ``action`` is illegal in game ``game`` now, or ``None`` if it is legal (words of
        ``actions.illegal_reason``, which names the action and the rule)."""
        st, b = state, game
        if 0 <= action < self.n_actions and self.legal_mask(st, [b])[0, action]:
            return None
        seat = int(self.to_act(st.take([b]))[0])
        held = [int(c) for t, c in enumerate(st.laid[b]) if c >= 0 and st.tower_holder[b, t] == seat]
        hand = list(np.flatnonzero(unpack_bits(st.hand[b, seat], N_CARDS))) if seat >= 0 else []
        return illegal_reason(int(st.phase[b]), action, self.n_players, hand=hand, square=int(st.square[b]),
                              month=int(st.received[b]) >> 2 if st.received[b] >= 0 else -1,
                              tower_cards=held, tower_giveable=self._giveable)

    def action_kinds(self, state: State) -> np.ndarray:
        """``int8 (B, A)``: the kind (index into ``actions.kinds``) of each legal action now, −1 where
        illegal. A card action is the decision's kind (tower, give or discard: ``State.phase``, FT-16),
        a request action a request — the phase values are the kinds' indices."""
        return np.where(self.legal_mask(state), state.phase[:, None], np.int8(-1)).astype(np.int8, copy=False)


    def standings(self, state: State) -> np.ndarray:
        """``int64 (B, n)``: each seat's FT-12 finishing key — VP, then real cards in hand; higher is
        better and equal keys share the win (meaningful once a game is over)."""
        return standing(state.vp, state.hand)


    # --- observation -----------------------------------------------------------------------------------

    def observe(self, state: State, seat=None, games=None, out: np.ndarray | None = None) -> np.ndarray:
        """``float32 (B, obs_size)``: what ``seat`` may know, seats relative to it (``observation``, FT-13/14).

        ``seat``: an absolute seat (int) or one per game (integers (B,)); ``None``: the seat to act
        (seat 0 in a finished game). ``games`` (optional index array): only those games, in that order
        (then ``seat`` has one entry per listed game). ``out`` (optional): a C-contiguous ``float32
        (B, obs_size)`` array to write into and return — reusing one buffer step after step spares the
        allocation (the previous observation is overwritten).
        """
        st, n = state, self.n_players
        if seat is None:
            seat = np.maximum(self.to_act(st), 0)
            if games is not None:
                seat = seat[np.asarray(games, np.int64)]
        games = np.arange(st.batch_size) if games is None else np.asarray(games, np.int64)
        k = games.size
        seat = np.ascontiguousarray(np.broadcast_to(np.asarray(seat, np.int64), (k,)))
        if k and (seat.min() < 0 or seat.max() >= n):
            raise ValueError(f"seat must be in 0..{n - 1}")
        size = self.obs_size
        if out is None:
            out = np.empty((k, size), np.float32)
        elif out.shape != (k, size) or out.dtype != np.float32 or not out.flags.c_contiguous:
            raise ValueError(f"out must be a C-contiguous float32 array of shape {(k, size)}")
        observe_rows(out, games, seat, st.hand, st.known, st.discard, st.laid, st.tower_holder, st.tower_months,
                     st.vp, st.tokens, st.deck, st.stock, st.phase, st.active, st.target, st.record,
                     self._kernel_offsets, self._giveable, self._per_vp, self._per_token, _BY48, BELOW, MONTHS_BELOW)
        return out

    # --- search support --------------------------------------------------------------------------------

    def sample_hidden(self, state: State, seat, seeds) -> State:
        """Determinizations of ``state`` for ``seat`` (int or (B,)): see ``knowledge.sample_hidden``."""
        return sample_hidden(self, state, seat, seeds)

    # --- comparison with the reference -------------------------------------------------------------------

    def snapshot(self, state: State, game: int) -> dict:
        """Game ``game`` in the reference engine's ``snapshot()`` form."""
        st, b, n = state, game, self.n_players
        phase = int(st.phase[b])
        during = phase in (GIVE, DISCARD)

        def cards(word) -> list[int]:
            return [int(c) for c in np.flatnonzero(unpack_bits(word, N_CARDS))]

        return {
            "hands": [cards(st.hand[b, p]) for p in range(n)], "deck": cards(st.deck[b]),
            "discard": cards(st.discard[b]), "laid": [int(c) if c >= 0 else None for c in st.laid[b]],
            "tower_holders": [None if h < 0 else int(h) for h in st.tower_holder[b]],
            "tokens": list(map(int, st.tokens[b])), "stock": int(st.stock[b]), "vp": list(map(int, st.vp[b])),
            "phase": phase, "to_act": int(self.to_act(st.take([b]))[0]),
            "active": int(st.active[b]) if phase != OVER else None,
            "target": int(st.target[b]) if during else None, "square": int(st.square[b]) if during else None,
            "start": int(st.start[b]), "counter": int(st.counter[b]),
            "record": dict(zip(("active", "target", "square", "outcome", "give", "land", "discard", "draw"),
                               map(int, st.record[b]))),
            "known": [cards(st.known[b, o]) for o in range(n)], "done": bool(st.done[b]),
        }

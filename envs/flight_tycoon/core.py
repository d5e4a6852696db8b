"""The batched Flight Tycoon engine: B games as arrays, no Python loop over games in the hot path.

``FlightTycoonCore`` satisfies ``envs.common.core.Core`` (the contract every game's core meets;
``tests/test_contract.py``). Behaviour is that of ``reference.py`` game by game, bit for bit (same
random streams, same observations): the differential tests hold the two together.

A step plays one decision per game and then every forced step that follows (FT-16), stage by stage
on index arrays: towers → requests → gives → landings / collisions → discards → draws → end of turn
→ next turn (passing turns loop until every game waits for a decision or is over).
"""

from __future__ import annotations

import numpy as np

from envs.common.batch import flat, restore_state, save_state
from envs.common.bits import BELOW, kth_bit, popcount, unpack_bits, unpack_words
from envs.common.checks import check_seeds, refuse_illegal, step_actions
from envs.common.rng import draw_below_array, game_keys, stream_array
from envs.flight_tycoon.actions import ActionLayout, illegal_reason
from envs.flight_tycoon.knowledge import sample_hidden
from envs.flight_tycoon.observation import CARD_SCALE, ObservationLayout, inverse
from envs.flight_tycoon.position import Position
from envs.flight_tycoon.rules import (
    ALL_CARDS, CARD_BITS, COLLIDED, DISCARD, GIVE, LANDED, MONTH_BITS, N_CARDS, N_MONTHS, N_SQUARES, OVER, PASSED,
    PENDING, REQUEST, SQUARE_BITS, TOWER, TOWER_MEETS, FlightTycoonRules, landing_vp_table,
)
from envs.flight_tycoon.kernel import observe_rows
from envs.flight_tycoon.state import (
    REC_ACTIVE, REC_DISCARD, REC_DRAW, REC_GIVE, REC_LAND, REC_OUTCOME, REC_SQUARE, REC_TARGET, State,
)

#: ``uint16 (13,)``: tower months below m (bits 0 … m−1).
_MONTHS_BELOW = ((1 << np.arange(N_MONTHS + 1)) - 1).astype(np.uint16)
_MONTH_BIT = (1 << np.arange(N_MONTHS)).astype(np.uint16)
#: (slot + 1)/48 and count/48 as scaled in the observation, index = value (0 → 0.0).
_BY48 = np.arange(64, dtype=np.float32) * inverse(CARD_SCALE)
_EMPTY = np.zeros(0, np.int64)
#: A fresh turn record: nothing known yet, outcome pending (FT-13).
_NEW_RECORD = np.full(8, -1, np.int8)
_NEW_RECORD[REC_OUTCOME] = PENDING


def rec_width(st: State) -> int:
    """Columns of the turn record (flat index of column c of game b: b · width + c)."""
    return st.record.shape[1]


def standing(vp: np.ndarray, hand: np.ndarray) -> np.ndarray:
    """FT-12 order key from VP (…, n) and packed real hands (…, n): ``vp · 64 + real cards``, int64."""
    return vp.astype(np.int64) * 64 + popcount(hand)


def _cat(parts: list) -> np.ndarray:
    parts = [p for p in parts if p.size]
    return np.concatenate(parts) if len(parts) > 1 else (parts[0] if parts else _EMPTY)


def _merge(pairs: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """Concatenate (games, cards) pairs."""
    return _cat([g for g, _ in pairs]), _cat([c for _, c in pairs])


def _single_bit(words: np.ndarray) -> np.ndarray:
    """The index of the only set bit of each one-card word."""
    return np.bitwise_count(words - np.uint64(1)).astype(np.int64)


def _any_card(hands: np.ndarray) -> np.ndarray:
    """``bool (k,)``: some hand of the row holds a card (``hands`` uint64 (k, n); column ORs beat ``any(1)``)."""
    held = hands[:, 0].copy()
    for seat in range(1, hands.shape[1]):
        held |= hands[:, seat]
    return held != 0


def _in_flight(st: State, g: np.ndarray, card: np.ndarray) -> np.ndarray:
    """``bool (k,)``: ``card`` names the tower being given (its holder is −1 while in flight)."""
    return ((st.laid[g] == card[:, None]) & (st.tower_holder[g] < 0)).any(1)


def _has_month(tower_months: np.ndarray, month: np.ndarray) -> np.ndarray:
    return (tower_months >> month.astype(np.uint16)) & np.uint16(1) != 0


class FlightTycoonCore:
    """The batched engine for one rules object (``envs.common.core.Core``).

    ``n_actions`` = 48 + 24·(n−1) (FT-17, ``actions``), ``obs_size`` = 65·n + 158 (``observation``).
    With ``check_actions`` (default) ``step`` refuses malformed actions with a ``ValueError`` and
    illegal ones with an ``IllegalActionError`` naming the game, the action and why; without it
    (trusted callers: rollouts, benchmarks) actions are not looked at beyond their shape.
    """

    def __init__(self, rules: FlightTycoonRules | None = None, check_actions: bool = True) -> None:
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
        self._advance(st, _EMPTY, np.asarray(begins, np.int64), np.zeros((B, n), np.float32))
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

    def legal_mask(self, state: State, games=None) -> np.ndarray:
        """``bool (B, n_actions)`` for the seat in ``to_act`` (FT-16, FT-17; request targets by offset).

        ``games`` (optional index array): only those games, in that order. Finished games: all False.
        """
        st = state
        g = np.arange(st.batch_size) if games is None else np.asarray(games, np.int64)
        mask = np.empty((g.size, self.n_actions), bool)
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
        phase = st.phase[idx]

        def deciding(kind: int) -> tuple[np.ndarray, np.ndarray]:
            chosen = phase == kind
            return idx[chosen], act[chosen]

        # one decision per game, then the forced steps in rule order, each stage on all its games at once
        revealed = self._choose_tower(st, *deciding(TOWER))
        land_g, land_c, hit_g, hit_c = self._give(st, *_merge([self._request(st, *deciding(REQUEST)), deciding(GIVE)]))
        landed = self._land(st, land_g, land_c, rewards)
        single, tower_only = self._collide(st, hit_g, hit_c)
        discarded = self._discard_from_hand(st, *_merge([single, deciding(DISCARD)]))
        drawn = self._finish_collision(st, _cat([discarded, tower_only]))
        self._advance(st, _cat([landed, drawn]), revealed, rewards)
        return rewards

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

    def _slot(self, st: State, g: np.ndarray, seat: np.ndarray, card: np.ndarray, tower=None) -> np.ndarray:
        """FT-13 slot of ``card`` in the hand of ``seat``: the items sorted before it (a tower first in its month).

        ``tower`` (bool (k,), optional): ``card`` is the laid-aside id naming a tower.
        """
        month = card >> 2
        if tower is None:
            below, months = card, month + 1
        else:  # a tower's key is just before its month's first card
            below, months = np.where(tower, month * 4, card), np.where(tower, month, month + 1)
        at = g * self.n_players + seat
        return (np.bitwise_count(flat(st.hand).take(at) & BELOW.take(below))
                + np.bitwise_count(flat(st.tower_months).take(at) & _MONTHS_BELOW.take(months)))

    def _choose_tower(self, st: State, g: np.ndarray, card: np.ndarray) -> np.ndarray:
        """FT-6: lay ``card`` aside; the tower stands first within its month. Returns the games revealed."""
        if g.size == 0:
            return g
        seat = st.active[g]
        at = g * self.n_players + seat
        flat(st.hand)[at] &= ~CARD_BITS.take(card)
        flat(st.laid)[at] = card
        flat(st.tower_months)[at] |= _MONTH_BIT.take(card >> 2)
        last = seat == self.n_players - 1
        st.active[g[~last]] += 1
        reveal = g[last]
        if reveal.size:  # all have chosen: the laid cards are revealed at once (FT-6, FT-13)
            laid = np.bitwise_or.reduce(CARD_BITS[st.laid[reveal]], axis=1)
            self._learn_all(st, reveal, laid)
            st.active[reveal] = st.start[reveal]  # FT-7
        return reveal

    def _learn_all(self, st: State, g: np.ndarray, bits: np.ndarray) -> None:
        """Every seat of games ``g`` can locate the cards ``bits`` (uint64 (k,)) from now on (FT-14)."""
        flat(st.known)[(g * self.n_players)[:, None] + self._seats] |= bits[:, None]

    def _request(self, st: State, g: np.ndarray, act: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """FT-8: a token onto the square; the target gives (FT-9). Returns the forced gifts (games, cards)."""
        if g.size == 0:
            return g, g
        offset, square = np.divmod(act - N_CARDS, N_SQUARES)
        active = st.active[g]
        target = ((active + offset + 1) % self.n_players).astype(np.int8)
        st.target[g] = target
        st.square[g] = square
        flat(st.tokens)[g * N_SQUARES + square] += 1
        st.stock[g] -= 1
        rec = st.record
        rec[g] = _NEW_RECORD  # FT-13: the turn record starts afresh
        rec = flat(rec)
        at = g * rec_width(st)
        rec[at + REC_ACTIVE] = active
        rec[at + REC_TARGET] = target
        rec[at + REC_SQUARE] = square
        allowed = self._gifts(st, g)
        forced = np.bitwise_count(allowed) == 1  # FT-16: a single allowed card is no decision
        st.phase[g[~forced]] = GIVE
        return g[forced], _single_bit(allowed[forced])

    def _give(self, st: State, g: np.ndarray, card: np.ndarray):
        """FT-9: the target gives ``card``; its slot is public (FT-13), the card known to both (FT-14).

        Returns (games, cards) that land and (games, cards) that collide (FT-10).
        """
        if g.size == 0:
            return g, g, g, g
        n = self.n_players
        target, active = st.target[g], st.active[g]
        month = card >> 2
        bit = CARD_BITS.take(card)
        at_target, at_active = g * n + target, g * n + active
        give = g * rec_width(st) + REC_GIVE
        if self._giveable:
            tower = flat(st.hand).take(at_target) & bit == 0  # the laid-aside id names a tower
            flat(st.record)[give] = self._slot(st, g, target, card, tower)
            gt = g[tower]
            st.tower_months[gt, target[tower]] &= ~_MONTH_BIT[month[tower]]
            st.tower_holder[gt, (st.laid[gt] == card[tower][:, None]).argmax(1)] = -1  # in flight
        else:
            flat(st.record)[give] = self._slot(st, g, target, card)
        flat(st.hand)[at_target] &= ~bit
        flat(st.known)[at_active] |= bit
        hit = ((flat(st.hand).take(at_active) & MONTH_BITS.take(month) != 0)
               | _has_month(flat(st.tower_months).take(at_active), month))  # FT-10
        land = ~hit
        return g[land], card[land], g[hit], card[hit]

    def _land(self, st: State, g: np.ndarray, card: np.ndarray, rewards: np.ndarray) -> np.ndarray:
        """FT-10 landing at the sorted place; FT-11 VP for the active player."""
        if g.size == 0:
            return g
        active = st.active[g]
        if self._giveable:
            tower = _in_flight(st, g, card)
            gt = g[tower]
            st.tower_months[gt, active[tower]] |= _MONTH_BIT[card[tower] >> 2]
            st.tower_holder[gt, (st.laid[gt] == card[tower][:, None]).argmax(1)] = active[tower]
            real = ~tower
            st.hand[g[real], active[real]] |= CARD_BITS[card[real]]
            st.record[g, REC_LAND] = self._slot(st, g, active, card, tower)
        else:
            flat(st.hand)[g * self.n_players + active] |= CARD_BITS.take(card)
            st.record[g, REC_LAND] = self._slot(st, g, active, card)
        at = g * rec_width(st)
        flat(st.record)[at + REC_OUTCOME] = LANDED
        square = st.square[g].astype(np.int64)
        on_square = flat(st.tokens).take(g * N_SQUARES + square)
        gain = flat(self._vp_table).take(square * self._vp_table.shape[1] + on_square)
        flat(st.vp)[g * self.n_players + active] += gain
        if self.rules.reward == "vp":  # FT-15
            rewards[g, active] += gain
        return g

    def _collide(self, st: State, g: np.ndarray, card: np.ndarray):
        """FT-10: the received card is discarded face up with one real card of its month from the hand.

        Returns (games, card) whose single matching card is discarded now, and the games where only a
        tower matched (the received card alone is discarded); games with several matches wait for the
        active player's discard choice (FT-16d).
        """
        if g.size == 0:
            return (g, g), g
        active = st.active[g]
        month = card >> 2
        bit = CARD_BITS[card]
        if self._giveable:  # a received tower is simply out of play, not a discarded card
            bit = np.where(_in_flight(st, g, card), np.uint64(0), bit)
        st.discard[g] |= bit
        self._learn_all(st, g, bit)
        st.received[g] = card
        flat(st.record)[g * rec_width(st) + REC_OUTCOME] = COLLIDED
        same = flat(st.hand).take(g * self.n_players + active) & MONTH_BITS.take(month)
        matches = np.bitwise_count(same)
        st.phase[g[matches >= 2]] = DISCARD
        one = matches == 1
        return (g[one], _single_bit(same[one])), g[matches == 0]

    def _discard_from_hand(self, st: State, g: np.ndarray, card: np.ndarray) -> np.ndarray:
        """FT-10: a real card of the colliding month leaves the active player's hand, face up."""
        if g.size == 0:
            return g
        active = st.active[g]
        bit = CARD_BITS.take(card)
        flat(st.record)[g * rec_width(st) + REC_DISCARD] = self._slot(st, g, active, card)
        flat(st.hand)[g * self.n_players + active] &= ~bit
        st.discard[g] |= bit
        self._learn_all(st, g, bit)
        return g

    def _finish_collision(self, st: State, g: np.ndarray) -> np.ndarray:
        """FT-10: the token goes back to the stock; the active player draws (nothing from an empty deck)."""
        if g.size == 0:
            return g
        flat(st.tokens)[g * N_SQUARES + st.square[g]] -= 1
        st.stock[g] += 1
        d = g[st.deck[g] != 0]
        if d.size:
            value = stream_array(st.key[d], st.counter[d])
            st.counter[d] += 1
            deck = st.deck[d]
            card = kth_bit(deck, draw_below_array(value, popcount(deck)))
            bit = CARD_BITS.take(card)
            active = st.active[d]
            at = d * self.n_players + active
            st.deck[d] = deck & ~bit
            flat(st.hand)[at] |= bit
            flat(st.known)[at] |= bit
            flat(st.record)[d * rec_width(st) + REC_DRAW] = self._slot(st, d, active, card)
        return g

    def _advance(self, st: State, ends: np.ndarray, begins: np.ndarray, rewards: np.ndarray) -> None:
        """End the turns of ``ends`` (FT-12) and begin the turns of ``begins`` (FT-8), until every game waits."""
        n = self.n_players
        while ends.size or begins.size:
            if ends.size:  # FT-12: deck or stock empty, or no real card anywhere
                over = (st.deck[ends] == 0) | (st.stock[ends] == 0) | ~_any_card(np.take(st.hand, ends, axis=0))
                self._finish(st, ends[over], rewards)
                nxt = ends[~over]
                st.active[nxt] = (st.active[nxt] + 1) % n  # FT-7: clockwise
                begins = np.concatenate([begins, nxt]) if begins.size else nxt
            others = np.take(st.hand, begins, axis=0)
            others[np.arange(begins.size), st.active[begins]] = 0
            can = _any_card(others)
            st.phase[begins[can]] = REQUEST
            ends = begins[~can]  # FT-8: nobody else holds a real card — the turn passes
            if ends.size:
                st.record[ends] = -1
                st.record[ends, REC_ACTIVE] = st.active[ends]
                st.record[ends, REC_OUTCOME] = PASSED
            begins = _EMPTY

    def standings(self, state: State) -> np.ndarray:
        """``int64 (B, n)``: each seat's FT-12 finishing key — VP, then real cards in hand; higher is
        better and equal keys share the win (meaningful once a game is over)."""
        return standing(state.vp, state.hand)

    def _finish(self, st: State, g: np.ndarray, rewards: np.ndarray) -> None:
        """FT-12: highest VP wins, then more real cards, else a shared win; FT-15 outcome rewards."""
        if g.size == 0:
            return
        st.phase[g] = OVER
        st.done[g] = True
        score = standing(st.vp[g], st.hand[g])
        win = score == score.max(1, keepdims=True)
        if self.rules.reward == "outcome":
            share = 1.0 / win.sum(1, keepdims=True)
            rewards[g] += np.where(win, share, -1.0 / (self.n_players - 1)).astype(np.float32)

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
                     self._kernel_offsets, self._giveable, self._per_vp, self._per_token, _BY48, BELOW, _MONTHS_BELOW)
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

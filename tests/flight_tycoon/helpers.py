"""Shared test helpers: card names, positions, both engines in lockstep, random play, hidden-card swaps."""

from __future__ import annotations

import numpy as np

from aerodeck.envs.common.batch import sample_legal
from aerodeck.envs.common.bits import BIT, unpack_bits
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.position import Position
from aerodeck.envs.flight_tycoon.reference import ReferenceGame
from aerodeck.envs.flight_tycoon.rules import AIRLINES, DISCARD, GIVE, MONTH_BITS, N_CARDS, FlightTycoonRules
from aerodeck.envs.flight_tycoon.state import State


def card(name: str) -> int:
    """``"5B"`` → the card id of month 5, airline B (FT-1)."""
    return (int(name[:-1]) - 1) * 4 + AIRLINES.index(name[-1])


def cards(names: str) -> list[int]:
    """``"1A 5B 12D"`` → their ids."""
    return [card(x) for x in names.split()]


def bits_to_cards(word) -> list[int]:
    return [int(c) for c in np.flatnonzero(unpack_bits(word, N_CARDS))]


class Both:
    """One game on both engines at once: every step plays both and checks that they agree exactly."""

    def __init__(self, rules: FlightTycoonRules | None = None, position: Position | None = None, seed: int = 0):
        self.rules = rules or FlightTycoonRules()
        self.n = self.rules.n_players
        self.core = FlightTycoonCore(self.rules)
        if position is None:
            self.ref = ReferenceGame(self.rules, seed)
            self.st = self.core.init([seed])
        else:
            self.ref = ReferenceGame.from_position(self.rules, position, seed)
            self.st = self.core.load_positions([position], [seed])
        self.check()

    def check(self) -> None:
        assert self.core.snapshot(self.st, 0) == self.ref.snapshot()
        assert np.array_equal(self.core.legal_mask(self.st)[0], self.ref.legal_mask())
        for seat in range(self.n):
            assert np.array_equal(self.core.observe(self.st, seat)[0], self.ref.observe(seat))
        self.ref.check_views()

    def step(self, action: int) -> np.ndarray:
        """Play ``action`` on both; returns the rewards by absolute seat (float32 (n,))."""
        got = self.core.step(self.st, np.array([action]))[0]
        want = self.ref.step(action)
        assert np.array_equal(got, np.asarray(want, np.float32))
        self.check()
        return got

    @property
    def snap(self) -> dict:
        return self.ref.snapshot()

    @property
    def to_act(self) -> int:
        return self.ref.to_act

    @property
    def phase(self) -> int:
        return self.ref.phase

    def legal(self) -> list[int]:
        return self.ref.legal_actions()

    def obs(self, seat: int) -> np.ndarray:
        return self.ref.observe(seat)


def revealed(hands: list[str], laid: list[str], deck: str | None = None, **kw) -> Position:
    """A position after the reveal from card names: ``hands`` and ``laid`` one string per seat.

    ``deck``: the deck's cards (then every other card is in the discard pile); default: all the rest.
    """
    hand_ids, laid_ids = [cards(h) for h in hands], [card(c) for c in laid]
    if deck is None:
        return Position(hands=hand_ids, laid=laid_ids, **kw)
    deck_ids = cards(deck) if deck else []
    placed = set(deck_ids) | set(laid_ids) | {c for h in hand_ids for c in h}
    return Position(hands=hand_ids, laid=laid_ids, deck=deck_ids,
                    discard=[c for c in range(N_CARDS) if c not in placed], **kw)


def random_states(core: FlightTycoonCore, games: int, seed: int, max_steps: int = 120) -> State:
    """``games`` games played at random for a random number of decisions each (some finished)."""
    rng = np.random.default_rng(seed)
    st = core.init(rng.integers(0, 2**40, games))
    stop = rng.integers(0, max_steps, games)
    for i in range(max_steps):
        playing = np.flatnonzero(stop > i)
        if playing.size == 0:
            break
        core.step(st, sample_legal(core.legal_mask(st), rng.random(games)), games=playing)
    return st


def hidden_swap(core, state: State, seat: int, rng: np.random.Generator) -> tuple[State, np.ndarray]:
    """A copy of ``state`` where, in each game that allows it, two cards ``seat`` cannot know change places.

    For tests that a seat's observation — or an agent playing it — never depends on hidden cards. The
    two cards are of one month (so no tower's slot moves), each in another player's hand or the deck,
    each located by nobody but its holder, and no card of that month in either hand is located by
    anyone but its holder (so no located card's slot moves); the hands of a pending give or discard
    decision are left alone. The holders' knowledge follows their new cards. Returns the new state and
    ``bool (B,)``: the games where two cards were swapped.
    """
    st = state.copy()
    n = core.n_players
    swapped = np.zeros(st.batch_size, bool)
    for b in range(st.batch_size):
        places = [h for h in range(n) if h != seat]
        if st.phase[b] == GIVE:
            places.remove(int(st.target[b])) if int(st.target[b]) in places else None
        if st.phase[b] == DISCARD:
            places.remove(int(st.active[b])) if int(st.active[b]) in places else None
        words = {h: int(st.hand[b, h]) for h in places}
        words[n] = int(st.deck[b])  # the deck
        known = [int(k) for k in st.known[b]]
        candidates = []
        for place, word in words.items():
            for c in range(N_CARDS):
                if not word >> c & 1:
                    continue
                if any(known[o] >> c & 1 for o in range(n) if o != place):
                    continue
                month = MONTH_BITS[c >> 2]
                mates = word & int(month) & ~(1 << c)
                if any(known[o] >> d & 1 for d in range(N_CARDS) if mates >> d & 1 for o in range(n) if o != place):
                    continue
                candidates.append((place, c))
        pairs = [(p, x, q, y) for i, (p, x) in enumerate(candidates) for q, y in candidates[i + 1:]
                 if p != q and x >> 2 == y >> 2]
        if not pairs:
            continue
        p, x, q, y = pairs[rng.integers(len(pairs))]
        for place, old, new in ((p, x, y), (q, y, x)):
            if place == n:
                st.deck[b] = (st.deck[b] & ~BIT[old]) | BIT[new]
            else:
                st.hand[b, place] = (st.hand[b, place] & ~BIT[old]) | BIT[new]
                st.known[b, place] = (st.known[b, place] & ~BIT[old]) | BIT[new]
        swapped[b] = True
    return st, swapped

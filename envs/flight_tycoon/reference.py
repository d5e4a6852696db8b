"""Flight Tycoon, one game in plain Python: the oracle the batched core is tested against.

Read it next to ``shared/rules/flight-tycoon.md``; each rule is cited where it acts. Slow on purpose.

What each seat knows (FT-13, FT-14) is kept the way a player keeps it: after the reveal every seat
holds a *view* of every hand, one entry per slot — the card id when the seat can name that card, the
tower (public), or ``None``. Every card that moves moves at a public slot (FT-13), so a view is
updated exactly: an entry travels with its card, and a card the seat never saw stays ``None``.

**Hook methods** — a house rule (``docs/designers.md``, "Write a house rule") is a subclass of
:class:`ReferenceGame` that overrides some of these; each is called at one point of the rules:

- ``deal()`` — FT-5 and FT-7: the hands (``self.hands``, sorted lists of card ids), the deck
  (``self.deck``, sorted) and the starting player (``self.start``).
- ``legal_actions()`` — FT-8 … FT-10, FT-16: the legal actions of the decision now.
- ``score_landing(square)`` — FT-11 (scoring): the VP of a landing on ``square`` (its token placed).
- ``end_turn()`` — FT-12 (a turn's end): the end check (``game_over()``), else the next player.
- ``game_over()`` — FT-12 (the end check): whether the game ends at the end of this turn.

Draw randomness only with ``random_below(n)`` / ``take_random(cards)`` (the game's counter-based
stream), so a game stays a function of its seed and its actions. A hook may name what it did in the
game's log (``aerodeck replay``, ``aerodeck play``) with ``note(text)``. A house-ruled game still going
after ``max_decisions`` decisions (a class attribute, default 10,000) is stopped as an error.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from aerodeck.envs.common.checks import IllegalActionError, check_seed
from aerodeck.envs.common.rng import draw_below, game_key, stream
from aerodeck.envs.flight_tycoon.actions import illegal_reason, n_actions, request_action
from aerodeck.envs.flight_tycoon.observation import CARD_SCALE, ObservationLayout, inverse
from aerodeck.envs.flight_tycoon.position import Position
from aerodeck.envs.flight_tycoon.rules import (
    COLLIDED, DISCARD, GIVE, LANDED, N_CARDS, N_SQUARES, OVER, PASSED, PENDING, REQUEST, SQUARE_KIND, SQUARE_MONTHS,
    TOWER, FlightTycoonRules, card_key, month_of, square_accepts, tower_key,
)


@dataclasses.dataclass
class Tower:
    """A control tower (FT-2): named by its owner; ``laid`` is the card laid aside for it (FT-6)."""

    owner: int
    holder: int | None  # the seat whose hand holds it; None once discarded (only with tower_giveable)
    laid: int | None = None

    @property
    def month(self) -> int:
        return month_of(self.laid)


def landing_vp(rules: FlightTycoonRules, square: int, tokens_on_square: int) -> int:
    """FT-11: the VP of a landing on ``square`` holding ``tokens_on_square`` tokens, the new one included."""
    base = rules.vp_table[SQUARE_KIND[square]]
    if rules.vp_sharing == "split":
        return base // tokens_on_square
    if rules.vp_sharing == "first_only":
        return base if tokens_on_square == 1 else 0
    return max(0, base - (tokens_on_square - 1) * rules.rank_step)  # "rank"


class ReferenceGame:
    """One game of Flight Tycoon.

    ``ReferenceGame(rules, seed)`` deals a new game; ``from_position`` starts from a given position.
    ``to_act`` (the absolute seat that decides, −1 when over), ``legal_mask()`` (``bool (n_actions,)``),
    ``observe(seat)`` (``float32 (obs_size,)``) and ``step(action)`` (rewards by absolute seat) mean what
    they mean in the batched core.
    """

    def __init__(self, rules: FlightTycoonRules | None = None, seed: int = 0) -> None:
        self._setup(rules or FlightTycoonRules(), seed)
        self.deal()
        self.active = 0  # FT-6: towers are chosen in seat order (the choices stay hidden until the reveal)

    def deal(self) -> None:
        """Hook, FT-5 and FT-7: ``hand_size`` cards to each seat (each the k-th remaining card by id),
        the rest the deck; then a random starting player. Before the towers are chosen (FT-6)."""
        n, deck = self.n, list(range(N_CARDS))
        for p in range(n):
            self.hands[p] = sorted(self.take_random(deck) for _ in range(self.rules.hand_size))
        self.deck = deck
        self.start = self.random_below(n)  # FT-7: a random player starts

    @classmethod
    def from_position(cls, rules: FlightTycoonRules, position: Position, seed: int = 0) -> ReferenceGame:
        """A game starting at ``position`` (validated), with the random stream of ``seed``."""
        pos = position.normalized(rules)
        game = cls.__new__(cls)
        game._setup(rules, seed)
        game.hands = [list(h) for h in pos.hands]
        game.deck = list(pos.deck)
        game.discard = list(pos.discard)
        game.tokens, game.stock, game.vp = list(pos.tokens), pos.stock, list(pos.vp)
        game.start = pos.start
        for t, card in enumerate(pos.laid):
            game.towers[t].laid = card
            game.towers[t].holder = pos.tower_holders[t]
        if all(card is not None for card in pos.laid):
            game._reveal(pos.known)
            game.active = pos.active
            game._begin_turn()
        else:
            game.active = pos.active
        return game

    def _setup(self, rules: FlightTycoonRules, seed: int) -> None:
        self.rules, self.n = rules, rules.n_players
        self.observation = ObservationLayout(rules)
        self.n_actions = n_actions(self.n)
        self.key, self.counter = game_key(check_seed(seed)), 0
        self.hands: list[list[int]] = [[] for _ in range(self.n)]
        self.deck: list[int] = []
        self.discard: list[int] = []
        self.towers = [Tower(owner=p, holder=p) for p in range(self.n)]
        self.tokens, self.stock, self.vp = [0] * N_SQUARES, rules.tokens, [0] * self.n
        self.phase, self.active, self.start = TOWER, 0, 0
        self.target = self.square = self.received = None
        # the last request's target and square and the last card that collided, kept between turns as
        # the batched core keeps them (read by the metrics after a turn has ended)
        self.last_target = self.last_square = self.last_received = -1
        self.revealed, self.done = False, False
        self.views: list[list[list]] | None = None
        self.record = self._empty_record()
        self._rewards = [0.0] * self.n
        self.notes: list[str] = []

    # --- randomness (docs/architecture.md) ---------------------------------------------------------

    def random_below(self, n: int) -> int:
        """A uniform integer in ``0 … n−1`` from the game's stream (the next draw of its counter)."""
        value = stream(self.key, self.counter)
        self.counter += 1
        return draw_below(value, n)

    def take_random(self, cards: list[int]) -> int:
        """Remove and return the k-th remaining card by id of a sorted list, k uniform."""
        return cards.pop(self.random_below(len(cards)))

    def note(self, text: str) -> None:
        """Name what a hook did (e.g. ``"the last seat draws an extra card (house rule)"``) in the log."""
        self.notes.append(text)

    # --- hands ---------------------------------------------------------------------------------------

    def items(self, seat: int) -> list:
        """The hand of ``seat`` as held, slot by slot (FT-6): card ids and ``("T", owner)`` for towers."""
        towers = [("T", t.owner) for t in self.towers if t.holder == seat and t.laid is not None]
        return sorted([*self.hands[seat], *towers], key=self._sort_key)

    def _sort_key(self, item) -> int:
        return tower_key(self.towers[item[1]].month) if isinstance(item, tuple) else card_key(item)

    def _month(self, item) -> int:
        return self.towers[item[1]].month if isinstance(item, tuple) else month_of(item)

    def _holds_month(self, seat: int, month: int) -> bool:
        """FT-10: a card of ``month`` in the hand, the towers counting as their months."""
        return any(self._month(item) == month for item in self.items(seat))

    def real_cards(self, seat: int) -> int:
        return len(self.hands[seat])

    @property
    def to_act(self) -> int:
        """The absolute seat whose decision it is (FT-16); −1 when the game is over."""
        return {TOWER: self.active, REQUEST: self.active, GIVE: self.target, DISCARD: self.active}.get(self.phase, -1)

    # --- knowledge (FT-13, FT-14) --------------------------------------------------------------------

    def _reveal(self, known=None) -> None:
        """FT-6: the laid cards are revealed at once; from now on every tower is public (FT-13)."""
        self.revealed = True
        known = known or [[] for _ in range(self.n)]
        self.views = [
            [[item if (h == o or isinstance(item, tuple) or item in known[o]) else None for item in self.items(h)]
             for h in range(self.n)]
            for o in range(self.n)
        ]

    def _view_take(self, holder: int, slot: int, item, parties) -> list:
        """A card leaves ``holder`` at a public slot; ``parties`` see which card it is. Returns each seat's entry."""
        entries = [view[holder].pop(slot) for view in self.views]
        return [item if o in parties else entry for o, entry in enumerate(entries)]

    def _view_put(self, holder: int, slot: int, entries: list) -> None:
        """A card enters ``holder`` at a public slot; each seat writes what it knows of it."""
        for view, entry in zip(self.views, entries):
            view[holder].insert(slot, entry)

    def knows(self, seat: int) -> dict[int, int]:
        """The cards ``seat`` can locate in other hands: card id → holder (FT-14)."""
        if self.views is None:
            return {}
        return {e: h for h, view in enumerate(self.views[seat]) if h != seat for e in view if isinstance(e, int)}

    def check_views(self) -> None:
        """Soundness of the knowledge model: every entry a seat names is the card truly in that slot."""
        if self.views is None:
            return
        for o, view in enumerate(self.views):
            for h in range(self.n):
                truth = self.items(h)
                assert len(view[h]) == len(truth), (o, h, view[h], truth)
                for entry, item in zip(view[h], truth):
                    assert entry is None or entry == item, (o, h, view[h], truth)

    # --- decisions -----------------------------------------------------------------------------------

    def _allowed_gifts(self) -> list:
        """FT-9: the target's cards meeting the square, else any real card; towers only with tower_giveable."""
        hand = self.hands[self.target]
        towers = [("T", t.owner) for t in self.towers if t.holder == self.target] if self.rules.tower_giveable else []
        matching = [c for c in hand if square_accepts(self.square, c)]
        matching += [t for t in towers if SQUARE_MONTHS[self.square, self._month(t)]]  # a tower is its month (FT-2)
        return matching or hand + towers

    def _action_of(self, item) -> int:
        """A gift as an action: a card id, or for a tower the id of the card laid aside for it."""
        return self.towers[item[1]].laid if isinstance(item, tuple) else item

    def legal_actions(self) -> list[int]:
        """Hook, FT-16, FT-17: the legal actions of the decision now (none once the game is over, at
        least one while it is not)."""
        if self.phase == TOWER:
            return list(self.hands[self.active])
        if self.phase == REQUEST:  # FT-8: a target holding a real card, any square
            return [request_action(t, q) for t in range(1, self.n) if self.hands[(self.active + t) % self.n]
                    for q in range(N_SQUARES)]
        if self.phase == GIVE:
            return sorted(self._action_of(item) for item in self._allowed_gifts())
        if self.phase == DISCARD:  # FT-10: one real card of the colliding month
            return [c for c in self.hands[self.active] if month_of(c) == month_of(self.received)]
        return []

    def legal_mask(self) -> np.ndarray:
        """``bool (n_actions,)`` for the seat in ``to_act``."""
        mask = np.zeros(self.n_actions, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def explain_illegal(self, action: int) -> str | None:
        """Why ``action`` is illegal now, or ``None`` if it is legal."""
        if 0 <= action < self.n_actions and action in self.legal_actions():
            return None
        seat = self.to_act
        held = [t.laid for t in self.towers if t.holder == seat and t.laid is not None]
        return illegal_reason(self.phase, action, self.n, hand=self.hands[seat] if seat >= 0 else (),
                              square=self.square if self.square is not None else -1,
                              month=month_of(self.received) if self.received is not None else -1,
                              tower_cards=held, tower_giveable=self.rules.tower_giveable)

    def step(self, action: int) -> list[float]:
        """Play the decision; forced steps follow (FT-16). Returns the rewards by absolute seat (FT-15)."""
        self._rewards = [0.0] * self.n
        self.notes = []
        if self.done:
            return self._rewards  # a finished game ignores its action
        reason = self.explain_illegal(int(action))
        if reason is not None:
            raise IllegalActionError(reason)
        action = int(action)
        if self.phase == TOWER:
            self._choose_tower(action)
        elif self.phase == REQUEST:
            offset, square = divmod(action - N_CARDS, N_SQUARES)
            self._request((self.active + offset + 1) % self.n, square)
        elif self.phase == GIVE:
            self._give(next(i for i in self._allowed_gifts() if self._action_of(i) == action))
        else:
            self._discard_from_hand(action)
        return self._rewards

    # --- set-up and turn -----------------------------------------------------------------------------

    def _choose_tower(self, card: int) -> None:
        """FT-6: lay ``card`` aside face down; the tower takes its place (first within its month)."""
        seat = self.active
        self.hands[seat].remove(card)
        self.towers[seat].laid = card
        if seat + 1 < self.n:
            self.active = seat + 1
            return
        self._reveal()  # all have chosen: the laid cards are revealed at once
        self.active = self.start  # FT-7
        self._begin_turn()

    def _begin_turn(self) -> None:
        """FT-8: the active player requests if another player holds a real card, else the turn passes."""
        if any(self.hands[p] for p in range(self.n) if p != self.active):
            self.phase = REQUEST
            return
        self.record = {**self._empty_record(), "active": self.active, "outcome": PASSED}
        self._end_turn()

    def _request(self, target: int, square: int) -> None:
        """FT-8: a token from the stock onto ``square``; ``target`` must give (FT-9)."""
        self.target, self.square = target, square
        self.last_target, self.last_square = target, square
        self.tokens[square] += 1
        self.stock -= 1
        self.record = {**self._empty_record(), "active": self.active, "target": target, "square": square,
                       "outcome": PENDING}
        gifts = self._allowed_gifts()
        if len(gifts) == 1:  # FT-16: one legal choice is no decision
            self._give(gifts[0])
        else:
            self.phase = GIVE

    def _give(self, item) -> None:
        """FT-9: the target gives ``item`` face down; FT-13: everybody sees the slot it came from."""
        target, active = self.target, self.active
        slot = self.items(target).index(item)
        if isinstance(item, tuple):
            self.towers[item[1]].holder = None  # in flight
        else:
            self.hands[target].remove(item)
        self.record["give"] = slot
        entries = self._view_take(target, slot, item, parties=(active, target))  # FT-14: both see the card
        if self._holds_month(active, self._month(item)):
            self._collide(item)
        else:
            self._land(item, entries)

    def _land(self, item, entries: list) -> None:
        """FT-10: the card lands at its sorted place; FT-11: the active player scores the square."""
        active = self.active
        if isinstance(item, tuple):
            self.towers[item[1]].holder = active
        else:
            self.hands[active].append(item)
            self.hands[active].sort()
        slot = self.items(active).index(item)
        self._view_put(active, slot, entries)
        gain = self.score_landing(self.square)
        self.vp[active] += gain
        if self.rules.reward == "vp":  # FT-15
            self._rewards[active] += float(gain)
        self.record.update(land=slot, outcome=LANDED)
        self._end_turn()

    def _collide(self, item) -> None:
        """FT-10: the received card is discarded face up, with one real card of its month from the hand."""
        self.record["outcome"] = COLLIDED
        if not isinstance(item, tuple):
            self.discard.append(item)  # (a received tower is simply out of play)
        self.received = self.towers[item[1]].laid if isinstance(item, tuple) else item
        self.last_received = self.received
        matches = [c for c in self.hands[self.active] if month_of(c) == self._month(item)]
        if len(matches) >= 2:
            self.phase = DISCARD  # FT-16(d): the active player chooses which
        elif len(matches) == 1:
            self._discard_from_hand(matches[0])
        else:
            self._finish_collision()  # only the tower matched: the received card alone is discarded

    def _discard_from_hand(self, card: int) -> None:
        slot = self.items(self.active).index(card)
        self.hands[self.active].remove(card)
        self.discard.append(card)
        self._view_take(self.active, slot, card, parties=range(self.n))  # face up: public
        self.record["discard"] = slot
        self._finish_collision()

    def _finish_collision(self) -> None:
        """FT-10: the token goes back to the stock and the active player draws (nothing if the deck is empty)."""
        self.tokens[self.square] -= 1
        self.stock += 1
        if self.deck:
            card = self.take_random(self.deck)
            self.hands[self.active].append(card)
            self.hands[self.active].sort()
            slot = self.items(self.active).index(card)
            self._view_put(self.active, slot, [card if o == self.active else None for o in range(self.n)])
            self.record["draw"] = slot
        self._end_turn()

    def score_landing(self, square: int) -> int:
        """Hook, FT-11 (scoring): the VP of a landing on ``square``, its token already placed."""
        return landing_vp(self.rules, square, self.tokens[square])

    def _end_turn(self) -> None:
        self.end_turn()

    def end_turn(self) -> None:
        """Hook, FT-12 (a turn's end): the game ends if ``game_over()``, else the next seat clockwise
        (FT-7) begins its turn."""
        self.target = self.square = self.received = None
        if self.game_over():
            self._finish()
            return
        self.active = (self.active + 1) % self.n  # FT-7: clockwise
        self._begin_turn()

    def game_over(self) -> bool:
        """Hook, FT-12 (the end check, at the end of a turn): the deck or the stock is empty, or
        nobody holds a real card."""
        return not self.deck or self.stock == 0 or not any(self.hands)

    def _finish(self) -> None:
        """FT-12 winners (VP, then real cards, then shared) and FT-15 outcome rewards."""
        self.phase, self.done = OVER, True
        best = max((self.vp[p], self.real_cards(p)) for p in range(self.n))
        self.winners = [p for p in range(self.n) if (self.vp[p], self.real_cards(p)) == best]
        if self.rules.reward == "outcome":
            for p in range(self.n):
                self._rewards[p] += 1.0 / len(self.winners) if p in self.winners else -1.0 / (self.n - 1)

    @staticmethod
    def _empty_record() -> dict:
        return {"active": -1, "target": -1, "square": -1, "outcome": -1, "give": -1, "land": -1, "discard": -1,
                "draw": -1}

    # --- observation ---------------------------------------------------------------------------------

    def observe(self, seat: int) -> np.ndarray:
        """``float32 (obs_size,)``: what ``seat`` may know (FT-13, FT-14; what it leaves out: ``observation.py``),
        seats relative to it."""
        lay, n = self.observation, self.n
        obs = np.zeros(lay.size, dtype=np.float32)

        def put(block: str, index: int, value: float) -> None:
            obs[lay[block].start + index] = value

        def offset(p: int) -> int:
            return (p - seat) % n

        def scaled(count: int, scale: int) -> np.float32:
            return np.float32(count) * inverse(scale)

        for c in self.hands[seat]:
            put("hand", c, 1)
        for c, holder in self.knows(seat).items():
            put("hand", offset(holder) * N_CARDS + c, 1)
        for c in self.discard:
            put("discard", c, 1)
        for tower in self.towers:
            if tower.laid is None or not (self.revealed or tower.owner == seat):
                continue  # FT-6: a pending choice is hidden from the others
            put("laid", tower.laid, 1)
            if tower.holder is not None:
                slot = self.items(tower.holder).index(("T", tower.owner))
                put("towers", offset(tower.holder) * 12 + tower.month, scaled(slot + 1, CARD_SCALE))
        for p in range(n):
            put("hand_size", offset(p), scaled(len(self.items(p)), CARD_SCALE))
            put("vp", offset(p), scaled(self.vp[p], lay.vp_scale))
        for q in range(N_SQUARES):
            put("tokens", q, scaled(self.tokens[q], lay.token_scale))
        put("deck", 0, scaled(len(self.deck), CARD_SCALE))
        put("stock", 0, scaled(self.stock, lay.token_scale))
        if not self.done:
            put("decision", self.phase, 1)
            put("decider", offset(self.to_act), 1)
        rec = self.record
        if rec["active"] >= 0:
            put("turn_active", offset(rec["active"]), 1)
            put("turn_outcome", rec["outcome"], 1)
        if rec["target"] >= 0:
            put("turn_target", offset(rec["target"]), 1)
            put("turn_square", rec["square"], 1)
        for i, name in enumerate(("give", "land", "discard", "draw")):
            if rec[name] >= 0:
                put("turn_slots", i, scaled(rec[name] + 1, CARD_SCALE))
        return obs

    # --- comparison with the core --------------------------------------------------------------------

    def snapshot(self) -> dict:
        """Every field of the game in plain Python, for comparing engines."""
        knows = [sorted(set(self.hands[o]) | set(self.knows(o)) | set(self.discard)
                        | {t.laid for t in self.towers if t.laid is not None and (self.revealed or t.owner == o)})
                 for o in range(self.n)]
        return {
            "hands": [sorted(h) for h in self.hands], "deck": sorted(self.deck), "discard": sorted(self.discard),
            "laid": [t.laid for t in self.towers], "tower_holders": [t.holder for t in self.towers],
            "tokens": list(self.tokens), "stock": self.stock, "vp": list(self.vp), "phase": self.phase,
            "to_act": self.to_act, "active": self.active if not self.done else None,
            "target": self.target, "square": self.square, "start": self.start, "counter": self.counter,
            "record": dict(self.record), "known": knows, "done": self.done,
        }

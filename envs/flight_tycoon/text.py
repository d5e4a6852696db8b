"""Flight Tycoon in words, for a person at the terminal: typed moves, the numbered menu, the screen.

The functions ``aerodeck play`` and ``aerodeck replay`` call for a game (the protocol is listed in
``aerodeck/watch/play.py``). ``state`` is a batch of one game (``core.init([seed])``). A person's screen and
event log are built **only from their seat's observation** (``core.observe(state, seat)``, the vector
the agents get: FT-13 public facts and the FT-14 cards that seat may know) — never from the hidden
state — so nothing another seat holds privately can show.

Seats are named ``player_0`` … ``player_{n-1}`` (absolute); moves are typed in the game's words::

    tower 5B                       lay 5B aside: your tower counts as month 5 for the game (FT-6)
    ask player_1 for odd months    request: a token on 'odd months', player_1 gives a card (FT-8)
       (also: ask 1 odd · request p3 month 12 · ask 2 m12 · ask 2 spring · ask 1 first half · ask 3 airline C)
    give 7A                        the card you give the asking player (FT-9)
    discard 5C                     the card of the colliding month you discard (FT-10)

Squares: month 1 … month 12, spring, summer, autumn, winter, months 1-6, months 7-12, odd months,
even months, airline A … airline D.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
from rich.console import Group
from rich.text import Text

from aerodeck.envs.common.house import house_notes
from aerodeck.envs.flight_tycoon.actions import decode_action, request_action
from aerodeck.envs.flight_tycoon.observation import CARD_SCALE
from aerodeck.envs.flight_tycoon.render import _SHORT_SQUARES, render_image, render_text
from aerodeck.envs.flight_tycoon.rules import (
    AIRLINES, DISCARD, GIVE, LANDED, N_CARDS, N_MONTHS, N_SQUARES, PASSED, REQUEST, SQUARE_CARDS,
    SQUARE_NAMES, TOWER, card_key, card_name, landing_vp_table, month_of, tower_key,
)

#: The typed moves (shown by ``help``).
HELP = __doc__.split("::", 1)[1].strip("\n")

_SEASON_WORDS = {"spring": 12, "summer": 13, "autumn": 14, "fall": 14, "winter": 15}
_CARD_VERBS = {TOWER: "tower", GIVE: "give", DISCARD: "discard"}
_DECISION_WORDS = {
    TOWER: "choose the card to lay aside for your tower (FT-6)",
    REQUEST: "ask another player for a card on a square (FT-8)",
    GIVE: "choose the card to give (FT-9)",
    DISCARD: "choose the card of the colliding month to discard (FT-10)",
}


def player(seat: int, me=None) -> str:
    """``"player_2"``, or ``"you"`` for the seat ``me``."""
    return "you" if seat == me else f"player_{seat}"


@dataclasses.dataclass(frozen=True)
class Seen:
    """One seat's observation decoded (absolute seats): everything that seat may know, nothing more.

    ``hands[h]``: the cards the seat can locate in seat h's hand (its own hand whole); ``towers[h]``:
    ``(month 0-based, slot)`` of the tower standing in h's hand, if the seat may see it; ``laid``: the
    laid-aside cards it may see; ``decision``: TOWER … DISCARD, −1 when the game is over; ``decider``,
    ``turn_active``, ``turn_target``: seats or −1; ``turn_square``, ``turn_outcome``: −1 if none;
    ``turn_slots``: slots of the turn's card movements (FT-13), −1 if none.
    """

    seat: int
    n: int
    hands: tuple[frozenset, ...]
    towers: tuple[tuple[tuple[int, int], ...], ...]
    discard: frozenset
    laid: frozenset
    hand_size: tuple[int, ...]
    vp: tuple[int, ...]
    tokens: tuple[int, ...]
    deck: int
    stock: int
    decision: int
    decider: int
    turn_active: int
    turn_target: int
    turn_square: int
    turn_outcome: int
    turn_slots: tuple[int, ...]

    @classmethod
    def read(cls, core, observation: np.ndarray, seat: int) -> Seen:
        """Decode ``observation`` (``float32 (obs_size,)``, the core's observation of ``seat``)."""
        lay, rules = core.observation, core.rules
        n = rules.n_players
        block = {name: observation[b.slice] for name, b in lay.blocks.items()}

        def count(values, scale) -> list[int]:
            return [int(x) for x in np.rint(np.asarray(values, np.float64) * scale)]

        def by_offset(values) -> list:
            """Per absolute seat from per offset (offset t is seat (seat + t) mod n)."""
            values = list(values)
            return [values[(h - seat) % n] for h in range(n)]

        def one_hot(name: str) -> int:
            hot = np.flatnonzero(block[name] > 0.5)
            return int(hot[0]) if hot.size else -1

        def seat_of(name: str) -> int:
            t = one_hot(name)
            return -1 if t < 0 else (seat + t) % n

        hand = block["hand"].reshape(n, N_CARDS) > 0.5
        towers = block["towers"].reshape(n, N_MONTHS)
        return cls(
            seat=seat, n=n,
            hands=tuple(by_offset(frozenset(np.flatnonzero(row).tolist()) for row in hand)),
            towers=tuple(by_offset(tuple((int(m), s - 1) for m, s in enumerate(count(row, CARD_SCALE)) if s > 0)
                                   for row in towers)),
            discard=frozenset(np.flatnonzero(block["discard"] > 0.5).tolist()),
            laid=frozenset(np.flatnonzero(block["laid"] > 0.5).tolist()),
            hand_size=tuple(by_offset(count(block["hand_size"], CARD_SCALE))),
            vp=tuple(by_offset(count(block["vp"], lay.vp_scale))),
            tokens=tuple(count(block["tokens"], lay.token_scale)),
            deck=count(block["deck"], CARD_SCALE)[0],
            stock=count(block["stock"], lay.token_scale)[0],
            decision=one_hot("decision"),
            decider=seat_of("decider"),
            turn_active=seat_of("turn_active"),
            turn_target=seat_of("turn_target"),
            turn_square=one_hot("turn_square"),
            turn_outcome=one_hot("turn_outcome"),
            turn_slots=tuple(s - 1 for s in count(block["turn_slots"], CARD_SCALE)),
        )

    def real_cards(self, h: int) -> int:
        """Seat h's real cards in hand (its hand size less the towers standing there)."""
        return self.hand_size[h] - len(self.towers[h])


def seen(core, state, seat: int) -> Seen:
    """What ``seat`` knows of game 0 of ``state``: its observation, decoded."""
    return Seen.read(core, core.observe(state, seat)[0], seat)


def _to_act(core, state) -> int:
    return int(core.to_act(state)[0])


# --- moves in words ----------------------------------------------------------------------------------

def words(core, state, action: int) -> str:
    """The words that name ``action`` for the seat deciding now (what :func:`parse` reads back), e.g.
    ``"give 7A"`` or ``"ask player_1 for odd months"``."""
    me = _to_act(core, state)
    return _words(seen(core, state, max(me, 0)), me, int(action))


def _words(s: Seen, me: int, action: int) -> str:
    kind, *args = decode_action(action)
    if kind == "request":
        offset, square = args
        return f"ask player_{(me + offset) % s.n} for {SQUARE_NAMES[square]}"
    return f"{_CARD_VERBS.get(s.decision, 'card')} {card_name(args[0])}"


def _note(core, s: Seen, action: int) -> str:
    """What ``action`` means for the deciding seat ``s.seat``, in a few words (from what it knows)."""
    kind, *args = decode_action(action)
    if kind == "request":
        square = args[1]
        return f"pays {landing_vp_table(core.rules)[square, s.tokens[square] + 1]} VP"
    card = args[0]
    if s.decision == TOWER:
        return f"your tower counts as month {month_of(card) + 1}"
    if s.decision == GIVE and s.turn_square >= 0:
        return f"{'meets' if SQUARE_CARDS[s.turn_square, card] else 'does not meet'} '{SQUARE_NAMES[s.turn_square]}'"
    return ""


def moves(core, state) -> list[tuple[int, str, str]]:
    """The legal moves now in menu order (cards first, then requests by player clockwise from the
    decider, square by square): ``(action, words, note)``."""
    me = _to_act(core, state)
    if me < 0:
        return []
    s = seen(core, state, me)
    legal = np.flatnonzero(core.legal_mask(state)[0])
    return [(int(a), _words(s, me, int(a)), _note(core, s, int(a))) for a in legal]


def parse_square(text: str) -> int:
    """The square named by ``text`` (``"odd months"``, ``"month 12"``, ``"m12"``, ``"spring"``,
    ``"first half"``, ``"airline C"``, ``"C"`` …); ``ValueError`` naming the squares otherwise."""
    t = " ".join(re.findall(r"[a-z]+|\d+|-", text.lower().replace("'", " ")))
    t = re.sub(r"\s*-\s*", "-", t)
    for name, square in ((n.lower(), q) for q, n in enumerate(SQUARE_NAMES)):
        if t == name:
            return square
    if m := re.fullmatch(r"(?:month |m ?)?(\d{1,2})", t):
        if 1 <= int(m.group(1)) <= N_MONTHS:
            return int(m.group(1)) - 1
    if m := re.fullmatch(r"(spring|summer|autumn|fall|winter)(?: [\d-]+)?", t):
        return _SEASON_WORDS[m.group(1)]
    if t in ("1-6", "first half", "h1", "half 1"):
        return 16
    if t in ("7-12", "second half", "h2", "half 2"):
        return 17
    if t in ("odd", "even"):
        return 18 if t == "odd" else 19
    if m := re.fullmatch(r"(?:airline )?([a-d])", t):
        return N_SQUARES - 4 + AIRLINES.index(m.group(1).upper())
    raise ValueError(f"{text.strip()!r} is not a square; squares: month 1 … month 12, spring, summer, autumn, "
                     f"winter, months 1-6, months 7-12, odd months, even months, airline A … airline D")


def parse_card(text: str) -> int:
    """The card named ``"5B"`` (month 1–12, airline A–D); ``ValueError`` otherwise."""
    m = re.fullmatch(r"\s*(\d{1,2})\s*([a-dA-D])\s*", text)
    if not m or not 1 <= int(m.group(1)) <= N_MONTHS:
        raise ValueError(f"{text.strip()!r} is not a card: a month 1-12 and an airline A-D, e.g. 5B")
    return (int(m.group(1)) - 1) * 4 + AIRLINES.index(m.group(2).upper())


def parse(core, state, line: str) -> int:
    """The action index the typed words name (legal or not: the caller checks the mask and asks
    ``core.explain_illegal`` why). ``ValueError`` saying what is wrong with words that name no action."""
    me = _to_act(core, state)
    n = core.rules.n_players
    text = line.strip()
    if not text:
        raise ValueError("no move given")
    verb, _, rest = text.partition(" ")
    verb = verb.lower()
    if verb in ("ask", "request"):
        m = re.fullmatch(r"\s*(?:player[_ ]?|p)?(\d+)\s*(?:(?:for|on)\s+(?:a\s+card\s+(?:on|of|for)\s+)?)?(.*)", rest,
                         flags=re.IGNORECASE)
        if not m or not m.group(2).strip():
            raise ValueError("ask needs a player and a square, e.g. 'ask player_1 for odd months' or 'ask 1 odd'")
        target = int(m.group(1))
        if not 0 <= target < n or target == me:
            others = ", ".join(f"player_{h}" for h in range(n) if h != me)
            raise ValueError(f"player_{target} cannot be asked: ask one of {others}")
        return request_action((target - me) % n, parse_square(m.group(2)))
    if verb in ("tower", "lay", "give", "discard", "card"):
        decision = seen(core, state, me).decision if me >= 0 else -1
        wanted = {"lay": "tower"}.get(verb, verb)
        if decision in _CARD_VERBS and wanted not in ("card", _CARD_VERBS[decision]):
            raise ValueError(f"this is a {_CARD_VERBS[decision]} decision ({_DECISION_WORDS[decision]}): "
                             f"type '{_CARD_VERBS[decision]} CARD'")
        if decision == REQUEST:
            raise ValueError("this is your request: type 'ask PLAYER for SQUARE'")
        return parse_card(rest)
    if re.fullmatch(r"\d{1,2}[a-dA-D]", text):
        return parse_card(text)
    raise ValueError(f"unknown move {verb!r}; moves: ask PLAYER for SQUARE, tower CARD, give CARD, discard CARD "
                     f"(type 'help' for examples)")


def undo_refusal(core, before, after) -> str | None:
    """Why a Flight Tycoon move cannot be taken back: always — every move is seen by the other
    players (a request, a give's slot, a discard: FT-13) or brings a card into view (FT-14)."""
    return "every Flight Tycoon move is seen by the other players or shows you a card (FT-13, FT-14)"


# --- what happened ---------------------------------------------------------------------------------

def events(core, before, after, action: int, seat=None) -> list[str]:
    """What one decision (``action``, from ``before`` to ``after``) showed ``seat``, in words: the
    decision and every forced step after it (FT-16), a line each — the request, the give with its slot,
    the landing or the collision, each discarded card, the draw, a passed turn, the end of the game.
    Built from observations only: ``seat``'s own (and ``action``, whose public part every seat sees).
    ``seat=None``: a spectator of a recorded game, told every card (what the seats holding it observe)."""
    return _Step(core, before, after, int(action), seat).lines() + house_notes(core, after)


def _moved_tower(b: Seen, a: Seen, target: int) -> tuple[int, int] | None:
    """``(month, slot before)`` of a tower that left ``target``'s hand in the step (``tower_giveable``:
    given; towers and their slots are public after the reveal, FT-13), None if none did."""
    months = {m for m, _ in a.towers[target]}
    return next(((m, s) for m, s in b.towers[target] if m not in months), None)


class _Step:
    """The log of one step (see :func:`events`); ``b``, ``a``: the viewer's observations before and after."""

    def __init__(self, core, before, after, action: int, seat) -> None:
        self.core, self.before, self.after, self.action, self.seat = core, before, after, action, seat
        viewer = 0 if seat is None else seat
        self.b, self.a = seen(core, before, viewer), seen(core, after, viewer)
        self.out: list[str] = []

    def name(self, h: int) -> str:
        return player(h, self.seat)

    def whose(self, h: int) -> str:
        """``"player_2's"`` / ``"your"``."""
        return "your" if h == self.seat else f"{self.name(h)}'s"

    def verb(self, h: int, word: str) -> str:
        """``"player_2 passes"`` / ``"you pass"``."""
        return f"{self.name(h)} {word if h == self.seat else word + ('es' if word.endswith('s') else 's')}"

    def knows(self, h: int) -> bool:
        """Whether the viewer is told what seat ``h`` alone sees (it is ``h``, or a spectator)."""
        return self.seat is None or self.seat == h

    def views(self, h: int) -> tuple[Seen, Seen]:
        """Seat ``h``'s observations before and after (read only where :meth:`knows` ``h``)."""
        return seen(self.core, self.before, h), seen(self.core, self.after, h)

    def slot(self, column: int, words: str) -> str:
        """``" from slot 3"``: column ``column`` of ``turn_slots`` after the step (FT-13), "" if none."""
        value = self.a.turn_slots[column]
        return f"{words} {value}" if value >= 0 else ""

    def lines(self) -> list[str]:
        """Every line of the step, in the order the rules play it."""
        b, a = self.b, self.a
        if b.decision == TOWER:
            self.tower(b.decider)
        elif b.decision == REQUEST:
            offset, square = decode_action(self.action)[1:]
            active, target = b.decider, (b.decider + offset) % b.n
            self.out.append(f"{self.verb(active, 'ask')} {self.name(target)} for a card on '{SQUARE_NAMES[square]}' "
                            f"(token {b.tokens[square] + 1} there, FT-8)")
            if not (a.decision == GIVE and a.decider == target):  # one allowed card is given at once (FT-16)
                self.give(active, target, square, placed=True)
        elif b.decision == GIVE:
            self.give(b.turn_active, b.turn_target, b.turn_square, placed=False)
        elif b.decision == DISCARD:
            card = min(a.discard - b.discard)  # face up: public (FT-10)
            self.out.append(f"{self.verb(b.decider, 'discard')} {card_name(card)}{self.slot(2, ' from slot')} (FT-10)")
            self.draw(b.decider)
        if a.turn_outcome == PASSED and (b.turn_outcome, b.turn_active) != (PASSED, a.turn_active):
            self.out.append(f"{self.verb(a.turn_active, 'pass')}: nobody else holds a real card (FT-8)")
        if a.decision < 0 <= b.decision:
            self.out.append("game over: " + ", ".join(f"{self.name(h)} {a.vp[h]} VP" for h in range(a.n)))
        return self.out

    def tower(self, actor: int) -> None:
        """FT-6: a tower chosen (its card told to its owner only); the reveal after the last choice."""
        if self.knows(actor):
            self.out.append(f"{self.verb(actor, 'lay')} {card_name(self.action)} aside for a tower "
                            f"(month {month_of(self.action) + 1}, FT-6)")
        else:
            self.out.append(f"{self.verb(actor, 'lay')} a card aside for a tower (hidden until all have chosen, FT-6)")
        if self.a.decision != TOWER:
            shown = ", ".join(f"{self.name(h)} T{m + 1}" for h in range(self.a.n) for m, _ in self.a.towers[h])
            self.out.append(f"towers revealed: {shown}")

    def give(self, active: int, target: int, square: int, placed: bool) -> None:
        """FT-9 the give — its slot public, its card told to the two players (FT-14) — and what follows.
        ``placed``: the request's token was placed in this step."""
        b, a = self.b, self.a
        # the record is this turn's unless a pass overwrote it (only after a landed tower: FT-8, FT-13)
        kept = a.turn_active == active and a.turn_outcome != PASSED
        tower = _moved_tower(b, a, target)
        if kept:
            landed = a.turn_outcome == LANDED
        else:  # the token stays on the square after a landing, goes back after a collision (FT-10)
            landed = a.tokens[square] == b.tokens[square] + placed
        card = self.received(active, target, landed) if self.knows(active) or self.knows(target) else None
        what = f"the tower T{tower[0] + 1}" if tower else card_name(card) if card is not None else "a card"
        slot = tower[1] if tower else a.turn_slots[0] if kept else -1
        self.out.append(f"{self.verb(target, 'give')} {self.name(active)} {what}"
                        + (f" from slot {slot}" if slot >= 0 else "") + " (FT-9)")
        if landed:
            slot = next(s for m, s in a.towers[active] if m == tower[0]) if tower else a.turn_slots[1] if kept else -1
            gain = a.vp[active] - b.vp[active]
            self.out.append("it lands" + (f" in slot {slot}" if slot >= 0 else "")
                            + f": {gain:+d} VP, {self.name(active)} now at {a.vp[active]} VP (FT-10, FT-11)")
        else:
            self.collide(active, target, tower)

    def received(self, active: int, target: int, landed: bool) -> int | None:
        """The real card ``target`` gave ``active``, if the viewer can tell it: one of the two players
        (FT-14), or anyone once it lies face up among the discards apart from the active player's own."""
        if self.knows(target):
            tb, ta = self.views(target)
            return min(tb.hands[target] - ta.hands[target], default=None)
        b, a = self.views(active) if self.knows(active) else (self.b, self.a)
        thrown = a.discard - b.discard
        if self.knows(active):
            came = (a.hands[active] - b.hands[active]) if landed else thrown - (b.hands[active] - a.hands[active])
        else:
            came = (thrown & b.hands[target]) or (thrown - b.hands[active] if not landed else frozenset())
        return min(came) if len(came) == 1 else None

    def collide(self, active: int, target: int, tower) -> None:
        """FT-10: the received card face up, the active player's card of its month (chosen now when
        it holds several), the token back to the stock, the draw."""
        b, a = self.b, self.a
        thrown = a.discard - b.discard
        card = None if tower else self.received(active, target, landed=False)
        if tower:
            self.out.append(f"it collides: the tower T{tower[0] + 1} leaves play (FT-10)")
        elif card is not None:
            self.out.append(f"it collides: {card_name(card)} discarded face up (FT-10)")
        else:
            self.out.append(f"it collides: {' '.join(card_name(c) for c in sorted(thrown))} discarded face up, "
                            f"the card given and {self.whose(active)} own of that month (FT-10)")
        if a.decision == DISCARD and a.decider == active:
            self.out.append(f"{self.name(active)} must choose which card of that month to discard (FT-10)")
            return
        own = thrown - {card}
        if a.turn_slots[2] < 0:
            self.out.append(f"only {self.whose(active)} tower holds that month: it stays (FT-10)")
        else:
            what = card_name(min(own)) if len(own) == 1 else "a card of that month"
            self.out.append(f"{self.verb(active, 'discard')} {what}{self.slot(2, ' from slot')} (FT-10)")
        self.draw(active)

    def draw(self, active: int) -> None:
        """FT-10: after a collision the token goes back and the active player draws (its card is its own)."""
        b, a = self.b, self.a
        self.out.append("the token goes back to the stock (FT-10)")
        if a.deck == b.deck:
            self.out.append(f"the deck is empty: {self.name(active)} draws nothing (FT-10)")
            return
        card = None
        if self.knows(active):
            vb, va = self.views(active)
            card = min(va.hands[active] - vb.hands[active])
        self.out.append(f"{self.verb(active, 'draw')} {card_name(card) if card is not None else 'a card'}"
                        f"{self.slot(3, ' into slot')} (deck {a.deck})")


def summary(core, state, seat=None, names=None) -> Text:
    """The final standings (FT-12) in a few lines, from what ``seat`` sees (everything here is public)."""
    s = seen(core, state, 0 if seat is None else seat)
    standing = core.standings(state)[0]
    winners = [h for h in range(s.n) if standing[h] == standing.max()] if state.done[0] else []
    names = names or [f"player_{h}" for h in range(s.n)]
    lines = Text("Game over. Final standings (FT-12: most VP, then most real cards in hand):\n")
    order = sorted(range(s.n), key=lambda h: (-s.vp[h], -s.real_cards(h), h))
    for h in order:
        win = "  winner" if h in winners else ""
        lines.append(f"  {names[h]:<24} {s.vp[h]:>4} VP  {s.real_cards(h):>2} cards{win}\n",
                     style="bold" if h == seat else "")
    if seat is not None:
        lines.append("You win!" if winners == [seat] else "You share the win." if seat in winners
                     else "You did not win this time.")
    return lines


def why(core, state, action: int) -> str:
    """What ``action`` is worth for the deciding seat, from its observation only (the hint's reason)."""
    me = _to_act(core, state)
    s = seen(core, state, me)
    kind, *args = decode_action(int(action))
    if kind == "request":
        offset, square = args
        target = (me + offset) % s.n
        pays = landing_vp_table(core.rules)[square, s.tokens[square] + 1]
        months = sorted({month_of(c) + 1 for c in s.hands[me]} | {m + 1 for m, _ in s.towers[me]})
        known = sorted(s.hands[target])
        return (f"a landing on '{SQUARE_NAMES[square]}' pays {pays} VP now; a card of a month you hold "
                f"({', '.join(map(str, months)) or 'none'}) would collide"
                + (f"; player_{target} is known to hold {' '.join(card_name(c) for c in known)}" if known else ""))
    card = args[0]
    if s.decision == TOWER:
        return f"your tower takes month {month_of(card) + 1}: a card of that month collides in your hand for good"
    month = month_of(card)
    if s.decision == GIVE:
        asker = s.turn_active
        meets = "meets" if SQUARE_CARDS[s.turn_square, card] else "does not meet"
        held = sorted(c for c in s.hands[asker] if month_of(c) == month) + [f"T{m + 1}" for m, _ in s.towers[asker]
                                                                           if m == month]
        if held:
            shown = " ".join(c if isinstance(c, str) else card_name(c) for c in held)
            return (f"{card_name(card)} {meets} '{SQUARE_NAMES[s.turn_square]}'; player_{asker} holds month "
                    f"{month + 1} ({shown}): it collides (FT-10)")
        return (f"{card_name(card)} {meets} '{SQUARE_NAMES[s.turn_square]}'; you know of no month-{month + 1} card "
                f"in player_{asker}'s hand")
    return f"{card_name(card)} goes to the discards (FT-10); the other cards of month {month + 1} stay in your hand"


# --- the screen ----------------------------------------------------------------------------------

def _card_text(card: int) -> Text:
    return Text(card_name(card), style="bold")


def _hand_line(s: Seen) -> Text:
    """The seat's own hand in its sorted order (FT-6: the tower first within its month)."""
    items = [(card_key(c), card_name(c), "bold") for c in s.hands[s.seat]]
    items += [(tower_key(m), f"[T{m + 1}]", "bold red") for m, _ in s.towers[s.seat]]
    text = Text()
    for _, label, style in sorted(items):
        text.append(label + " ", style=style)
    return text


def screen_of(core, s: Seen, log=(), names=None) -> Group:
    """The screen of one seat from what it knows (:class:`Seen`, its decoded observation) and the
    event log: the schedule map, every player's VP, hand size and what the seat knows of each hand,
    its own hand, the discards, the towers, the decision now."""
    rules = core.rules
    names = names or [player(h) for h in range(s.n)]
    vp_now = landing_vp_table(rules)
    parts: list = []
    head = Text(f"Flight Tycoon · {s.n} players · you are player_{s.seat}", style="bold")
    head.append(f" · deck {s.deck} cards · stock {s.stock} tokens", style="")
    parts.append(head)
    parts.append(Text("schedule map: square, tokens on it, VP a landing there pays now", style="dim"))
    for i in range(0, N_SQUARES, 6):
        row = Text("  ")
        for q in range(i, i + 6):
            row.append(f"{_SHORT_SQUARES[q]:>4}", style="bold")
            row.append(f" {s.tokens[q]:>2}t {int(vp_now[q, s.tokens[q] + 1]):>2}vp", style="" if s.tokens[q] else "dim")
            row.append(" │ " if q < i + 5 else "")
        parts.append(row)
    for h in range(s.n):
        deciding = h == s.decider
        line = Text("> " if deciding else "  ", style="bold yellow")
        line.append(f"{names[h]:<22}", style="bold" if h == s.seat else "")
        line.append(f" {s.vp[h]:>3} VP  {s.hand_size[h]:>2} in hand  ")
        if h == s.seat:
            line.append("hand ")
            line.append_text(_hand_line(s))
        else:
            for m, slot in s.towers[h]:
                line.append(f"tower T{m + 1} in slot {slot}  ", style="red")
            if s.hands[h]:
                line.append("known: " + " ".join(card_name(c) for c in sorted(s.hands[h])), style="cyan")
        parts.append(line)
    parts.append(Text("discards: " + (" ".join(card_name(c) for c in sorted(s.discard)) or "none")))
    if s.laid:
        parts.append(Text("laid aside for towers: " + " ".join(card_name(c) for c in sorted(s.laid))))
    if s.turn_active >= 0:
        outcome = ("pending", "landed", "collided", "passed")[s.turn_outcome] if s.turn_outcome >= 0 else ""
        if s.turn_target >= 0:
            parts.append(Text(f"turn: {player(s.turn_active, s.seat)} asked {player(s.turn_target, s.seat)} for "
                              f"'{SQUARE_NAMES[s.turn_square]}': {outcome}", style="dim"))
        else:
            parts.append(Text(f"turn: {player(s.turn_active, s.seat)} {outcome}", style="dim"))
    if log:
        parts.append(Text("log:", style="dim"))
        parts.extend(Text("  " + line) for line in log)
    if s.decision < 0:
        parts.append(Text("game over", style="bold"))
    elif s.decider == s.seat:
        parts.append(Text(f"your decision: {_DECISION_WORDS[s.decision]}", style="bold yellow"))
    else:
        parts.append(Text(f"player_{s.decider} to decide: {('tower', 'request', 'give', 'discard')[s.decision]}"))
    return Group(*parts)


def screen(core, state, seat=0, log=(), names=None) -> Group:
    """What ``seat`` sees now: :func:`screen_of` its own observation (nothing else of ``state`` is read)."""
    return screen_of(core, seen(core, state, seat), log, names)


def replay_screen(core, state, log=()) -> Group:
    """A recorded game's table for a spectator of the recording: every hand face up (the env's
    ``ansi`` render with viewer ``all``) and the event log."""
    parts = [Text(render_text(core, state, 0, "all"))]
    if log:
        parts.append(Text("log:", style="dim"))
        parts.extend(Text("  " + line) for line in list(log)[-8:])
    return Group(*parts)


def picture(core, state) -> np.ndarray:
    """The table as the env's ``rgb_array`` render draws it, every hand face up: ``uint8 (H, W, 3)``."""
    return render_image(core, state, 0, "all")

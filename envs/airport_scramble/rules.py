"""The rules object of Airport Scramble and its components (cards and tickets).

Every option of ``shared/rules/airport-scramble.md`` is a field of :class:`AirportScrambleRules` with
its default and allowed values; ``rules.components`` holds the edition's airport cards (AS-2) and
tickets (AS-3), either the ``standard`` edition exactly as tabled or a ``generated`` one (AS-4).
"""

from __future__ import annotations

import dataclasses
import functools

from aerodeck.envs.common import rng
from aerodeck.envs.common.options import RuleOptions, choice, flag, integer, integers, option

#: AS-1 colour names (the first four are the standard edition's); generated editions may use six.
COLOR_NAMES = ("blue", "pink", "purple", "green", "orange", "teal")
#: One letter per colour, for text renderings.
COLOR_LETTERS = "bpugot"

MAX_COLORS = len(COLOR_NAMES)
DIE_SIDES = 8  # AS-3: turns are read on an eight-sided die.

# AS-2: the standard edition's 32 airport cards in id order: (code, H, V).
_BLUE, _PINK, _PURPLE, _GREEN = range(4)
_STANDARD_PLAIN = (
    ("HND", "NRT", "KIX", "ICN", "PEK"),
    ("LAX", "SFO", "JFK", "ORD", "SEA"),
    ("CDG", "LHR", "FRA", "AMS", "MAD"),
    ("SYD", "SIN", "DXB", "GRU", "JNB"),
)
_STANDARD_HUBS = (
    ("HNL", _BLUE, _PINK), ("IST", _BLUE, _PURPLE), ("BKK", _BLUE, _GREEN),
    ("YVR", _PINK, _BLUE), ("ATL", _PINK, _PURPLE), ("MEX", _PINK, _GREEN),
    ("DOH", _PURPLE, _BLUE), ("ZRH", _PURPLE, _PINK), ("CAI", _PURPLE, _GREEN),
    ("DEL", _GREEN, _BLUE), ("LIM", _GREEN, _PINK), ("NBO", _GREEN, _PURPLE),
)
# AS-3: the standard edition's 24 tickets in id order: (origin, destination, turns).
_STANDARD_TICKETS = (
    ("CDG", "JFK", 8), ("ATL", "ORD", 3), ("JFK", "CAI", 5), ("SEA", "NBO", 5),
    ("HND", "SFO", 5), ("MAD", "SIN", 5), ("DEL", "HND", 3), ("GRU", "DEL", 4),
    ("ZRH", "DXB", 5), ("SYD", "FRA", 8), ("BKK", "LAX", 5), ("HNL", "MAD", 8),
    ("AMS", "PEK", 6), ("LIM", "ATL", 4), ("PEK", "BKK", 4), ("DOH", "YVR", 4),
    ("YVR", "NRT", 5), ("SFO", "ICN", 5), ("CAI", "LIM", 3), ("ORD", "ZRH", 4),
    ("IST", "AMS", 4), ("LAX", "JNB", 7), ("MEX", "GRU", 5), ("ICN", "KIX", 5),
)

@dataclasses.dataclass(frozen=True)
class Components:
    """An edition's airport cards (AS-2) and tickets (AS-3); immutable, shared by engines and renderer.

    Cards are ids ``0 .. n_cards-1`` with ``codes[i]``, horizontal colour ``card_h[i]`` and vertical
    colour ``card_v[i]``; tickets are ids ``0 .. n_tickets-1`` with ``ticket_origin[t]`` and
    ``ticket_destination[t]`` (card ids) and ``ticket_turns[t]`` (1..8).
    """

    name: str
    n_colors: int
    codes: tuple[str, ...]
    card_h: tuple[int, ...]
    card_v: tuple[int, ...]
    ticket_origin: tuple[int, ...]
    ticket_destination: tuple[int, ...]
    ticket_turns: tuple[int, ...]

    @property
    def n_cards(self) -> int:
        """Number of airport cards."""
        return len(self.codes)

    @property
    def n_tickets(self) -> int:
        """Number of tickets."""
        return len(self.ticket_turns)

    def card(self, code_or_id: str | int) -> int:
        """The id of a card given by its code (``"HND"``) or id; ``ValueError`` if there is none."""
        if isinstance(code_or_id, str):
            try:
                return self.codes.index(code_or_id.upper())
            except ValueError:
                raise ValueError(f"no airport card with code {code_or_id!r} in the {self.name} edition") from None
        card = int(code_or_id)
        if not 0 <= card < self.n_cards:
            raise ValueError(f"airport card id {card} is outside 0..{self.n_cards - 1}")
        return card

    def is_hub(self, card: int) -> bool:
        """AS-2: a hub has H != V."""
        return self.card_h[card] != self.card_v[card]

    def describe_card(self, card: int) -> str:
        """``"HND (blue)"`` or ``"HNL (H blue / V pink)"``."""
        h, v = COLOR_NAMES[self.card_h[card]], COLOR_NAMES[self.card_v[card]]
        return f"{self.codes[card]} ({h})" if h == v else f"{self.codes[card]} (H {h} / V {v})"

    def describe_ticket(self, ticket: int) -> str:
        """``"CDG → JFK, 8 turns"``."""
        o, d = self.ticket_origin[ticket], self.ticket_destination[ticket]
        return f"{self.codes[o]} → {self.codes[d]}, {self.ticket_turns[ticket]} turns"


def standard_components() -> Components:
    """The standard edition (AS-2, AS-3) exactly as tabled."""
    codes: list[str] = []
    h: list[int] = []
    v: list[int] = []
    for color, names in enumerate(_STANDARD_PLAIN):
        for name in names:
            codes.append(name)
            h.append(color)
            v.append(color)
    for name, hc, vc in _STANDARD_HUBS:
        codes.append(name)
        h.append(hc)
        v.append(vc)
    index = {c: i for i, c in enumerate(codes)}
    return Components(
        name="standard",
        n_colors=4,
        codes=tuple(codes),
        card_h=tuple(h),
        card_v=tuple(v),
        ticket_origin=tuple(index[o] for o, _, _ in _STANDARD_TICKETS),
        ticket_destination=tuple(index[d] for _, d, _ in _STANDARD_TICKETS),
        ticket_turns=tuple(t for _, _, t in _STANDARD_TICKETS),
    )


def generated_card_count(n_colors: int, plain_per_color: int, hubs: bool) -> int:
    """AS-4: ``plain_per_color`` plain cards per colour plus, with hubs, one hub per ordered colour pair."""
    return n_colors * plain_per_color + (n_colors * (n_colors - 1) if hubs else 0)


def generated_components(
    n_colors: int, plain_per_color: int, hubs: bool, n_tickets: int, ticket_turns: tuple[int, int], deck_seed: int
) -> Components:
    """AS-4: a generated edition, a pure function of its parameters.

    Card ids follow the standard edition's order: plain cards colour by colour, then (with ``hubs``)
    one hub per ordered pair (H, V), H != V, sorted by (H, V). Codes are distinct random three-letter
    strings; tickets are distinct (origin, destination) pairs of distinct cards with turns uniform in
    ``ticket_turns``. Every random value comes from the counter-based stream keyed by ``deck_seed``.
    """
    key = rng.game_key(deck_seed)
    counter = 0

    def below(n: int) -> int:
        nonlocal counter
        value = rng.draw_below(rng.stream(key, counter), n)
        counter += 1
        return value

    h: list[int] = []
    v: list[int] = []
    for color in range(n_colors):
        h += [color] * plain_per_color
        v += [color] * plain_per_color
    if hubs:
        for hc in range(n_colors):
            for vc in range(n_colors):
                if hc != vc:
                    h.append(hc)
                    v.append(vc)
    codes: list[str] = []
    while len(codes) < len(h):
        code = "".join(chr(ord("A") + below(26)) for _ in range(3))
        if code not in codes:
            codes.append(code)
    n_cards = len(codes)
    lo, hi = ticket_turns
    pairs: list[tuple[int, int]] = []
    turns: list[int] = []
    while len(pairs) < n_tickets:
        origin = below(n_cards)
        destination = below(n_cards - 1)
        destination += destination >= origin  # a card other than the origin
        if (origin, destination) in pairs:
            continue
        pairs.append((origin, destination))
        turns.append(lo + below(hi - lo + 1))
    return Components(
        name=f"generated(seed={deck_seed})",
        n_colors=n_colors,
        codes=tuple(codes),
        card_h=tuple(h),
        card_v=tuple(v),
        ticket_origin=tuple(o for o, _ in pairs),
        ticket_destination=tuple(d for _, d in pairs),
        ticket_turns=tuple(turns),
    )


@functools.lru_cache(maxsize=64)
def _components(edition: str, n_colors, plain_per_color, hubs, n_tickets, ticket_turns, deck_seed) -> Components:
    if edition == "standard":
        return standard_components()
    return generated_components(n_colors, plain_per_color, hubs, n_tickets, ticket_turns, deck_seed)


_GENERATED_ONLY = ("n_colors", "plain_per_color", "hubs", "n_tickets", "ticket_turns", "deck_seed")


@dataclasses.dataclass(frozen=True)
class AirportScrambleRules(RuleOptions):
    """Every rule option of Airport Scramble (defaults = the standard edition's rules)."""

    game = "Airport Scramble"

    edition: str = option("standard", choice("standard", "generated"), "AS-2/3 tabled cards, or AS-4 generated ones")
    grid_size: int = option(9, integer(3, 15), "AS-5 the table is grid_size x grid_size cells")
    action_points: int = option(2, integer(1, 6), "AS-7 action points per turn")
    face_up: int = option(4, integer(1, 6), "AS-6/9 number of face-up draw slots")
    max_replace: int = option(4, integer(1, 6), "AS-10 most face-up cards one replace may swap (<= face_up)")
    replace_cost: int = option(2, integer(1, 6), "AS-10 points a replace costs (<= action_points)")
    stop_early_cost: int = option(1, integer(0, 6), "AS-8 extra points for stopping a flight early")
    allow_wait: bool = option(True, flag(), "AS-11 wait is always legal (off: only when nothing else is)")
    board_on_draw: bool = option(True, flag(), "AS-12 the passenger boards if the plane is on the origin when the ticket is drawn")
    pickup_in_flight: bool = option(False, flag(), "AS-12 flying over the origin/destination boards/completes")
    preplayed_rule: str = option("remove_line", choice("remove_line", "redraw", "off"), "AS-15 what a pre-played ticket does")
    ticket_turn_bonus: int = option(0, integer(0, DIE_SIDES), "AS-3 turns every ticket (the set-up one too) gives beyond its card's")
    # AS-4: parameters of a generated edition (only with edition=generated).
    n_colors: int = option(4, integer(1, MAX_COLORS), "AS-4 generated: number of route colours")
    plain_per_color: int = option(5, integer(0, 10), "AS-4 generated: plain airports (H = V) per colour")
    hubs: bool = option(True, flag(), "AS-4 generated: one hub per ordered colour pair (H != V)")
    n_tickets: int = option(24, integer(1, 64), "AS-4 generated: number of tickets")
    ticket_turns: tuple = option((3, 8), integers(1, DIE_SIDES, length=2), "AS-4 generated: lowest,highest ticket turns")
    deck_seed: int = option(0, integer(0), "AS-4 generated: seed of the generated cards and tickets")

    def check(self) -> None:
        """Cross-option constraints (each error names the options involved)."""
        if self.max_replace > self.face_up:
            raise ValueError(
                f"rule options 'max_replace'={self.max_replace} and 'face_up'={self.face_up}: "
                f"max_replace must be at most face_up (allowed: 1..{self.face_up})"
            )
        if self.replace_cost > self.action_points:
            # AS-7/AS-10: a turn starts with action_points and every action spends some, so a replace
            # costing more could never be played (max_replace would mean nothing).
            raise ValueError(
                f"rule options 'replace_cost'={self.replace_cost} and 'action_points'={self.action_points}: "
                f"a replace could never be played; replace_cost must be at most action_points "
                f"(allowed: 1..{self.action_points})"
            )
        if self.edition == "standard":
            defaults = {f.name: f.default for f in dataclasses.fields(self)}
            changed = [n for n in _GENERATED_ONLY if getattr(self, n) != defaults[n]]
            if changed:
                raise ValueError(
                    f"rule option(s) {', '.join(repr(n) for n in changed)} apply only to generated editions; "
                    f"set 'edition'=generated (allowed editions: standard, generated)"
                )
            return
        lo, hi = self.ticket_turns
        if lo > hi:
            raise ValueError(f"rule option 'ticket_turns'={lo},{hi}: the lowest must not exceed the highest")
        n_cards = generated_card_count(self.n_colors, self.plain_per_color, self.hubs)
        if n_cards < 2:
            raise ValueError(
                f"rule options 'n_colors', 'plain_per_color', 'hubs' give {n_cards} airport card(s); "
                f"a ticket needs at least 2"
            )
        if self.n_tickets > n_cards * (n_cards - 1):
            raise ValueError(
                f"rule option 'n_tickets'={self.n_tickets}: only {n_cards * (n_cards - 1)} distinct tickets "
                f"exist with {n_cards} airport cards (allowed: 1..{n_cards * (n_cards - 1)})"
            )

    @property
    def turns_on_die(self) -> tuple[int, ...]:
        """AS-3: the die of each ticket, by ticket id — the card's turns plus ``ticket_turn_bonus``."""
        return tuple(t + self.ticket_turn_bonus for t in self.components.ticket_turns)

    @property
    def components(self) -> Components:
        """The edition's cards and tickets (cached; the same parameters give the same object)."""
        return _components(
            self.edition, self.n_colors, self.plain_per_color, self.hubs, self.n_tickets, self.ticket_turns, self.deck_seed
        )

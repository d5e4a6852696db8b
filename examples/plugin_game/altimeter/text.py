"""Altimeter in words, for ``aerodeck play`` and ``aerodeck replay`` (``aerodeck.envs.common.protocols.TextModule``).

``state`` is a batch of one game. The player sees the whole table; only the deck order is hidden
(AL-8). Moves are typed as words or their first letter::

    climb   (c)   guess that the next card is higher (AL-4)
    descend (d)   guess that the next card is lower (AL-4)
    land    (l)   bank the pot (AL-5)
"""

from __future__ import annotations

import numpy as np
from rich.console import Group
from rich.text import Text

from altimeter.core import CLIMB, DESCEND, KINDS, LAND
from altimeter.render import render_image, render_text

#: The typed moves (shown by ``help``).
HELP = __doc__.split("::", 1)[1].strip("\n")


def _chances(core, state) -> tuple[float, float]:
    """The chances that the next card is higher and lower than the face-up card (from the cards left)."""
    left = state.remaining[0].astype(np.float64)
    total = max(left.sum(), 1.0)
    a = int(state.altitude[0])
    return left[a:].sum() / total, left[: a - 1].sum() / total


def words(core, state, action: int) -> str:
    """The word of ``action``: ``climb``, ``descend`` or ``land``."""
    return KINDS[action]


def moves(core, state) -> list[tuple[int, str, str]]:
    """The legal moves now with their chance (climb, descend) or the points they bank (land)."""
    up, down = _chances(core, state)
    notes = {CLIMB: f"{up:.0%} higher", DESCEND: f"{down:.0%} lower", LAND: f"banks {int(state.pot[0])}"}
    return [(a, words(core, state, a), notes[a]) for a in np.flatnonzero(core.legal_mask(state)[0]).tolist()]


def parse(core, state, line: str) -> int:
    """The action ``line`` names (a word or its first letter); ``ValueError`` saying why not."""
    text = line.strip().lower()
    found = [a for a, word in enumerate(KINDS) if text in (word, word[0])]
    if not found:
        raise ValueError(f"unknown move {line.strip()!r}; moves: {', '.join(KINDS)} (or c, d, l)")
    why_not = core.explain_illegal(state, 0, found[0])
    if why_not:
        raise ValueError(f"{KINDS[found[0]]} is not allowed now: {why_not}")
    return found[0]


def screen(core, state, seat=0, log=(), names=None) -> Group:
    """The table and the last lines of the log."""
    return Group(Text(render_text(core, state)), *(Text(f"  {line}") for line in log))


def replay_screen(core, state, log=()) -> Group:
    """A recorded game's table (the whole table is public, AL-8)."""
    return screen(core, state, 0, log)


def events(core, before, after, action: int, seat=0) -> list[str]:
    """What ``action`` did, in words."""
    if action == LAND:
        return [f"land: {int(before.pot[0])} banked, score {int(after.score[0])}"]
    card = int(after.altitude[0])
    if after.done[0]:
        outcome = f"the deck is empty: game over, score {int(after.score[0])}"
    elif after.pot[0] > before.pot[0]:
        outcome = f"right: pot {int(after.pot[0])}"
    elif after.pot[0] == before.pot[0] and before.pot[0] > 0:
        outcome = "equal: the pot holds"
    else:
        outcome = "crash: the pot is lost" if before.pot[0] else "wrong: nothing was at risk"
    return [f"{KINDS[action]}: drew {card} — {outcome}"]


def undo_refusal(core, before, after) -> str | None:
    """A guess drew a card (AL-8: taking it back shows the deck); a landing can be taken back."""
    if int(after.counter[0]) != int(before.counter[0]):
        return "a card was drawn: taking the move back would show what the deck holds (AL-8)"
    return None


def why(core, state, action: int) -> str:
    """What ``action`` risks or banks."""
    up, down = _chances(core, state)
    pot = int(state.pot[0])
    if action == LAND:
        return f"banks the pot of {pot}"
    chance = up if action == CLIMB else down
    return f"{chance:.0%} to win a point; otherwise the pot of {pot} is at risk"


def summary(core, state, seat=0, names=None) -> Text:
    """The end of the game."""
    how = "the deck is empty" if state.done[0] else "the game was left unfinished"
    return Text(f"Game over: {how}. Score: {int(state.score[0])}.")


def picture(core, state) -> np.ndarray:
    """The table as the env's ``rgb_array`` render draws it: ``uint8 (H, W, 3)``."""
    return render_image(core, state)

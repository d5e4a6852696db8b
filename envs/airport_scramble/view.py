"""The look-ahead view of Airport Scramble games (``aerodeck.envs.common.core.View``): public state, and
determinizations with fresh randomness.

AS-17: the order of the two decks is the only hidden information, so the view is the solo games' view
(:class:`aerodeck.envs.common.solo_view.SoloView`): ``public(name)`` reads any state field but the random stream,
``determinize`` gives copies whose future draws are fresh.
"""

from __future__ import annotations

from aerodeck.envs.common.solo_view import SoloView


class AirportScrambleView(SoloView):
    """B Airport Scramble games as a look-ahead agent may see them (see :class:`SoloView`); e.g.
    ``public("grid")``, ``public("slots")``, ``public("plane")``, ``public("deck")``. The kinds of
    ``action_kinds``: a flight short of the reach is ``stop_early`` (AS-8)."""

    game = "Airport Scramble"
    hidden_rule = "AS-17"

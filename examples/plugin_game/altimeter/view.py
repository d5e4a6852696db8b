"""Altimeter's look-ahead view (``aerodeck.envs.common.core.View``): the table, and determinizations whose
future draws are fresh (AL-8: the deck order is the only hidden information) — the solo games' view."""

from __future__ import annotations

from aerodeck.envs.common.solo_view import SoloView


class AltimeterView(SoloView):
    """B games as a look-ahead agent may see them. ``AltimeterView(core, state, seats=0)``."""

    game = "Altimeter"
    hidden_rule = "AL-8"

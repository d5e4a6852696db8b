"""Every game's web module (``GameSpec.web``) along random games: the board draws for the seat to act
and for a spectator, and each legal move's board parts are on the board and name that move alone (a
click can always finish a move, never two)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from aerodeck import envs

WEB_GAMES = [s.id for s in envs.specs() if s.web is not None]


@pytest.mark.parametrize("game", WEB_GAMES)
def test_each_legal_moves_board_parts_are_drawn_and_name_it_alone(game):
    spec = envs.spec(game)
    web = spec.web_module()
    core = spec.make_core()
    rng = np.random.default_rng(3)
    for seed in (1, 2):
        state = core.init(np.array([seed], np.uint64))
        for _ in range(60):
            if state.done[0]:
                break
            seat = int(core.to_act(state)[0])
            drawn = set(re.findall(r'data-part="([^"]+)"', web.board(core, state, seat)))
            assert web.board(core, state, None)  # a spectator's board
            legal = np.flatnonzero(core.legal_mask(state)[0])
            seen = {}
            for action in legal:
                parts = web.parts(core, state, int(action))
                assert set(parts) <= drawn, f"{game} action {action}: parts {parts} are not all on the board"
                if parts:
                    key = tuple(sorted(parts))
                    assert key not in seen, f"{game}: actions {seen.get(key)} and {action} share the parts {parts}"
                    seen[key] = int(action)
            core.step(state, np.array([rng.choice(legal)]))
    assert web.STYLE.strip()

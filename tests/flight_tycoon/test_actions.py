"""The action indices (FT-17), the action layout and the illegal-action explanations."""

import pytest

from aerodeck.envs.common.core import ActionLayout as ActionLayoutProtocol
from aerodeck.envs.flight_tycoon.actions import ActionLayout, action_name, decode_action, n_actions, request_action
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules


def test_action_indices_follow_ft17():
    assert [n_actions(n) for n in (3, 4, 5)] == [96, 120, 144]
    assert request_action(1, 0) == 48 and request_action(2, 5) == 48 + 24 + 5
    assert decode_action(7) == ("card", 7)
    assert decode_action(request_action(3, 23)) == ("request", 3, 23)
    assert action_name(request_action(1, 18)) == "ask +1 on odd months"


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_action_layout_satisfies_the_protocol_and_describes_every_action(n):
    layout = ActionLayout(FlightTycoonRules(n_players=n))
    assert isinstance(layout, ActionLayoutProtocol)
    assert layout.n_actions == n_actions(n) and layout.kinds == ("tower", "request", "give", "discard")
    assert layout.describe(18) == "card 5C"
    assert layout.describe(request_action(n - 1, 23)) == f"ask +{n - 1} on airline D"
    assert len({layout.describe(a) for a in range(layout.n_actions)}) == layout.n_actions
    with pytest.raises(ValueError, match=rf"action must be an integer in 0..{layout.n_actions - 1}, got {layout.n_actions}"):
        layout.describe(layout.n_actions)

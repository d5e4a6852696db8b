"""Restricted play of Flight Tycoon: a restriction that leaves nothing falls back to the full mask and
is counted (``aerodeck.agents.restricted``)."""

from tests.agents.restricted_play import play

FT = "flight-tycoon"


def test_a_restriction_that_leaves_nothing_falls_back_to_the_full_mask_and_counts():
    # FT-16: a discard choice offers only cards of the colliding month, all of kind discard
    agent, kinds = play(FT, "restricted:base=heuristic,forbid=discard")
    assert agent.fallbacks == kinds.count("discard") > 0
    assert agent.decisions == len(kinds)

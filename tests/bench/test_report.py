"""Report helpers: p-values and tally lines as the tables show them."""

from aerodeck.bench.report import p_text, tally_line


def test_p_values_that_underflowed_read_as_a_bound_not_as_zero():
    assert p_text(0.01234) == "0.012"
    assert p_text(0.0) == "<1e-300"


def test_a_tally_line_lists_few_items_all_and_many_by_their_extremes():
    assert tally_line("ended by", {"empty stock": 0.7, "empty deck": 0.3}) == \
        "ended by (mean per game): empty stock 0.7, empty deck 0.3."
    squares = {f"square {i}": float(i) for i in range(6)}
    assert tally_line("landings", squares) == ("landings (mean per game): 15 in all; most square 5 5, square 4 4, "
                                               "square 3 3; least square 1 1, square 0 0.")

"""The Flight Tycoon rules object: every rule option of ``shared/rules/flight-tycoon.md``, validated."""

from __future__ import annotations

import dataclasses

from envs.common.options import RuleOptions, choice, flag, integer, integers, option

VP_TABLE_ORDER = "single month, season, half-year, odd/even, airline"


@dataclasses.dataclass(frozen=True)
class FlightTycoonRules(RuleOptions):
    """Rule options of Flight Tycoon (defaults = the notebook's draft 0).

    Build with ``FlightTycoonRules(n_players=5)``, ``from_strings(["vp_sharing=rank"])`` or
    ``from_toml(path)``; an unknown option or a bad value raises ``ValueError`` naming it.
    """

    game = "Flight Tycoon"

    n_players: int = option(4, integer(3, 5), "players around the table (FT-5)")
    hand_size: int = option(8, integer(2, 15), "cards dealt to each player (FT-5)")
    tokens: int = option(30, integer(1, 200), "route tokens in the stock (FT-4)")
    vp_table: tuple = option(
        (1, 5, 8, 10, 6), integers(0, 100, length=5), f"base VP of the squares: {VP_TABLE_ORDER} (FT-3)"
    )
    vp_sharing: str = option(
        "split", choice("split", "first_only", "rank"), "how tokens on one square share its VP (FT-11)"
    )
    rank_step: int = option(2, integer(0, 100), "VP lost per earlier token with vp_sharing=rank (FT-11)")
    tower_giveable: bool = option(False, flag(), "a target may give its tower as a card of its month (FT-9)")
    reward: str = option("outcome", choice("outcome", "vp"), "outcome: ±1 at the end; vp: each landing's VP (FT-15)")

    def __post_init__(self) -> None:
        try:
            super().__post_init__()
        except ValueError as err:
            if "'vp_table'" in str(err):  # say which value is which
                raise ValueError(f"{err}, in the order {VP_TABLE_ORDER}") from None
            raise

    def check(self) -> None:
        """FT-5: the deal must leave a deck (``n_players × hand_size < 48``)."""
        if self.n_players * self.hand_size >= 48:
            raise ValueError(
                f"rule options 'n_players' ({self.n_players}) and 'hand_size' ({self.hand_size}) leave no deck: "
                f"n_players × hand_size = {self.n_players * self.hand_size} must be below 48 (FT-5); "
                f"allowed: hand_size at most {47 // self.n_players} for {self.n_players} players"
            )

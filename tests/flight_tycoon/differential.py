"""The differential harness: the batched core and the reference engine play the same seeds with the
same random legal actions, and must agree on every mask, observation, reward, end and state."""

from __future__ import annotations

import numpy as np

from aerodeck.envs.common.batch import sample_legal
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.reference import ReferenceGame
from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules

#: Rule variants the differential tests cover (3, 4 and 5 players; every option off its default).
VARIANTS = [
    {},
    {"n_players": 3},
    {"n_players": 5},
    {"n_players": 3, "hand_size": 15},
    {"n_players": 5, "hand_size": 9},
    {"hand_size": 2},
    {"vp_sharing": "first_only"},
    {"vp_sharing": "rank", "rank_step": 3},
    {"vp_table": (3, 0, 7, 2, 9), "vp_sharing": "rank", "rank_step": 1},
    {"tokens": 3},
    {"tokens": 200, "n_players": 3},
    {"tower_giveable": True},
    {"tower_giveable": True, "n_players": 5, "vp_sharing": "rank"},
    {"reward": "vp"},
    {"reward": "vp", "n_players": 3, "tower_giveable": True, "vp_sharing": "first_only"},
]


def _compare(core, st, refs, full: bool) -> None:
    n = core.n_players
    masks = core.legal_mask(st)
    to_act = core.to_act(st)
    acting = core.observe(st, np.maximum(to_act, 0))
    everyone = [core.observe(st, seat) for seat in range(n)] if full else None
    for b, ref in enumerate(refs):
        assert to_act[b] == ref.to_act, (b, to_act[b], ref.to_act)
        assert np.array_equal(masks[b], ref.legal_mask()), b
        assert np.array_equal(acting[b], ref.observe(max(ref.to_act, 0))), b
        if full:
            assert core.snapshot(st, b) == ref.snapshot(), b
            for seat in range(n):
                assert np.array_equal(everyone[seat][b], ref.observe(seat)), (b, seat)
            ref.check_views()


def play_both(rules: FlightTycoonRules, games: int, decisions: int, seed: int, full_every: int = 1) -> int:
    """Play until ``decisions`` decisions were compared; finished games restart with new seeds.

    Every decision compares masks, the seat to act, its observation and the rewards; every
    ``full_every``-th step also every seat's observation, the whole state and the reference's
    knowledge views. Returns the number of decisions played.
    """
    core = FlightTycoonCore(rules)
    rng = np.random.default_rng(seed)
    seeds = np.arange(games) + seed * 1_000_003
    next_seed = int(seeds[-1]) + 1
    st = core.init(seeds)
    refs = [ReferenceGame(rules, int(s)) for s in seeds]
    played = step = 0
    while played < decisions:
        _compare(core, st, refs, full=step % full_every == 0)
        actions = sample_legal(core.legal_mask(st), rng.random(games))
        rewards = core.step(st, actions)
        for b, ref in enumerate(refs):
            assert np.array_equal(rewards[b], np.asarray(ref.step(int(actions[b])), np.float32)), b
        played += games
        step += 1
        finished = np.flatnonzero(st.done)
        if finished.size:
            _compare(core, st, refs, full=True)  # the final state of every finished game
            new = np.arange(next_seed, next_seed + finished.size)
            next_seed += finished.size
            st.put(finished, core.init(new))
            for b, s in zip(finished, new):
                refs[b] = ReferenceGame(rules, int(s))
    return played

"""Shared test machinery: random rule variants, lock-step play of both engines, invariants."""

from __future__ import annotations

import numpy as np

from aerodeck.envs.airport_scramble.core import AirportScrambleCore, occupancy_bits
from aerodeck.envs.airport_scramble.state import State
from aerodeck.envs.airport_scramble.reference import ReferenceGame
from aerodeck.envs.airport_scramble.rules import DIE_SIDES, AirportScrambleRules, generated_card_count


def random_rules(r: np.random.Generator) -> AirportScrambleRules:
    """A random rules variant: every option (a ticket_turn_bonus in 3 of 10), standard or generated
    editions (small ones often, so that tickets get pre-played and AS-15 comes up)."""
    face_up = int(r.integers(1, 7))
    grid_size = int(r.choice([3, 4, 5, 6, 7, 9, 11]))
    action_points = int(r.integers(1, 7))
    options = dict(
        grid_size=grid_size,
        action_points=action_points,
        face_up=face_up,
        max_replace=int(r.integers(1, face_up + 1)),
        replace_cost=int(r.integers(1, min(3, action_points) + 1)),  # a replace must be playable (rules check)
        stop_early_cost=int(r.integers(0, 3)),
        allow_wait=bool(r.random() < 0.5),
        board_on_draw=bool(r.random() < 0.5),
        pickup_in_flight=bool(r.random() < 0.5),
        preplayed_rule=str(r.choice(["remove_line", "remove_line", "redraw", "off"])),
    )
    if r.random() < 0.6:
        n_colors = int(r.integers(1, 7))
        hubs = bool(r.random() < 0.7)
        plain = int(r.integers(0, 8))
        if generated_card_count(n_colors, plain, hubs) < 2:
            plain = 2
        n_cards = generated_card_count(n_colors, plain, hubs)
        lo = int(r.integers(1, 9))
        options.update(
            edition="generated",
            n_colors=n_colors,
            plain_per_color=plain,
            hubs=hubs,
            n_tickets=int(r.integers(1, min(64, n_cards * (n_cards - 1)) + 1)),
            ticket_turns=(lo, int(r.integers(lo, 9))),
            deck_seed=int(r.integers(0, 10_000)),
        )
    if r.random() < 0.3:  # AS-3: longer tickets
        options["ticket_turn_bonus"] = int(r.integers(1, DIE_SIDES + 1))
    return AirportScrambleRules(**options)


def choose(mask: np.ndarray, r: np.random.Generator, n_fly: int) -> int:
    """A random legal action, flying half the time when it can (so that tickets get completed)."""
    legal = np.flatnonzero(mask)
    flights = legal[legal < n_fly]
    if flights.size and r.random() < 0.5:
        return int(r.choice(flights))
    return int(r.choice(legal))


def check_invariants(core: AirportScrambleCore, s: State, mask: np.ndarray, all_cards: bool = True) -> None:
    """Every card in exactly one place (at most one with ``all_cards=False``, for hand-built positions
    that leave cards out), a live game has a legal action, die/points in range, the network connected
    and matching (AS-9), derived fields consistent with the canonical ones."""
    B, G, N, T = s.batch_size, core.G, core.N, core.T
    live = ~s.done
    grid = s.grid.reshape(B, -1)
    count = s.deck.astype(int)
    rows = np.repeat(np.arange(B), grid.shape[1])
    np.add.at(count, (rows[grid.ravel() >= 0], grid.ravel()[grid.ravel() >= 0]), 1)
    rows = np.repeat(np.arange(B), core.F)
    np.add.at(count, (rows[s.slots.ravel() >= 0], s.slots.ravel()[s.slots.ravel() >= 0].astype(int)), 1)
    assert (count <= 1).all(), "an airport card is in two places"
    assert not all_cards or (count == 1).all(), "an airport card is missing"
    tickets = s.ticket_deck.sum(axis=1) + (s.ticket >= 0) + s.score
    assert (tickets == T).all(), "tickets in deck + current + completed != n_tickets"
    if live.any():
        assert mask[live].any(axis=1).all(), "a live game has no legal action"
        assert ((s.points[live] >= 1) & (s.points[live] <= core.rules.action_points)).all()
        active = live & (s.ticket >= 0)
        assert ((s.die[active] >= 1) & (s.die[active] <= 8 + core.rules.ticket_turn_bonus)).all()  # AS-3
        assert (s.die[live & (s.ticket < 0)] == 0).all()
        assert (grid[live, s.plane[live]] >= 0).all(), "the plane is not on a card"
        assert (s.ticket[live & (s.phase == 1)] < 0).all()
    assert not mask[s.done].any(), "a finished game has legal actions"
    from aerodeck.envs.airport_scramble.lines import connected

    assert connected(s.grid[live] >= 0).all(), "the network of cards is not connected"
    h = np.append(np.array(core.components.card_h), -1)[s.grid.astype(int)]
    v = np.append(np.array(core.components.card_v), -1)[s.grid.astype(int)]
    both = (s.grid[:, :, 1:] >= 0) & (s.grid[:, :, :-1] >= 0)
    assert (h[:, :, 1:] == h[:, :, :-1])[both].all(), "left/right neighbours differ in H colour (AS-9)"
    both = (s.grid[:, 1:, :] >= 0) & (s.grid[:, :-1, :] >= 0)
    assert (v[:, 1:, :] == v[:, :-1, :])[both].all(), "upper/lower neighbours differ in V colour (AS-9)"
    assert np.array_equal(s.nb[:, : G * G], core.neighbour_bits(s.grid)[:, : G * G]), "nb is stale"
    location = np.full((B, N), -1)
    cells = np.flatnonzero(grid.ravel() >= 0)
    location[cells // (G * G), grid.ravel()[cells]] = cells % (G * G)
    slots = np.flatnonzero(s.slots.ravel() >= 0)
    location[slots // core.F, s.slots.ravel()[slots]] = G * G + slots % core.F
    assert np.array_equal(s.location, location), "location disagrees with grid and slots"
    rows, cols = occupancy_bits(s.grid)
    assert np.array_equal(s.row_bits, rows) and np.array_equal(s.col_bits, cols)
    values = np.append(np.array(core.observation.color_values)[np.array(core.components.card_h) + 1], 0)
    assert np.array_equal(s.cell_values[:, 0::2], values[s.grid.reshape(B, -1).astype(int)])


def play_both(rules: AirportScrambleRules, seeds: list[int], steps: int, r: np.random.Generator) -> int:
    """Play the reference and the core in lock step on ``seeds`` (finished games restart with new
    seeds) for ``steps`` rounds; assert identical positions, masks, observations, rewards and ends
    after every step, and the invariants. Returns the number of game steps compared."""
    core = AirportScrambleCore(rules)
    state = core.init(np.array(seeds))
    games = [ReferenceGame(rules, seed) for seed in seeds]
    next_seed = max(seeds) + 1
    compared = 0
    for step in range(steps):
        mask = core.legal_mask(state)
        obs = core.observe(state)
        check_invariants(core, state, mask)
        for i, game in enumerate(games):
            where = f"rules {rules.label()!r}, game seed index {i}, step {step}"
            assert game.snapshot() == core.snapshot(state, i), where
            assert np.array_equal(game.legal_mask(), mask[i]), f"masks differ: {where}"
            assert np.array_equal(game.observe(), obs[i]), f"observations differ: {where}"
        actions = np.array([choose(mask[i], r, core.actions.n_fly) for i in range(len(games))])
        rewards = core.step(state, actions)
        for i, game in enumerate(games):
            assert game.step(int(actions[i])) == rewards[i, 0]
            assert game.done == state.done[i]
            compared += 1
            if game.done:
                games[i] = ReferenceGame(rules, next_seed)
                core.reset(state, [i], [next_seed])
                next_seed += 1
    return compared


class Both:
    """One hand-built position loaded into both engines; every query asserts they agree.

    ``Both(rules, position)``; ``mask()``, ``legal(action)``, ``step(action) -> reward``,
    ``position`` (the agreed :class:`Position`), ``actions`` (AS-19 indices), ``card(code)``.
    """

    def __init__(self, rules: AirportScrambleRules, position) -> None:
        self.rules = rules
        self.core = AirportScrambleCore(rules)
        self.state = self.core.load_positions([position])
        self.game = ReferenceGame.from_position(rules, position)
        self.actions = self.core.actions
        assert self.game.snapshot() == position == self.core.snapshot(self.state, 0)
        placed = len(position.deck) + len(position.cards_in_play()) + sum(c >= 0 for c in position.slots)
        self.all_cards = placed == rules.components.n_cards

    @property
    def position(self):
        p = self.game.snapshot()
        assert p == self.core.snapshot(self.state, 0), "the engines disagree"
        return p

    def card(self, code: str) -> int:
        return self.rules.components.card(code)

    def mask(self) -> np.ndarray:
        mask = self.game.legal_mask()
        assert np.array_equal(mask, self.core.legal_mask(self.state)[0]), "the engines' masks disagree"
        return mask

    def observe(self) -> np.ndarray:
        obs = self.game.observe()
        assert np.array_equal(obs, self.core.observe(self.state)[0]), "the engines' observations disagree"
        return obs

    def legal(self, action: int) -> bool:
        return bool(self.mask()[action])

    def step(self, action: int) -> float:
        assert self.legal(action), f"{self.actions.describe(action)} is illegal: {self.game.explain_illegal(action)}"
        reward = self.game.step(action)
        assert reward == self.core.step(self.state, np.array([action]))[0, 0]
        check_invariants(self.core, self.state, self.core.legal_mask(self.state), self.all_cards)
        _ = self.position
        return reward

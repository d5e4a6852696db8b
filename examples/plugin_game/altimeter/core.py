"""Altimeter's batched core: B games as arrays (leading axis = game), satisfying ``aerodeck.envs.common.core.Core``.

Randomness is an input (``aerodeck.envs.common.rng``): the card drawn is the k-th remaining card by altitude
with k from the game's splitmix64 stream at its draw counter, exactly as ``reference.py`` draws.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from altimeter.rules import AltimeterRules
from aerodeck.envs.common.batch import BatchedState, restore_state, save_state
from aerodeck.envs.common.checks import IllegalActionError, check_actions, check_seeds
from aerodeck.envs.common.layout import stack_blocks
from aerodeck.envs.common.rng import draw_below_array, game_keys, stream_array

#: The actions (AL-3), by index.
CLIMB, DESCEND, LAND = 0, 1, 2
#: The kinds of decision: one per action.
KINDS = ("climb", "descend", "land")


@dataclasses.dataclass
class State(BatchedState):
    """B games (AL-1 … AL-6); ``key``/``counter`` are the hidden deck order (AL-8)."""

    altitude: np.ndarray  # int64 (B,): the face-up card, 1..n_values
    remaining: np.ndarray  # int64 (B, n_values): cards of each altitude still in the deck
    pot: np.ndarray  # int64 (B,): points at risk (AL-4)
    score: np.ndarray  # int64 (B,): points banked (AL-5)
    done: np.ndarray  # bool (B,)
    key: np.ndarray  # uint64 (B,): the game's random stream
    counter: np.ndarray  # int64 (B,): draws so far


class Actions:
    """The action layout (``aerodeck.envs.common.core.ActionLayout``): climb, descend, land."""

    n_actions = len(KINDS)
    kinds = KINDS

    def describe(self, action: int) -> str:
        """The action in the game's words: ``"climb"``, ``"descend"`` or ``"land"``."""
        return KINDS[action]


class Observation:
    """The observation layout (``aerodeck.envs.common.core.ObservationLayout``) for ``rules``; every entry in [0, 1]."""

    def __init__(self, rules: AltimeterRules) -> None:
        n = rules.n_values
        self.blocks, self.size = stack_blocks([
            ("altitude", n, "one-hot: the face-up card (AL-2)"),
            ("remaining", n, "cards of each altitude left in the deck / copies (AL-8: public)"),
            ("pot", 1, "points at risk / deck size"),
            ("score", 1, "points banked / deck size"),
            ("deck", 1, "cards left in the deck / deck size"),
        ])


class AltimeterCore:
    """B games of Altimeter under one rules object. ``AltimeterCore(rules, check_actions=True)``."""

    n_players = 1

    def __init__(self, rules: AltimeterRules | None = None, check_actions: bool = True) -> None:
        self.rules = rules if rules is not None else AltimeterRules()
        self.check = check_actions
        self.actions = Actions()
        self.observation = Observation(self.rules)
        self.n_actions = self.actions.n_actions
        self.obs_size = self.observation.size
        self._template = None

    # --- the deal ---------------------------------------------------------------------------------

    def _draw(self, state: State, rows: np.ndarray) -> np.ndarray:
        """Draw a card in the games ``rows``: ``int64 (len(rows),)`` altitudes, removed from the deck."""
        remaining = state.remaining[rows]
        left = remaining.sum(axis=1)
        k = draw_below_array(stream_array(state.key[rows], state.counter[rows]), left)
        card = np.argmax(np.cumsum(remaining, axis=1) > k[:, None], axis=1)
        state.remaining[rows, card] -= 1
        state.counter[rows] += 1
        return card + 1

    def init(self, seeds) -> State:
        """New games, one per seed (integers ``(B,)``): the deck, then the face-up card (AL-2)."""
        seeds = check_seeds(seeds)
        B, r = len(seeds), self.rules
        state = State(altitude=np.zeros(B, np.int64), remaining=np.full((B, r.n_values), r.copies, np.int64),
                      pot=np.zeros(B, np.int64), score=np.zeros(B, np.int64), done=np.zeros(B, bool),
                      key=game_keys(seeds), counter=np.zeros(B, np.int64))
        state.altitude[:] = self._draw(state, np.arange(B))
        return state

    def reset(self, state: State, games, seeds) -> None:
        """Start new games from ``seeds`` in place of the games ``games`` (integer indices)."""
        state.put(np.asarray(games), self.init(seeds))

    def reseed(self, state: State, seeds) -> None:
        """Fresh random streams from ``seeds`` (``(B,)``); the table is kept."""
        state.key[:] = game_keys(check_seeds(seeds))
        state.counter[:] = 0

    # --- the decision -----------------------------------------------------------------------------

    def legal_mask(self, state: State) -> np.ndarray:
        """``bool (B, 3)`` (AL-3): climb below the top, descend above 1, land with a pot."""
        live = ~state.done
        return np.stack([live & (state.altitude < self.rules.n_values), live & (state.altitude > 1),
                         live & (state.pot > 0)], axis=1)

    def explain_illegal(self, state: State, game: int, action: int) -> str | None:
        """Why ``action`` is illegal in game ``game`` now (AL-3), or ``None`` if it is legal."""
        if state.done[game]:
            return "the game is over"
        if action == CLIMB and state.altitude[game] >= self.rules.n_values:
            return f"no card is higher than the top altitude {self.rules.n_values} (AL-3)"
        if action == DESCEND and state.altitude[game] <= 1:
            return "no card is lower than altitude 1 (AL-3)"
        if action == LAND and state.pot[game] == 0:
            return "the pot is empty: nothing to land with (AL-3)"
        return None

    def action_kinds(self, state: State) -> np.ndarray:
        """``int8 (B, 3)``: each legal action's kind (its own index), −1 where illegal."""
        return np.where(self.legal_mask(state), np.arange(3, dtype=np.int8), np.int8(-1)).astype(np.int8)

    def to_act(self, state: State) -> np.ndarray:
        """``int64 (B,)``: 0, or −1 in a finished game."""
        return np.where(state.done, -1, 0).astype(np.int64)

    def step(self, state: State, actions) -> np.ndarray:
        """One decision per unfinished game (``actions`` integers ``(B,)``), in place; rewards ``float32 (B, 1)``
        (AL-7: the points banked by the decision)."""
        live = ~state.done
        a = check_actions(actions, state.batch_size, self.n_actions, live)
        if self.check:
            legal = self.legal_mask(state)[np.arange(state.batch_size), a]
            bad = np.flatnonzero(live & ~legal)
            if bad.size:
                g = int(bad[0])
                raise IllegalActionError(f"Altimeter game {g}: action {int(a[g])} ({KINDS[a[g]]}) is illegal: "
                                         f"{self.explain_illegal(state, g, int(a[g]))}")
        rewards = np.zeros((state.batch_size, 1), np.float32)
        land = np.flatnonzero(live & (a == LAND))
        rewards[land, 0] = state.pot[land]
        state.score[land] += state.pot[land]
        state.pot[land] = 0
        guess = np.flatnonzero(live & (a != LAND))
        if guess.size:
            before = state.altitude[guess]
            card = self._draw(state, guess)
            right = np.where(a[guess] == CLIMB, card > before, card < before)
            hold = (card == before) & (self.rules.tie == "hold")
            state.pot[guess] = np.where(right, state.pot[guess] + 1, np.where(hold, state.pot[guess], 0))
            state.altitude[guess] = card
            # AL-6: the last card drawn ends the game and banks the pot
            end = guess[state.remaining[guess].sum(axis=1) == 0]
            rewards[end, 0] += state.pot[end]
            state.score[end] += state.pot[end]
            state.pot[end] = 0
            state.done[end] = True
        return rewards

    def observe(self, state: State, seat=None) -> np.ndarray:
        """``float32 (B, O)``: what the player knows (everything but the deck order, AL-8)."""
        r, B = self.rules, state.batch_size
        out = np.zeros((B, self.obs_size), np.float32)
        out[np.arange(B), state.altitude - 1] = 1.0
        n, deck = r.n_values, r.deck_size
        out[:, n:2 * n] = state.remaining / r.copies
        out[:, 2 * n] = state.pot / deck
        out[:, 2 * n + 1] = state.score / deck
        out[:, 2 * n + 2] = state.remaining.sum(axis=1) / deck
        return out

    # --- saving -----------------------------------------------------------------------------------

    def save(self, state: State) -> dict[str, np.ndarray]:
        """The whole batch as plain arrays (field name -> array)."""
        return save_state(state)

    def restore(self, saved) -> State:
        """The batch ``save`` wrote; ``ValueError`` naming a missing or misshapen field."""
        if self._template is None:
            self._template = self.init([0])
        return restore_state(self._template, saved)

"""Each game's decisions as the play goes: a ``play_games`` observer that keeps every game's decisions —
every seat's, in the order the table took them — as a 64-bit hash and a count, and, when asked, the actions
themselves; and how two traces of the same games compare (``aerodeck.judge.changed`` reads them: which games
a judge played the same under two rule variants, and where two games split).
"""

from __future__ import annotations

import numpy as np

#: The multiplier of the decision hash (an odd 64-bit constant: the golden ratio's).
HASH_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


class Trace:
    """Each game's decisions, as a ``play_games`` observer for ``n_games`` games (numbers 0 … n_games−1):
    ``hash`` uint64 ``(G,)`` (h ← h·M + action + 1 over the decisions, wrapping), ``length`` int64
    ``(G,)`` (the decisions taken) and, with ``keep``, ``actions`` int32 ``(G, T)`` padded with −1."""

    def __init__(self, n_games: int, keep: bool = False) -> None:
        self.hash = np.zeros(n_games, np.uint64)
        self.length = np.zeros(n_games, np.int64)
        self.over = np.zeros(n_games, bool)
        self.keep = keep
        self.actions = np.full((n_games, 64 if keep else 0), -1, np.int32)

    def on_start(self, core, state, games) -> None:
        pass

    def on_step(self, core, state, actions, rewards, games) -> None:
        games = np.asarray(games)
        live = ~self.over[games]  # a finished game's row takes no decision
        g, a = games[live], np.asarray(actions)[live]
        if g.size == 0:
            return
        self.hash[g] = self.hash[g] * HASH_MULTIPLIER + (a.astype(np.uint64) + np.uint64(1))
        if self.keep:
            need = int(self.length[g].max()) + 1
            if need > self.actions.shape[1]:
                grown = np.full((self.actions.shape[0], max(need, 2 * self.actions.shape[1])), -1, np.int32)
                grown[:, : self.actions.shape[1]] = self.actions
                self.actions = grown
            self.actions[g, self.length[g]] = a
        self.length[g] += 1
        self.over[g] = np.asarray(state.done)[live]

    def result(self) -> dict:
        """``{"hash", "length"}`` and, when kept, ``"actions"`` (trimmed to the longest game)."""
        out = {"hash": self.hash, "length": self.length}
        if self.keep:
            out["actions"] = self.actions[:, : int(self.length.max(initial=0))]
        return out


def merge_traces(parts: list[dict]) -> dict:
    """The traces of a cell's tasks put together in game order (actions padded with −1 to one width)."""
    out = {"hash": np.concatenate([p["hash"] for p in parts]), "length": np.concatenate([p["length"] for p in parts])}
    if all("actions" in p for p in parts):
        width = max(p["actions"].shape[1] for p in parts)
        out["actions"] = np.concatenate([np.pad(p["actions"], ((0, 0), (0, width - p["actions"].shape[1])),
                                                constant_values=-1) for p in parts])
    return out


def split_decisions(a: dict, b: dict) -> np.ndarray:
    """Per game, the first decision (from 1) where two traces differ — the decision whose action differs,
    or the one after the shorter game's last — and 0 where the decisions are identical: int64 ``(G,)``.
    Needs the actions kept (``Trace(keep=True)``)."""
    width = max(a["actions"].shape[1], b["actions"].shape[1])
    pa = np.pad(a["actions"], ((0, 0), (0, width - a["actions"].shape[1])), constant_values=-1)
    pb = np.pad(b["actions"], ((0, 0), (0, width - b["actions"].shape[1])), constant_values=-1)
    differ = pa != pb
    first = np.where(differ.any(axis=1), differ.argmax(axis=1) + 1, 0)
    return first.astype(np.int64)


def identical(a: dict, b: dict) -> np.ndarray:
    """Per game, whether two traces hold the same decisions: bool ``(G,)`` (the actions when both kept
    them, else the hash and the count)."""
    if "actions" in a and "actions" in b:
        return split_decisions(a, b) == 0
    return (a["hash"] == b["hash"]) & (a["length"] == b["length"])

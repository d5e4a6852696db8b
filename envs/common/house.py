"""House rules: a designer's own rule, written as a subclass of a game's reference engine, played by
every tool through the ``Core`` protocol (``docs/designers.md``, "Write a house rule").

A house rule is named ``FILE.py:Class``: ``Class`` in the Python file ``FILE.py``, a subclass of the
game's reference engine (``envs/<game>/reference.py``, ``ReferenceGame``) overriding some of its
documented hook methods. :func:`with_house` attaches it to a rules object (the variant's rule options
stay as they are; ``label()`` names the house rule), and ``GameSpec.make_core`` then builds a
:class:`ReferenceCore`: B reference games played one by one in Python behind the batched ``Core``
interface, so the play loop, the metrics, the agents and the look-ahead views work unchanged — only
slower (``docs/designers.md`` gives the measured speed).

How it stays exact: the adapter's state *is* the game's own batched ``State`` (its arrays written from
the reference games after every step, so metrics, summaries and views read what they always read),
with the reference games attached. Copies (``copy``/``take``/``repeat``) share the games until one is
stepped (copy on write; after ``take`` the original steps its games in place, and a taken game whose
original moved on is rebuilt from its own arrays). When a state's arrays are changed from outside — a
look-ahead view's determinization writes sampled hidden cards and fresh random streams into them — the
games of the changed rows are rebuilt from the arrays (keeping the house rule's own attributes). The per-game
glue (what a game's state looks like as arrays and back) is each game's ``house.py``, named by
``GameSpec.house``.

Errors in a house rule — an exception in a hook, a decision with no legal action, a game that has not
ended after ``max_decisions`` decisions (the engine's class attribute) — raise :class:`HouseRuleError`,
one line naming the rule, the game (its seed) and the decision.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib.util
import itertools
import sys
from pathlib import Path

import numpy as np

from aerodeck.envs.common.batch import BatchedState
from aerodeck.envs.common.checks import IllegalActionError, check_seeds, step_actions

#: A game that has not ended after this many decisions is stopped as an error (a house rule's engine
#: class may set its own ``max_decisions``).
MAX_DECISIONS = 10_000


class HouseRuleError(RuntimeError):
    """A house rule failed while a game was played: ``rule`` (its name), ``seed`` (the game's seed),
    ``decision`` (the decision number in that game, from 0) and ``what`` happened."""

    def __init__(self, rule: str, seed: int | None, decision: int, what: str, lookahead: bool = False) -> None:
        self.rule, self.seed, self.decision, self.what, self.lookahead = rule, seed, decision, what, lookahead
        super().__init__(self.line())

    def __reduce__(self):
        return (type(self), (self.rule, self.seed, self.decision, self.what, self.lookahead))

    def line(self, game: int | None = None) -> str:
        """The error in one line; ``game``: the game's number in the run, if the caller knows it."""
        where = f"game {game}" if game is not None else f"the game seeded {self.seed}"
        ahead = " (in a search's look-ahead)" if self.lookahead else ""
        return f"house rule {self.rule}: {where}, decision {self.decision}{ahead}: {self.what}"


# --- naming and loading a house rule ------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class HouseRule:
    """``Class`` in the Python file ``path`` (absolute); ``name`` as the user wrote it (``FILE.py:Class``)."""

    path: str
    cls: str
    name: str

    @classmethod
    def parse(cls, text: str, folder: str | Path | None = None) -> HouseRule:
        """``FILE.py:Class`` (a relative ``FILE`` is taken from ``folder``, default the working folder);
        ``ValueError`` naming what is expected otherwise. The file is not imported yet."""
        file, sep, name = str(text).strip().rpartition(":")
        if not sep or not file.endswith(".py") or not name.isidentifier():
            raise ValueError(f"house rule {text!r}: expected FILE.py:Class (a Python file and the class in it, "
                             "e.g. my_rules.py:LastSeatExtraCard)")
        path = Path(file).expanduser()
        if not path.is_absolute():
            path = Path(folder or ".") / path
        path = path.resolve()
        if not path.is_file():
            raise ValueError(f"house rule {text!r}: no file {str(path)!r}")
        return cls(str(path), name, f"{Path(file).name}:{name}")


@functools.lru_cache(maxsize=None)
def _module(path: str, mtime: float):
    name = f"aerodeck_house_{abs(hash((path, mtime))):x}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look modules up by name
    spec.loader.exec_module(module)
    return module


def load_engine(house: HouseRule, reference: type) -> type:
    """The class ``house`` names, checked to be a subclass of the game's reference engine
    ``reference``; ``ValueError`` in one line naming what is expected otherwise."""
    try:
        module = _module(house.path, Path(house.path).stat().st_mtime)
    except Exception as err:  # noqa: BLE001 - any failure of the user's file is reported as the file's
        raise ValueError(f"house rule {house.name}: {house.path} failed to import: {type(err).__name__}: {err}") from None
    found = getattr(module, house.cls, None)
    expected = f"{reference.__module__}.{reference.__qualname__}"
    if found is None:
        classes = [k for k, v in vars(module).items() if isinstance(v, type) and issubclass(v, reference) and v is not reference]
        raise ValueError(f"house rule {house.name}: {house.path} has no class {house.cls!r}"
                         + (f"; its house rules: {', '.join(classes)}" if classes else f" (expected a subclass of {expected})"))
    if not (isinstance(found, type) and issubclass(found, reference)):
        raise ValueError(f"house rule {house.name}: {house.cls} must be a subclass of {expected} (the game's "
                         f"reference engine), got {found!r}")
    return found


# --- a rules object carrying a house rule ---------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _housed_class(rules_class: type, house: HouseRule) -> type:
    """The subclass of ``rules_class`` whose objects carry ``house`` (one class per pair, so equal
    house rules give equal rules objects, and a rules object with a house rule never equals one
    without)."""

    def label(self) -> str:
        base = rules_class.label(self)
        return f"house={house.name}" if base == "default" else f"{base} house={house.name}"

    def reduce(self):
        return (_rebuild, (rules_class, house, self.to_dict()))

    return type(rules_class.__name__, (rules_class,),
                {"house": house, "label": label, "__reduce__": reduce, "__module__": rules_class.__module__,
                 "__doc__": f"{rules_class.__name__} played with the house rule {house.name}."})


def _rebuild(rules_class: type, house: HouseRule, options: dict):
    return with_house(rules_class.from_options(options), house)


def with_house(rules, house: HouseRule | None):
    """``rules`` (a game's rules object) carrying the house rule ``house`` (``None``: the plain rules)."""
    plain = plain_rules(rules)
    if house is None:
        return plain
    return _housed_class(type(plain), house)(**{f.name: getattr(plain, f.name) for f in dataclasses.fields(plain)})


def house_of(rules) -> HouseRule | None:
    """The house rule ``rules`` carries, or ``None``."""
    return getattr(type(rules), "house", None) if rules is not None else None


def plain_rules(rules):
    """``rules`` without its house rule (the same options)."""
    if house_of(rules) is None:
        return rules
    base = type(rules).__mro__[1]
    return base(**{f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)})


# --- the state: the game's own arrays, with the reference games attached ------------------------------------

_VERSIONS = itertools.count(1)


@functools.lru_cache(maxsize=None)
def _state_class(base: type) -> type:
    """The subclass of a core's ``State`` class that carries the reference games (see the module docstring)."""

    def _attach(out, games, synced, versions):
        out.games, out.synced, out.versions = games, synced, versions
        out.owned = np.zeros(len(games), bool)
        return out

    def copy_(self):  # both sides copy a game before stepping it (a copy is a branch to keep)
        self.owned[:] = False
        return _attach(base.copy(self), list(self.games), self.synced.copy(), self.versions.copy())

    def take(self, idx):
        out = base.take(self, idx)
        if isinstance(idx, slice):
            rows = np.arange(self.batch_size)[idx]
        else:
            rows = np.asarray(idx)
            rows = np.flatnonzero(rows) if rows.dtype == bool else rows.astype(np.int64)
        return _attach(out, [self.games[i] for i in rows], self.synced[rows], self.versions[rows])

    def repeat(self, k: int):
        self.owned[:] = False
        return _attach(base.repeat(self, k), [g for g in self.games for _ in range(k)],
                       np.repeat(self.synced, k, axis=0), np.repeat(self.versions, k))

    def put(self, idx, other) -> None:
        base.put(self, idx, other)
        rows = np.atleast_1d(np.arange(self.batch_size)[idx] if isinstance(idx, slice) else np.asarray(idx))
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        theirs = getattr(other, "games", None)
        for j, i in enumerate(rows):
            self.games[i] = theirs[j] if theirs is not None else None
        self.owned[rows] = False
        if theirs is not None:
            self.synced[rows], self.versions[rows] = other.synced, other.versions
        else:
            self.synced[rows] = 0  # rebuilt from the arrays when next read
            self.versions[rows] = -1

    return type(base.__name__, (base,), {"copy": copy_, "take": take, "repeat": repeat, "put": put,
                                        "__module__": base.__module__, "__doc__": base.__doc__})


def _fingerprint(state) -> np.ndarray:
    """``uint8 (B, bytes)``: every field of every game, byte by byte (what the games were synced to)."""
    B = state.batch_size
    parts = [np.ascontiguousarray(getattr(state, f.name)).reshape(B, -1).view(np.uint8)
             for f in dataclasses.fields(state)]
    return np.concatenate(parts, axis=1) if parts else np.zeros((B, 0), np.uint8)


# --- the adapter --------------------------------------------------------------------------------------------

class ReferenceCore:
    """B reference games (of the engine a house rule names, or the plain reference engine) behind the
    batched ``Core`` interface (``aerodeck.envs.common.core.Core``).

    ``ReferenceCore(glue, rules, check_actions=True)``: ``glue`` the game's per-game glue (its
    ``house.py``, ``GameSpec.house``), ``rules`` a rules object, with a house rule (:func:`with_house`)
    or without (then it plays the game's own reference engine). Layouts (``actions``, ``observation``,
    ``n_actions`` …) are the game's batched core's for the same options (``fast``, which also
    answers what reads the arrays only, e.g. Flight Tycoon's ``standings``). A game's seed, its
    decisions and its random stream are the reference engine's, so game i on seed i draws exactly as
    the batched core does when the house rule changes nothing.
    """

    def __init__(self, glue, rules, check_actions: bool = True) -> None:
        self.glue, self.rules, self.check_actions = glue, rules, check_actions
        self.house = house_of(rules)
        self.fast = glue.core(plain_rules(rules))
        self.engine = load_engine(self.house, glue.reference) if self.house else glue.reference
        self.rule_name = self.house.name if self.house else f"{glue.reference.__qualname__} (no house rule)"
        self.max_decisions = int(getattr(self.engine, "max_decisions", MAX_DECISIONS))
        self.n_players, self.n_actions, self.obs_size = self.fast.n_players, self.fast.n_actions, self.fast.obs_size
        self.actions, self.observation = self.fast.actions, self.fast.observation

    def __getattr__(self, name: str):
        """What reads the arrays only (e.g. ``standings``, ``snapshot``, ``save``) is the batched core's."""
        if name.startswith("__") or name == "fast":
            raise AttributeError(name)
        return getattr(self.fast, name)

    # --- keeping games and arrays together --------------------------------------------------------------

    def _fail(self, game, what: str):
        raise HouseRuleError(self.rule_name, getattr(game, "_house_seed", None), getattr(game, "_house_decisions", 0),
                             what, getattr(game, "_house_lookahead", False))

    def _call(self, game, fn, *args, where: str | None = None):
        """``fn(game, *args)``, any exception of the house rule reported as a :class:`HouseRuleError`."""
        try:
            return fn(game, *args)
        except (HouseRuleError, IllegalActionError):
            raise
        except Exception as err:  # noqa: BLE001 - a house rule's error, reported in one line
            self._fail(game, f"{type(err).__name__} in {where or getattr(fn, '__name__', 'a hook')}: {err}")

    def _adopt(self, state):
        """``state`` as this adapter's state class (a plain core state is adopted in place)."""
        cls = _state_class(type(state).__mro__[1] if hasattr(state, "games") else type(state))
        if not hasattr(state, "games"):
            state.__class__ = cls
            B = state.batch_size
            state.games, state.owned = [None] * B, np.zeros(B, bool)
            state.synced, state.versions = np.zeros_like(_fingerprint(state)), np.full(B, -1, np.int64)
        return state

    def _games(self, state) -> list:
        """The games of ``state``, each rebuilt from the arrays where they were changed from outside."""
        state = self._adopt(state)
        fp = _fingerprint(state)
        versions = np.array([-2 if g is None else g._house_version for g in state.games], np.int64)
        stale = np.flatnonzero((fp != state.synced).any(axis=1) | (versions != state.versions))
        for i in stale:
            template = state.games[i]
            game = self.glue.read(self.fast, state, int(i), self.engine)
            if template is not None:  # keep the house rule's own attributes
                kept = copy.deepcopy(template)
                kept.__dict__.update(game.__dict__)
                game = kept
            game._house_lookahead = True
            game._house_mask = None
            self._own(state, int(i), game)
        state.synced[stale] = fp[stale]
        return state.games

    def _own(self, state, i: int, game) -> None:
        game._house_version = next(_VERSIONS)
        state.games[i], state.owned[i], state.versions[i] = game, True, game._house_version

    def _mutable(self, state, i: int):
        """Game ``i`` of ``state``, copied first if another state shares it."""
        game = state.games[i]
        if not state.owned[i]:
            game = copy.deepcopy(game)
            self._own(state, i, game)
        return game

    def _write(self, state, rows: np.ndarray) -> None:
        """The arrays of ``rows`` written from their games."""
        if rows.size:
            self.glue.write(self.fast, state, rows, [state.games[i] for i in rows])
            state.synced[rows] = _fingerprint(BatchedState.take(state, rows))
            for i in rows:
                state.games[i]._house_version = next(_VERSIONS)
                state.versions[i] = state.games[i]._house_version

    # --- the Core protocol ----------------------------------------------------------------------------------

    def init(self, seeds):
        """New games, one per seed: the engine's own deal (set-up hooks included)."""
        seeds = check_seeds(seeds)
        state = self._adopt(self.fast.init(seeds))
        plain = self.fast.rules
        for i, seed in enumerate(seeds.tolist()):
            marker = type("Dealing", (), {"_house_seed": seed, "_house_decisions": 0})()
            game = self._call(marker, lambda _, s: self.engine(plain, s), seed, where="the set-up (the deal)")
            game._house_seed, game._house_decisions, game._house_lookahead = seed, 0, False
            game._house_mask = None
            self._own(state, i, game)
        self._write(state, np.arange(seeds.size))
        return state

    def reset(self, state, games, seeds) -> None:
        """New games from ``seeds`` in place of the games ``games`` of ``state``."""
        state = self._adopt(state)
        state.put(np.asarray(games), self.init(seeds))

    def reseed(self, state, seeds) -> None:
        """Fresh random streams (key from ``seeds``, counter 0); the table is kept (look-ahead copies)."""
        games = self._games(state)
        self.fast.reseed(state, seeds)
        for i in range(len(games)):
            game = self._mutable(state, i)
            game.key, game.counter = int(state.key[i]), int(state.counter[i])
            game._house_lookahead = True
        state.synced[:] = _fingerprint(state)

    def to_act(self, state) -> np.ndarray:
        """``int64 (B,)``: the seat to decide, −1 in a finished game."""
        return np.array([self.glue.to_act(g) for g in self._games(state)], np.int64)

    def _mask(self, game) -> np.ndarray:
        if game._house_mask is None:
            mask = np.asarray(self._call(game, self.glue.legal_mask), bool)
            if mask.shape != (self.n_actions,):
                self._fail(game, f"legal_mask gave shape {mask.shape}, expected ({self.n_actions},)")
            if not mask.any() and not game.done:
                self._fail(game, "no legal action (an empty legal mask) in a game that is not over")
            game._house_mask = mask
        return game._house_mask

    def _rows(self, state, games):
        return np.arange(state.batch_size) if games is None else np.asarray(games, np.int64).reshape(-1)

    def legal_mask(self, state, games=None, out=None) -> np.ndarray:
        """``bool (B, A)`` (of ``games``, default all): the engine's legal actions now."""
        all_games = self._games(state)
        rows = self._rows(state, games)
        mask = np.zeros((rows.size, self.n_actions), bool) if out is None else out
        for j, i in enumerate(rows):
            mask[j] = self._mask(all_games[i])
        return mask

    def observe(self, state, seat=None, games=None, out=None) -> np.ndarray:
        """``float32 (B, O)``: what ``seat`` (default: the seat to act) sees, by the engine."""
        all_games = self._games(state)
        rows = self._rows(state, games)
        obs = np.zeros((rows.size, self.obs_size), np.float32) if out is None else out
        seats = None if seat is None else np.broadcast_to(np.asarray(seat, np.int64), rows.shape)
        for j, i in enumerate(rows):
            game = all_games[i]
            s = max(self.glue.to_act(game), 0) if seats is None else int(seats[j])
            obs[j] = self._call(game, self.glue.observe, s)
        return obs

    def step(self, state, actions, games=None) -> np.ndarray:
        """Play one decision per unfinished game (in place) with the engine; ``float32 (B, n)`` rewards."""
        self._games(state)
        B = state.batch_size
        done = np.array([g.done for g in state.games], bool)
        a = step_actions(actions, B, self.n_actions, ~done, check_range=self.check_actions)
        rewards = np.zeros((B, self.n_players), np.float32)
        live = np.flatnonzero(~done)
        for i in live:
            game = state.games[i]
            action = int(a[i])
            if not (0 <= action < self.n_actions) or not self._mask(game)[action]:
                if self.check_actions:
                    raise IllegalActionError(f"{self.rule_name} game {i}: action {action} is illegal: "
                                             f"{self.explain_illegal(state, int(i), action)}")
                self._fail(game, f"action {action} is not legal under the house rule")
            game = self._mutable(state, int(i))
            dealt = list(getattr(game, "notes", [])) if game._house_decisions == 0 else []  # the set-up's notes
            rewards[i] = self._call(game, self.glue.step, action)
            if dealt:  # join the first decision's log
                game.notes = dealt + list(game.notes)
            game._house_mask = None
            game._house_decisions += 1
            if not game.done and game._house_decisions >= self.max_decisions:
                self._fail(game, f"the game has not ended after {self.max_decisions} decisions (a game that "
                                 "never ends? the engine's max_decisions sets the cap)")
        self._write(state, live)
        return rewards

    def explain_illegal(self, state, game: int, action: int) -> str | None:
        """Why ``action`` is illegal in game ``game`` now, or ``None``."""
        g = self._games(state)[game]
        if 0 <= action < self.n_actions and self._mask(g)[action]:
            return None
        reason = g.explain_illegal(action) if hasattr(g, "explain_illegal") else None
        return reason or "the house rule does not allow it now"

    def action_kinds(self, state) -> np.ndarray:
        """``int8 (B, A)``: the kind of each legal action as the batched core reads it from the table
        (an action the batched core would not allow but the house rule does: the first kind)."""
        kinds = self.fast.action_kinds(state)
        mask = self.legal_mask(state)
        kinds = np.where(mask, kinds, np.int8(-1)).astype(np.int8)
        kinds[mask & (kinds < 0)] = 0
        return kinds

    def notes(self, state, game: int) -> list[str]:
        """What the engine's hooks noted in game ``game`` during its last decision (``note(text)``; the
        first decision's include the set-up's)."""
        return list(getattr(self._games(state)[game], "notes", []))


def house_notes(core, state, game: int = 0) -> list[str]:
    """What a house rule's hooks noted (``note(text)``) in game ``game`` of ``state`` during its last
    decision, for the game's log (``envs/<game>/text.py``); none for a batched core."""
    return core.notes(state, game) if isinstance(core, ReferenceCore) else []

"""Rule-general policies: the rule variants one model covers, the rule options as its inputs, and one
padded layout for every variant in that space.

A :class:`VariantSpace` names the options a model varies and the values each may take — integers an
inclusive range ``[lo, hi]``, on/off options and choices a list of values, integer tuples a range for
each item — every other option staying at the space's ``base`` rules. The model reads, after the
observation, the legal mask and the prior, :meth:`VariantSpace.features`: each varied option scaled
to [0, 1] (choices one-hot), so the rules it plays under are an input.

Options that change the layout (Airport Scramble's ``face_up``) are laid out for the largest layout the
space allows (:attr:`VariantSpace.family`, every varied integer at its highest): an :class:`Embedding`
puts a variant's observation blocks at the start of the family's blocks of the same name (the blocks
are laid out item by item, so a smaller block is the start of a larger one) and its actions at the
family's actions with the same description; the family's other entries stay 0 and its other actions
illegal.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Mapping, Sequence

import numpy as np

#: Draws of one variant before its cross-option constraints are declared unsatisfiable.
MAX_DRAWS = 1000


def _allowed(rules_class, name: str):
    fields = {f.name: f for f in dataclasses.fields(rules_class)}
    if name not in fields:
        raise ValueError(f"variant space: {rules_class.game} has no rule option {name!r}; "
                         f"its options: {', '.join(fields)}")
    return fields[name].metadata["allowed"]


@dataclasses.dataclass(frozen=True)
class Varied:
    """One varied option: ``kind`` (``int``, ``bool``, ``choice``, ``ints``), its range ``lo..hi``
    (integers, tuple items) or its ``values`` (on/off, choices), and ``length`` (tuples)."""

    name: str
    kind: str
    lo: int = 0
    hi: int = 0
    values: tuple = ()
    length: int = 1

    @property
    def width(self) -> int:
        """How many input features the option takes."""
        return len(self.values) if self.kind == "choice" else self.length if self.kind == "ints" else 1

    def spec(self) -> list:
        """The option's range as written in a config or sidecar."""
        return [self.lo, self.hi] if self.kind in ("int", "ints") else list(self.values)


def _varied(rules_class, name: str, spec) -> Varied:
    allowed = _allowed(rules_class, name)
    where = f"variant space: option {name!r}"
    if not isinstance(spec, Sequence) or isinstance(spec, str) or len(spec) == 0:
        raise ValueError(f"{where}: give a list ([lo, hi] for integers, the values for on/off and choices), "
                         f"got {spec!r}")
    if allowed.kind in ("int", "ints"):
        if len(spec) != 2:
            raise ValueError(f"{where}: give [lo, hi] (inclusive), got {spec!r}")
        lo, hi = (allowed.parse(name, v) if allowed.kind == "int" else _item(allowed, name, v) for v in spec)
        if not lo < hi:
            raise ValueError(f"{where}: [lo, hi] needs lo < hi, got {spec!r}")
        length = allowed.length if allowed.kind == "ints" else 1
        if allowed.kind == "ints" and length is None:
            raise ValueError(f"{where}: only tuples of a fixed length can be varied")
        return Varied(name, allowed.kind, lo=lo, hi=hi, length=length)
    values = tuple(dict.fromkeys(allowed.parse(name, v) for v in spec))
    if len(values) < 2:
        raise ValueError(f"{where}: give at least two different values, got {spec!r}")
    return Varied(name, allowed.kind, values=values)


def _item(allowed, name: str, value) -> int:
    """One item of an integer-tuple option, checked against the option's range."""
    if isinstance(value, bool) or not isinstance(value, int) or not allowed._in_range(value):
        raise ValueError(f"variant space: option {name!r}: item {value!r} is not allowed; allowed: "
                         f"integers in {allowed.lo}..{allowed.hi}")
    return value


class VariantSpace:
    """The rule variants a general model covers (see the module docstring).

    ``game``: the ``GameSpec``; ``ranges``: option name → its range (``[lo, hi]``) or values;
    ``base``: the rules of every option not varied (default: the game's defaults). ``ValueError``
    naming the option for an unknown option, a value it does not allow or an empty range."""

    def __init__(self, game, ranges: Mapping[str, Sequence], base=None) -> None:
        if not ranges:
            raise ValueError("variant space: name at least one option to vary")
        self.game = game
        self.rules_class = game.rules_class()
        self.base = base if base is not None else self.rules_class()
        self.varied = tuple(_varied(self.rules_class, name, ranges[name]) for name in sorted(ranges))
        for v in self.varied:
            self._check_layout(v)
        self.family = self._family()

    def _check_layout(self, v: Varied) -> None:
        """``ValueError`` if varying ``v`` changes the layout and the game does not pad that option."""
        if v.name in self.game.padded_options:
            return
        ends = [v.lo, v.hi] if v.kind == "int" else [(v.lo,) * v.length, (v.hi,) * v.length] if v.kind == "ints" \
            else list(v.values)
        layouts = set()
        for value in ends:
            try:
                rules = self.rules_class.from_options({**self.base.to_dict(), v.name: value})
            except ValueError:
                continue  # this end breaks another option's constraint here: nothing to compare
            core = self.game.make_core(rules)
            layouts.add((core.obs_size, core.n_actions))
        if len(layouts) > 1:
            raise ValueError(f"variant space: option {v.name!r} changes the layout ({' vs '.join(map(str, sorted(layouts)))} "
                             f"observation entries and actions) and {self.game.id} lays out only "
                             f"{', '.join(self.game.padded_options) or 'no option'} for every value in one model "
                             "(GameSpec.padded_options); keep it out of the ranges")

    def _family(self):
        """The rules with the largest layout: each varied integer (and tuple item) at its highest."""
        high = {v.name: (v.hi if v.kind == "int" else (v.hi,) * v.length) for v in self.varied if v.kind in ("int", "ints")}
        try:
            return self.rules_class.from_options({**self.base.to_dict(), **high})
        except ValueError as err:
            raise ValueError(f"variant space: the largest layout (every varied integer at its highest) breaks "
                             f"the rules: {err}") from None

    @property
    def size(self) -> int:
        """The number of rule features (:meth:`features`)."""
        return sum(v.width for v in self.varied)

    def to_dict(self) -> dict:
        """``{"ranges": {name: range}, "base": base options}`` (for configs and sidecars)."""
        return {"ranges": {v.name: v.spec() for v in self.varied}, "base": self.base.to_dict()}

    @classmethod
    def from_dict(cls, game, data: Mapping) -> VariantSpace:
        """The space :meth:`to_dict` wrote."""
        return cls(game, data["ranges"], game.rules_class().from_options(data.get("base", {})))

    def describe(self) -> str:
        """``action_points 1..4, allow_wait on/off, ...``."""
        def one(v: Varied) -> str:
            if v.kind == "int":
                return f"{v.name} {v.lo}..{v.hi}"
            if v.kind == "ints":
                return f"{v.name} each {v.lo}..{v.hi}"
            return f"{v.name} " + "/".join(("on" if x else "off") if isinstance(x, bool) else str(x) for x in v.values)
        return ", ".join(one(v) for v in self.varied)

    def draw(self, seed: int, index: int):
        """Variant ``index`` of the space under ``seed``: each varied option uniform over its range,
        drawn again (from the same key) until the rules' cross-option constraints hold. A pure
        function of ``(seed, index)``."""
        rng = np.random.default_rng([int(seed) % 2**63, int(index), 0x7A41])
        for _ in range(MAX_DRAWS):
            options = dict(self.base.to_dict())
            for v in self.varied:
                if v.kind == "int":
                    options[v.name] = int(rng.integers(v.lo, v.hi + 1))
                elif v.kind == "ints":
                    options[v.name] = tuple(int(x) for x in rng.integers(v.lo, v.hi + 1, v.length))
                else:
                    options[v.name] = v.values[int(rng.integers(len(v.values)))]
            try:
                return self.rules_class.from_options(options)
            except ValueError:
                continue
        raise ValueError(f"variant space: no valid rules in {MAX_DRAWS} draws; the ranges ({self.describe()}) "
                         "break the rules' constraints")

    def outside(self, rules) -> list[str]:
        """Why ``rules`` lie outside the space (each option out of its range, or differing from the
        base where not varied); empty when inside."""
        varied = {v.name: v for v in self.varied}
        reasons = []
        for name, value in rules.to_dict().items():
            v = varied.get(name)
            if v is None:
                if value != self.base.to_dict()[name]:
                    reasons.append(f"{name}={_text(value)} (not varied: trained at {_text(self.base.to_dict()[name])})")
            elif v.kind == "int" and not v.lo <= value <= v.hi or v.kind == "ints" and not all(v.lo <= x <= v.hi for x in value) \
                    or v.kind in ("bool", "choice") and value not in v.values:
                reasons.append(f"{name}={_text(value)} (trained on {_text(v.spec())})")
        return reasons

    def features(self, rules) -> np.ndarray:
        """``float32 (size,)``: each varied option of ``rules`` in [0, 1] — integers and tuple items as
        ``(value − lo) / (hi − lo)`` (outside the range: beyond [0, 1]), on/off and choices one-hot
        over the listed values (on/off as one 0/1 value)."""
        out = []
        for v in self.varied:
            value = getattr(rules, v.name)
            if v.kind == "int":
                out.append((value - v.lo) / (v.hi - v.lo))
            elif v.kind == "ints":
                out.extend((x - v.lo) / (v.hi - v.lo) for x in value)
            elif v.kind == "bool":
                out.append(float(value))
            else:
                out.extend(float(value == c) for c in v.values)
        return np.asarray(out, np.float32)

    def embedding(self, rules) -> Embedding:
        """The :class:`Embedding` of ``rules``' layout into the family's; ``ValueError`` when the rules'
        layout differs from the family's in more than the game's padded options (another grid, say)."""
        try:
            return _embedding(self.game.id, rules, self.family)
        except LayoutMismatch:
            varied = {v.name for v in self.varied}
            base = self.base.to_dict()
            hint = [f"{k}={_text(v)}" for k, v in rules.to_dict().items() if k not in varied and v != base[k]]
            raise LayoutMismatch(f"these rules lay the game out otherwise than the model's family ({self.family.label()}) "
                                 f"beyond {', '.join(self.game.padded_options) or 'the options it pads'}"
                                 + (f": see {', '.join(hint)}" if hint else "")) from None


def _text(value) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (list, tuple)):
        return ",".join(_text(x) for x in value)
    return str(value)


class LayoutMismatch(ValueError):
    """Rules whose layout a variant space's family cannot hold."""


class Embedding:
    """One variant's layout inside the family's (see the module docstring): ``observations``,
    ``masks`` and ``actions`` map between them. ``ValueError`` naming the block or action when the
    variant's layout does not fit the family's."""

    def __init__(self, core, family_core) -> None:
        fam = family_core.observation.blocks
        index = []
        for name, block in core.observation.blocks.items():
            if name not in fam or fam[name].size < block.size:
                raise ValueError(f"observation block {name!r} ({block.size} entries) does not fit the family layout "
                                 f"({fam[name].size if name in fam else 'no such block'})")
            index.append(fam[name].start + np.arange(block.size))
        #: int64 (O,): where each observation entry goes in the family's observation.
        self.obs_index = np.concatenate(index).astype(np.int64)
        self.obs_size = int(family_core.obs_size)
        where = {family_core.actions.describe(a): a for a in range(family_core.n_actions)}
        names = [core.actions.describe(a) for a in range(core.n_actions)]
        missing = [name for name in names if name not in where]
        if missing:
            raise ValueError(f"action {missing[0]!r} has no place in the family layout ({len(missing)} such actions)")
        #: int64 (A,): the family's index of each action.
        self.action_index = np.array([where[name] for name in names], np.int64)
        self.n_actions = int(family_core.n_actions)
        #: int64 (A_family,): the variant's index of each family action, -1 where it has none.
        self.variant_action = np.full(self.n_actions, -1, np.int64)
        self.variant_action[self.action_index] = np.arange(core.n_actions)
        self.identity = core.obs_size == self.obs_size and np.array_equal(self.action_index, np.arange(self.n_actions))

    def observations(self, obs: np.ndarray) -> np.ndarray:
        """``float32 (B, O_family)`` from the variant's ``(B, O)``."""
        if self.identity:
            return np.asarray(obs, np.float32)
        out = np.zeros((len(obs), self.obs_size), np.float32)
        out[:, self.obs_index] = obs
        return out

    def actionwise(self, values: np.ndarray, fill=0) -> np.ndarray:
        """``(B, A_family)`` from per-action ``values`` ``(B, A)`` (masks, prior features), ``fill``
        elsewhere."""
        if self.identity:
            return values
        out = np.full((len(values), self.n_actions), fill, values.dtype)
        out[:, self.action_index] = values
        return out

    def actions(self, family_actions: np.ndarray) -> np.ndarray:
        """``int64 (B,)``: the variant's indices of family actions (``ValueError`` for one it lacks)."""
        actions = self.variant_action[np.asarray(family_actions, np.int64)]
        if (actions < 0).any():
            raise ValueError(f"family action {int(np.asarray(family_actions)[actions < 0][0])} is not an action "
                             "of these rules")
        return actions


@functools.lru_cache(maxsize=256)
def _embedding_cached(game_id: str, rules_json: str, family_json: str) -> Embedding:
    from aerodeck import envs

    from aerodeck.agents.layout import layout_of

    game = envs.spec(game_id)
    R = game.rules_class()
    rules, family = R.from_options(json.loads(rules_json)), R.from_options(json.loads(family_json))
    padded = {name: getattr(family, name) for name in game.padded_options}
    try:  # the rules with the padded options at the family's values: the family's layout, or not embeddable
        same = layout_of(game.make_core(rules.replace(**padded))) == layout_of(game.make_core(family))
    except ValueError:
        same = False
    if not same:
        raise LayoutMismatch(f"these rules lay the game out otherwise than the model's family ({family.label()})")
    return Embedding(game.make_core(rules), game.make_core(family))


def _embedding(game_id: str, rules, family) -> Embedding:
    dump = lambda r: json.dumps(r.to_dict(), sort_keys=True, default=list)  # noqa: E731
    return _embedding_cached(game_id, dump(rules), dump(family))

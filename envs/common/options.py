"""The machinery behind each game's rules object (``envs/<game>/rules.py``).

A game declares its rules as a frozen dataclass deriving from :class:`RuleOptions`, each field made
with :func:`option`, which records the allowed values. Construction validates every field (an unknown
name or a bad value raises ``ValueError`` naming the option and what is allowed); the object is
hashable and printable and can be read from ``key=value`` strings or a TOML table, so the same object
flows from CLI flags or a variant file into the engines, the environments and every report.
"""

from __future__ import annotations

import dataclasses
import difflib
import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar, Self

_TRUE = {"on", "true", "yes", "1"}
_FALSE = {"off", "false", "no", "0"}


@dataclasses.dataclass(frozen=True)
class Allowed:
    """What values an option takes: a kind (``int``, ``bool``, ``choice``, ``ints``) and its bounds."""

    kind: str
    lo: int | None = None
    hi: int | None = None
    choices: tuple[str, ...] = ()
    length: int | None = None  # for kind "ints": exact tuple length (None: any length >= 1)

    def describe(self) -> str:
        """Human-readable allowed values, e.g. ``an integer in 5..15``."""
        if self.kind == "bool":
            return "on/off (true/false)"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        span = f"{self.lo}..{self.hi}" if self.hi is not None else f">= {self.lo}"
        if self.kind == "int":
            return f"an integer in {span}"
        count = f"{self.length} " if self.length else ""
        return f"{count}comma-separated integers, each in {span}"

    def parse(self, name: str, value: Any) -> Any:
        """Convert a Python value or a string to the option's type; raise ``ValueError`` if impossible."""
        bad = ValueError(f"rule option {name!r}: {value!r} is not allowed; allowed: {self.describe()}")
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
                return value.strip().lower() in _TRUE
            raise bad
        if self.kind == "choice":
            if isinstance(value, str) and value.strip() in self.choices:
                return value.strip()
            raise bad
        if self.kind == "int":
            number = _as_int(value)
            if number is None or not self._in_range(number):
                raise bad
            return number
        if self.kind == "ints":
            items = value.split(",") if isinstance(value, str) else value
            try:
                numbers = tuple(_as_int(v) for v in items)
            except TypeError:
                raise bad from None
            if (
                not numbers
                or any(n is None or not self._in_range(n) for n in numbers)
                or (self.length is not None and len(numbers) != self.length)
            ):
                raise bad
            return numbers
        raise AssertionError(self.kind)

    def _in_range(self, n: int) -> bool:
        return (self.lo is None or n >= self.lo) and (self.hi is None or n <= self.hi)


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    if hasattr(value, "__index__"):  # numpy integers
        return int(value)
    return None


def option(default: Any, allowed: Allowed, doc: str = "") -> Any:
    """A rules-object field: its default, its :class:`Allowed` values and a one-line description."""
    return dataclasses.field(default=default, metadata={"allowed": allowed, "doc": doc})


def integer(lo: int, hi: int | None = None) -> Allowed:
    """Allowed values: an integer in ``lo..hi`` (``hi=None``: no upper bound)."""
    return Allowed("int", lo=lo, hi=hi)


def flag() -> Allowed:
    """Allowed values: on/off."""
    return Allowed("bool")


def choice(*choices: str) -> Allowed:
    """Allowed values: one of the given names."""
    return Allowed("choice", choices=choices)


def integers(lo: int, hi: int | None = None, length: int | None = None) -> Allowed:
    """Allowed values: a tuple of integers in ``lo..hi`` (of exactly ``length`` items if given)."""
    return Allowed("ints", lo=lo, hi=hi, length=length)


@dataclasses.dataclass(frozen=True)
class RuleOptions:
    """Base of the games' rules objects. Subclasses are ``@dataclass(frozen=True)`` with :func:`option` fields."""

    game: ClassVar[str] = ""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            allowed: Allowed = f.metadata["allowed"]
            object.__setattr__(self, f.name, allowed.parse(f.name, getattr(self, f.name)))
        self.check()

    def check(self) -> None:
        """Cross-option constraints; subclasses raise ``ValueError`` naming the options involved."""

    # --- construction -------------------------------------------------------------------------

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """The names of every rule option, in declaration order."""
        return tuple(f.name for f in dataclasses.fields(cls))

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | None = None, /, **kwargs: Any) -> Self:
        """Build from a mapping and/or keyword options; an unknown name raises ``ValueError``."""
        merged = {**(options or {}), **kwargs}
        cls._refuse_unknown(merged)
        return cls(**merged)

    @classmethod
    def from_strings(cls, items: Iterable[str]) -> Self:
        """Build from ``key=value`` strings (e.g. CLI ``--rule`` flags)."""
        merged: dict[str, str] = {}
        for item in items:
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"rule option {item!r} is not of the form key=value")
            merged[key.strip()] = value.strip()
        return cls.from_options(merged)

    @classmethod
    def from_toml(cls, source: str | Path | Mapping[str, Any], table: str | None = None) -> Self:
        """Build from a TOML file path or an already parsed table.

        ``table`` names a sub-table (dotted, e.g. ``"variants.fast"``) holding the options. Without it
        the options are the file's top-level keys, or its ``[rules]`` table; a file with both
        top-level options and a ``[rules]`` table is refused (one of them would be silently dropped),
        and so is a file of named tables only (``table`` must say which).
        """
        if isinstance(source, Mapping):
            data: Mapping[str, Any] = source
            where = "TOML table"
        else:
            path = Path(source)
            where = str(path)
            try:
                data = tomllib.loads(path.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise ValueError(f"rules file {where!r} does not exist") from None
            except IsADirectoryError:
                raise ValueError(f"rules file {where!r} is a folder; give a TOML file") from None
            except OSError as err:
                raise ValueError(f"rules file {where!r} cannot be read: {err.strerror or err}") from None
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
                raise ValueError(f"rules file {where!r} is not valid TOML: {err}") from None
        if table is not None:
            for part in table.split("."):
                if not isinstance(data, Mapping) or part not in data:
                    tables = [k for k, v in data.items() if isinstance(v, Mapping)] if isinstance(data, Mapping) else []
                    raise ValueError(f"{where}: no table [{table}]" + (f"; its tables: {', '.join(tables)}" if tables else ""))
                data = data[part]
        elif isinstance(data.get("rules"), Mapping):
            loose = [k for k, v in data.items() if not isinstance(v, Mapping)]
            if loose:
                raise ValueError(f"{where}: has both top-level rule options ({', '.join(loose)}) and a [rules] "
                                 "table; put every option in one of them")
            data = data["rules"]
        if not isinstance(data, Mapping):
            raise ValueError(f"{where}: expected a table of rule options, got {type(data).__name__}")
        nested = [k for k, v in data.items() if isinstance(v, Mapping)]
        if nested:
            raise ValueError(f"{where}: holds the table(s) {', '.join(nested)}, not rule options; "
                             f"name the table that holds the options (--table NAME)")
        try:
            return cls.from_options(dict(data))
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None

    @classmethod
    def _refuse_unknown(cls, names: Iterable[str]) -> None:
        known = cls.option_names()
        for name in names:
            if name not in known:
                hint = difflib.get_close_matches(name, known, n=1)
                did_you_mean = f" (did you mean {hint[0]!r}?)" if hint else ""
                raise ValueError(
                    f"unknown rule option {name!r} for {cls.game or cls.__name__}{did_you_mean}; "
                    f"allowed options: {', '.join(known)}"
                )

    # --- use ----------------------------------------------------------------------------------

    def replace(self, **changes: Any) -> Self:
        """A copy with some options changed (validated like construction)."""
        self._refuse_unknown(changes)
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Every option and its value (tuples as lists), suitable for JSON and TOML."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}

    def changes(self) -> dict[str, Any]:
        """The options that differ from the defaults."""
        default = type(self)()
        return {k: v for k, v in self.to_dict().items() if v != default.to_dict()[k]}

    def to_strings(self) -> list[str]:
        """The changed options as ``key=value`` strings (lists comma-joined): ``from_strings`` reads them back."""
        return [f"{k}={','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in self.changes().items()]

    def label(self) -> str:
        """A short name for reports: ``default`` or the changed options as ``key=value`` joined by spaces."""
        return " ".join(self.to_strings()) or "default"

    @classmethod
    def describe_options(cls) -> str:
        """A table of every option: name, default, allowed values and meaning (for ``--help`` and docs)."""
        lines = []
        for f in dataclasses.fields(cls):
            default = f.default
            shown = ",".join(map(str, default)) if isinstance(default, tuple) else default
            if isinstance(default, bool):
                shown = "on" if default else "off"
            lines.append(f"  {f.name:<18} default {shown!s:<14} {f.metadata['allowed'].describe()}. {f.metadata['doc']}")
        return "\n".join(lines)

"""Rule variants of a game for the judge tests, read from its spec (``GameSpec.variants``), never by name."""

from aerodeck import envs


def text(value) -> str:
    """An option value as ``--variant`` / ``--grid`` write it."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, (tuple, list)):
        return ",".join(map(str, value))
    return str(value)


def changes(spec: envs.GameSpec) -> dict:
    """The options of the first of the spec's variants that changes more than the player count, less that."""
    return next(o for v in spec.variants if (o := {k: x for k, x in v.items() if k != spec.players_option}))


def variant(spec: envs.GameSpec, name: str = "v") -> str:
    """``NAME:key=value,...`` of :func:`changes`."""
    return f"{name}:" + ",".join(f"{k}={text(v)}" for k, v in changes(spec).items())


def int_option(spec: envs.GameSpec) -> tuple[str, int]:
    """An integer option of a spec's variants and the value it takes there, one the defaults accept alone."""
    for v in spec.variants:
        for key, value in v.items():
            if key == spec.players_option or isinstance(value, bool) or not isinstance(value, int):
                continue
            try:
                spec.rules_class().from_strings([f"{key}={value}"])
            except ValueError:
                continue
            return key, value
    raise AssertionError(f"{spec.id}: no integer option in its variants")


def bool_option(spec: envs.GameSpec) -> str:
    """An on/off option of the spec's variants."""
    return next(k for v in spec.variants for k, x in v.items() if isinstance(x, bool))


def scalar_means(spec: envs.GameSpec) -> list[str]:
    """The catalogue's metrics with one mean value per game, in catalogue order."""
    return [m.name for m in spec.catalogue().metrics if m.kind == "mean" and not m.columns]


def breakdown(spec: envs.GameSpec) -> str:
    """A metric of the catalogue with columns (a breakdown)."""
    return next(m.name for m in spec.catalogue().metrics if m.columns)

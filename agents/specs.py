"""The grammar of an agent spec, in one place: ``KIND`` or ``KIND:knob=value,knob=value``.

``"search:rollouts=8,candidates=2"`` names the agent kind ``search`` with two knobs; a bare word is an
on/off knob switched on (``"ppo:general"``). Every tool reads specs with :func:`parse_spec` (the knobs'
values stay text: :func:`aerodeck.agents.registry.make_agent` types them by the agent's declared
knobs), writes them with :func:`format_spec`, and reads a comma-separated list of specs (``--lineup``,
``--opponents``) with :func:`split_specs`. This module imports nothing of the project, so that every
folder can read a spec.
"""

from __future__ import annotations

#: Between the kind and its knobs.
KIND_END = ":"
#: Between two knobs.
KNOB_SEPARATOR = ","


def parse_spec(text: str) -> tuple[str, dict[str, str]]:
    """``"search:rollouts=8,candidates=2"`` → ``("search", {"rollouts": "8", "candidates": "2"})``; a bare
    word switches an on/off knob on: ``"ppo:general"`` → ``("ppo", {"general": "on"})``. ``ValueError``
    naming the spec for a knob that is not ``key=value`` or is given twice."""
    kind, _, rest = str(text).strip().partition(KIND_END)
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(KNOB_SEPARATOR))):
        key, sep, value = item.partition("=")
        if not sep and key.strip().isidentifier():
            sep, value = "=", "on"
        if not sep or not key.strip():
            raise ValueError(f"agent spec {text!r}: parameter {item!r} is not of the form key=value")
        if key.strip() in params:
            raise ValueError(f"agent spec {text!r}: {key.strip()!r} is given twice; give each knob once")
        params[key.strip()] = value.strip()
    return kind.strip(), params


def kind_of(text: str) -> str:
    """The agent kind a spec names: ``"search:rollouts=8"`` → ``"search"`` (the knobs are not read)."""
    return str(text).strip().partition(KIND_END)[0].strip()


def format_spec(kind: str, params: dict | None = None) -> str:
    """The spec of ``kind`` with knobs ``params`` (inverse of :func:`parse_spec` for ``key=value`` knobs):
    ``format_spec("search", {"rollouts": 8})`` → ``"search:rollouts=8"``; no knobs → ``"search"``."""
    knobs = KNOB_SEPARATOR.join(f"{key}={value}" for key, value in (params or {}).items())
    return f"{kind}{KIND_END}{knobs}" if knobs else kind


def split_specs(text: str) -> list[str]:
    """The specs of a comma-separated list whose specs may hold knobs: a piece ``key=value`` with no kind
    before it continues the spec before it, so ``"heuristic,search:rollouts=8,candidates=2,random"`` →
    ``["heuristic", "search:rollouts=8,candidates=2", "random"]``. ``ValueError`` for an empty piece."""
    specs: list[str] = []
    for piece in (p.strip() for p in str(text).split(KNOB_SEPARATOR)):
        if not piece:
            raise ValueError(f"empty agent in {text!r}")
        if specs and "=" in piece and KIND_END not in piece.partition("=")[0]:
            specs[-1] += KNOB_SEPARATOR + piece
        else:
            specs.append(piece)
    return specs

"""What a game's metric catalogue is: per-game measurements recorded by step observers.

Each game folder has ``metrics.py`` with one :class:`Catalogue` (named by ``GameSpec.metrics``): the
:class:`Metric` definitions and a recorder class. A recorder watches games being played — the play
loop calls ``on_start(core, state, games)`` when games are dealt (``state`` holding just those games:
the first batch, then each refill of finished rows) and ``on_step(core, state, actions, rewards, games)``
after each batched step (``state`` as it is after the step; ``games``: the indices, within the
recorder's games, of the state's rows, so rows may be dropped, reordered or dealt new games between
calls) — and ``result()`` gives, per metric, a numerator and a denominator per game.

Every metric is a ratio of sums over games, ``Σ numerator / Σ denominator``: a plain per-game mean
has denominator 1 (0 where the metric is undefined in that game), a rate such as completions per
attempt has the attempts as denominator. Breakdowns (by ticket, by square, by seat) have one column
per label. The tools in ``train/`` turn these into estimates, intervals and differences.
"""

from __future__ import annotations

import dataclasses
import importlib


#: How a metric's values are summarised: ``mean`` (a per-game value or a ratio of per-game sums, t
#: intervals by the delta method), ``share`` (a 0/1 or fractional share per game: Wilson intervals) or
#: ``rate`` (a ratio of counts in [0, 1], e.g. completions per attempt: bootstrap intervals over games).
KINDS = ("mean", "share", "rate")
#: How the report draws a breakdown besides its table (a compared plain metric is always drawn as
#: bars per variant with error bars): a distribution, a heat map of variants × columns, stacked bars
#: of rows × columns, a curve over the columns, or (a plain per-game count such as the score or the game's
#: length) a histogram of its per-game values.
PLOTS = ("distribution", "heatmap", "stacked", "curve", "histogram")


@dataclasses.dataclass(frozen=True)
class Metric:
    """One measurement of a game, documented: what it is, its unit and the rules it reads."""

    #: The name on the command line (``--metric``, ``--target``) and in files.
    name: str
    #: What is counted, in the game's words.
    definition: str
    #: The unit of a value (``tickets``, ``turns``, ``share of games``).
    unit: str
    #: The rule numbers it reads (``"AS-13, AS-16"``).
    rules: str
    #: ``mean`` or ``share`` (see ``KINDS``).
    kind: str = "mean"
    #: Column labels of a breakdown (empty: one value per game).
    columns: tuple[str, ...] = ()
    #: Row labels of a two-way breakdown (rows × columns, row-major per game).
    rows: tuple[str, ...] = ()
    #: Compared by default (the verdict table of ``aerodeck compare``).
    headline: bool = False
    #: How the report draws a breakdown (see ``PLOTS``); ``None``: its table only.
    plot: str | None = None
    #: A share of the win by seat position: each column's fair value is 1/n (n players), and the report
    #: tests it against that as well as against the base.
    seat_share: bool = False
    #: Columns equal by definition to another metric, as ``(column label, metric name)`` pairs: compared
    #: once only (under that metric when it is compared), so no change counts twice in the Holm family.
    same_as: tuple[tuple[str, str], ...] = ()
    #: The smallest change worth acting on, in the metric's unit: ``aerodeck compare`` says how many games
    #: detect it and marks a detected change smaller than it. ``None``: 0.02 (2 points) for a share or a
    #: rate, else none stated (``--practical NAME=SIZE`` states one for a run).
    practical: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"metric {self.name!r}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.plot is not None and self.plot not in PLOTS:
            raise ValueError(f"metric {self.name!r}: plot must be one of {PLOTS}, got {self.plot!r}")
        if self.rows and not self.columns:
            raise ValueError(f"metric {self.name!r}: rows need columns")
        if self.plot == "histogram" and self.columns:
            raise ValueError(f"metric {self.name!r}: a histogram is drawn for a plain metric (no columns)")
        unknown = [label for label, _ in self.same_as if label not in self.labels]
        if unknown:
            raise ValueError(f"metric {self.name!r}: same_as names columns it lacks: {unknown}; columns: {self.labels}")

    @property
    def width(self) -> int:
        """Values per game: ``len(rows) · len(columns)``, or the columns, or 1."""
        return max(1, len(self.rows)) * max(1, len(self.columns))

    @property
    def labels(self) -> tuple[str, ...]:
        """One label per value of a game (``""`` for a plain metric; ``"row / column"`` for two-way)."""
        if self.rows:
            return tuple(f"{r} / {c}" for r in self.rows for c in self.columns)
        return self.columns or ("",)


@dataclasses.dataclass(frozen=True)
class Catalogue:
    """A game's metrics, the recorder that measures them, and what rule evaluation needs to know."""

    #: The game's registry id.
    game: str
    #: The metrics, in report order.
    metrics: tuple[Metric, ...]
    #: ``"module:Class"`` of the recorder, built as ``Recorder(core, n_games, lineups=None, focus=0)``.
    recorder: str
    #: The agents ``aerodeck compare`` plays when none is named (a ladder that runs in reasonable time).
    default_agents: tuple[str, ...]
    #: Rule options whose change changes the deal (the cards dealt for the same seed): the report says so
    #: (the games still pair: game i is played on seed i under every variant).
    deal_options: tuple[str, ...]
    #: The metric the skill gap is read from: in a solo game its difference between the first and the
    #: second agent on the same deals; in a multi-player game its value in the table mixing them.
    skill_gap: str
    #: ``"module:function"``: ``function(rules)`` gives the metrics labelled for those rules (breakdowns
    #: such as "by ticket" depend on the edition); ``None``: ``metrics`` fit every rules object.
    metrics_for: str | None = None
    #: The agents whose verdicts ``aerodeck compare`` sets side by side when none are named (``--judges``):
    #: the heuristic and the cheapest agent that adapts to the rules by itself (a small search).
    judges: tuple[str, ...] = ()
    #: Rule options (``key=value``) of a variant worth showing: ``aerodeck run`` ends by comparing it with
    #: the rules in use (e.g. the variant ``aerodeck tune`` found, ``docs/designers.md``); empty: none.
    showcase: tuple[str, ...] = ()

    def for_rules(self, rules) -> tuple[Metric, ...]:
        """The metrics labelled for ``rules`` (the same names and kinds as ``metrics``)."""
        if self.metrics_for is None:
            return self.metrics
        module, _, name = self.metrics_for.partition(":")
        return getattr(importlib.import_module(module), name)(rules)

    def metric(self, name: str) -> Metric:
        """The metric called ``name``; ``ValueError`` naming the known ones otherwise."""
        for m in self.metrics:
            if m.name == name:
                return m
        raise ValueError(f"unknown metric {name!r} for {self.game}; metrics: {', '.join(self.names())}")

    def names(self) -> list[str]:
        """Every metric name, in catalogue order."""
        return [m.name for m in self.metrics]

    def headline(self) -> list[Metric]:
        """The metrics compared by default."""
        return [m for m in self.metrics if m.headline]

    def make_recorder(self, core, n_games: int, lineups=None, focus: int = 0):
        """A fresh recorder for ``n_games`` games of ``core`` (``lineups``: agent index per seat,
        ``int (n_games, n)``, for multi-player games; ``focus``: the agent whose skill gap is measured)."""
        module, _, name = self.recorder.partition(":")
        return getattr(importlib.import_module(module), name)(core, n_games, lineups=lineups, focus=focus)

"""The registry of games: one :class:`GameSpec` per game, everything else dispatches through it.

``envs.games()`` lists the ids, ``envs.spec(id)`` gives a game's spec, ``envs.make_core(id, rules,
**options)`` builds its batched core. A third game is one folder under ``envs/`` that passes
``tests/test_contract.py`` plus one entry in ``GAMES`` below. Classes are named as ``"module:Name"``
and imported on first use, so ``import envs`` stays cheap.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any


def load(path: str) -> Any:
    """The object named by ``"package.module:Name"``."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """Everything the tools need to know about one game."""

    #: The game's id on the command line and in files (``"airport-scramble"``).
    id: str
    #: The game's name in prose (``"Airport Scramble"``).
    title: str
    #: ``"module:Class"`` of the rules object (a ``RuleOptions`` dataclass).
    rules: str
    #: ``"module:Class"`` of the batched core (``envs.common.core.Core``).
    core: str
    #: ``"module:callable"``: one game in its standard API (Gymnasium env / PettingZoo AEC env); takes
    #: ``rules=`` and rule options as keywords plus ``render_mode`` and ``on_illegal``.
    env: str
    #: ``"module:Class"``: stable-baselines3 ``VecEnv`` over the core (one learner per game).
    sb3: str
    #: ``"module:Class"``: the look-ahead view (``envs.common.core.View``), built as ``View(core, state, seats)``.
    view: str
    #: The player counts the game allows (``(1,)`` for a solo game).
    players: tuple[int, ...] = (1,)
    #: The rule option that sets the player count (``None`` for a solo game).
    players_option: str | None = None
    #: Gymnasium id of the single-game env, if registered with Gymnasium.
    gym_id: str | None = None
    #: The agents this game offers beyond ``random``: name -> ``"module:Class"``.
    agents: dict[str, str] = dataclasses.field(default_factory=dict)
    #: Games ``aerodeck bench`` plays by default.
    bench_games: int = 10_000
    #: The module of the game in words for ``aerodeck play`` / ``replay`` (typed moves, the menu, the
    #: screen; the functions are listed in ``train/watch/play.py``), or ``None``.
    text: str | None = None
    #: ``"module:function"``: the end-of-game figures the reports keep, or ``None``.
    #: ``summary(core, state) -> dict`` for a batch of B finished games: ``"score"`` ``(B, n)`` (each
    #: seat's final score, e.g. VP), ``"standing"`` ``(B, n)`` (higher is better; equal standings share
    #: the win) and ``"tallies"``: ``{group: {item: (B,) numbers}}`` that the bench adds up over the
    #: games (e.g. landings per square). ``None``: the score is the sum of a seat's rewards, the
    #: standing the score, no tallies.
    summary: str | None = None
    #: The benches of ``aerodeck run`` on small budgets, weakest agent first: ``(seats, games)`` where
    #: ``seats`` is a tuple of agent specs, one per seat. A solo game benches every entry's agent on
    #: the same deals in one bench, each on its own game count; a multi-player game benches each entry
    #: as its own seat-rotated tournament of that lineup (its length is the player count).
    ladder: tuple[tuple[tuple[str, ...], int], ...] = ()
    #: ``"module:NAME"``: the game's metric catalogue (``envs.common.metrics.Catalogue``) that
    #: ``aerodeck compare / sweep / tune`` measure, or ``None``.
    metrics: str | None = None

    @property
    def solo(self) -> bool:
        """One player: agents are compared by score on the same deals, not in tournaments."""
        return self.players == (1,)

    @property
    def default_players(self) -> int:
        """The player count of the default rules."""
        if self.players_option is None:
            return 1
        return getattr(self.rules_class(), self.players_option)

    def rules_class(self) -> type:
        """The rules class (a ``RuleOptions`` subclass)."""
        return load(self.rules)

    def make_rules(self, rules=None, **options):
        """The rules object: ``rules`` (or the defaults) with ``options`` applied."""
        cls = self.rules_class()
        if rules is not None and not isinstance(rules, cls):
            raise TypeError(f"{self.id} needs a {cls.__name__}, got {type(rules).__name__}")
        base = rules if rules is not None else cls()
        return base.replace(**options) if options else base

    def make_core(self, rules=None, **options):
        """The batched core for ``rules`` with ``options`` applied (core keywords such as
        ``check_actions`` go to the core)."""
        core_kwargs = {k: options.pop(k) for k in ("check_actions",) if k in options}
        return load(self.core)(self.make_rules(rules, **options), **core_kwargs)

    def make_env(self, rules=None, **kwargs):
        """One game in the game's standard single-game API (see ``env``)."""
        return load(self.env)(rules=rules, **kwargs)

    def make_sb3(self, num_envs: int, rules=None, **kwargs):
        """The stable-baselines3 ``VecEnv`` of ``num_envs`` games."""
        return load(self.sb3)(num_envs=num_envs, rules=rules, **kwargs)

    def make_view(self, core, state, seats=0):
        """The look-ahead view of the games of ``state`` for ``seats``."""
        return load(self.view)(core, state, seats)

    def summary_of(self):
        """The ``summary`` function (see the field), or ``None``."""
        return None if self.summary is None else load(self.summary)


GAMES: dict[str, GameSpec] = {
    spec.id: spec
    for spec in (
        GameSpec(
            id="airport-scramble",
            title="Airport Scramble",
            rules="envs.airport_scramble.rules:AirportScrambleRules",
            core="envs.airport_scramble.core:AirportScrambleCore",
            env="envs.airport_scramble.env:AirportScrambleEnv",
            sb3="envs.airport_scramble.sb3:AirportScrambleSB3VecEnv",
            text="envs.airport_scramble.text",
            view="envs.airport_scramble.view:AirportScrambleView",
            gym_id="aerodeck/AirportScramble-v0",
            agents={
                "heuristic": "agents.airport_scramble.heuristic:HeuristicAgent",
                "search": "agents.airport_scramble.search:SearchAgent",
            },
            bench_games=10_000,
            ladder=((("random",), 10_000), (("heuristic",), 2_000), (("ppo",), 2_000), (("search",), 100)),
            metrics="envs.airport_scramble.metrics:CATALOGUE",
        ),
        GameSpec(
            id="flight-tycoon",
            title="Flight Tycoon",
            rules="envs.flight_tycoon.rules:FlightTycoonRules",
            core="envs.flight_tycoon.core:FlightTycoonCore",
            env="envs.flight_tycoon.env:env",
            sb3="envs.flight_tycoon.sb3:FlightTycoonSB3VecEnv",
            text="envs.flight_tycoon.text",
            view="envs.flight_tycoon.view:FlightTycoonView",
            players=(3, 4, 5),
            players_option="n_players",
            agents={
                "heuristic": "agents.flight_tycoon.heuristic:HeuristicAgent",
                "search": "agents.flight_tycoon.search:SearchAgent",
            },
            bench_games=1_200,
            summary="envs.flight_tycoon.summary:summary",
            ladder=((("heuristic", "random", "random", "random"), 2_000),
                    (("ppo", "heuristic", "heuristic", "heuristic"), 1_000),
                    (("search", "heuristic", "heuristic", "heuristic"), 200)),
            metrics="envs.flight_tycoon.metrics:CATALOGUE",
        ),
    )
}


def games() -> list[str]:
    """The ids of the registered games."""
    return list(GAMES)


def spec(game: str) -> GameSpec:
    """The spec of ``game``; ``ValueError`` naming the known games otherwise."""
    try:
        return GAMES[game]
    except (KeyError, TypeError):
        raise ValueError(f"unknown game {game!r}; available: {', '.join(GAMES)}") from None


def make_core(game: str, rules=None, **options):
    """The batched core of ``game`` for ``rules`` (default rules if ``None``) with ``options`` applied."""
    return spec(game).make_core(rules, **options)


def view_of_env(env):
    """The look-ahead view of a single-game environment (Gymnasium or PettingZoo, wrappers allowed)
    for the seat to act now: ``agent.act_one(obs, mask, view_of_env(env))``."""
    base = getattr(env, "unwrapped", env)
    core, state = getattr(base, "core", None), getattr(base, "_state", None)
    if core is None or state is None:
        raise TypeError(f"{type(base).__name__} has no batched core and state to look ahead with")
    game = next((g for g in GAMES.values() if isinstance(core, load(g.core))), None)
    if game is None:
        raise TypeError(f"{type(core).__name__} is not the core of a registered game")
    return game.make_view(core, state, core.to_act(state))

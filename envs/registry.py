"""The registry of games: one :class:`GameSpec` per game, the whole declaration of the game.

``aerodeck.envs.games()`` lists the ids, ``aerodeck.envs.spec(id)`` gives a game's spec, ``aerodeck.envs.make_core(id, rules,
**options)`` builds its batched core. The two built-in games are declared in ``GAMES`` below; a game
from another package joins through the entry-point group ``aerodeck.games`` (an entry point named
after the game's id that loads its ``GameSpec``; see ``docs/adding-a-game.md``). Every tool reaches a
game only through its spec's methods; ``aerodeck.testing.check_game`` checks every field of a game
(``tests/test_contract.py`` runs it for every registered game). Entry points are ``"module:Name"``
strings (imported on first use, so ``import aerodeck`` stays cheap and imports no agent) or the
objects themselves.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.metadata
import importlib.util
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

#: The entry-point group a game package registers its ``GameSpec`` under.
ENTRY_POINT_GROUP = "aerodeck.games"
#: The agent every game offers, and the trained agent every game offers (``aerodeck.agents.registry``).
RANDOM, PPO = "random", "ppo"
_ID = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


def load(entry: Any) -> Any:
    """The object an entry point names: ``"package.module:Name"`` → that attribute, ``"package.module"``
    → the module; anything else (a class, a function, a module) is returned as it is."""
    if not isinstance(entry, str):
        return entry
    module, _, name = entry.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, name) if name else loaded


def resource(entry: str | Path) -> Path:
    """The file ``"package:relative/path"`` names (relative to the package's folder, found without
    importing the package's modules beyond its parents); a ``Path`` is returned as it is."""
    if isinstance(entry, Path):
        return entry
    package, sep, relative = entry.partition(":")
    if not sep or not relative:
        raise ValueError(f"resource {entry!r} must be 'package:relative/path'")
    found = importlib.util.find_spec(package)
    if found is None:
        raise ValueError(f"resource {entry!r}: no package {package!r}")
    folder = Path(found.submodule_search_locations[0]) if found.submodule_search_locations else Path(found.origin).parent
    return (folder / relative).resolve()


class PluginError(ValueError):
    """A game package's ``aerodeck.games`` entry point that cannot be loaded or is not a GameSpec."""


@dataclasses.dataclass(frozen=True)
class GameSpec:
    """Everything the tools know about one game (OpenSpiel's GameType/GameInfo as data).

    Entry points (``rules``, ``core``, ``env``, ``vector``, ``sb3``, ``view``, ``text``, ``summary``,
    ``metrics``, the ``agents``) are ``"module:Name"`` strings or the objects themselves; use the
    methods (``make_core``, ``make_env``, ``text_module`` …), never the fields, to reach them (the
    agents: ``aerodeck.agents.registry.make_agent``). ``aerodeck.testing.check_game`` checks every field.
    """

    #: The game's id on the command line and in files (``"airport-scramble"``): lowercase words joined by ``-``.
    id: str
    #: The game's name in prose (``"Airport Scramble"``).
    title: str
    #: The rules object's class (``aerodeck.envs.common.options.RuleOptions``).
    rules: Any
    #: The batched core's class (``aerodeck.envs.common.core.Core``), built as ``Core(rules, check_actions=True)``.
    core: Any
    #: One game in its standard API: a Gymnasium ``Env`` (``aerodeck.envs.common.protocols.SingleGameEnv``) or a
    #: PettingZoo ``AECEnv`` factory; takes ``rules=``, rule options as keywords, ``render_mode``, ``on_illegal``.
    env: Any
    #: The stable-baselines3 ``VecEnv`` class over the core (``aerodeck.envs.common.protocols.SB3VecEnv``).
    sb3: Any
    #: The look-ahead view class (``aerodeck.envs.common.core.View``), built as ``View(core, state, seats)``.
    view: Any
    #: The prefix of the numbered rules (``"AS"`` for AS-1 … AS-19).
    rule_prefix: str = ""
    #: The numbers of the rules (every one is defined on the docs page).
    rule_ids: tuple[int, ...] = ()
    #: The rules page: ``"package:relative/path.md"`` (see :func:`resource`) or a ``Path``.
    docs: str | Path | None = None
    #: The player counts the game allows (``(1,)`` for a solo game).
    player_counts: tuple[int, ...] = (1,)
    #: The rule option that sets the player count (``None`` for a solo game).
    players_option: str | None = None
    #: Gymnasium id of the single-game env (``envs`` registers it with ``env`` and ``vector``), or ``None``
    #: for a PettingZoo game.
    gym_id: str | None = None
    #: The Gymnasium ``VectorEnv`` class registered as the vector entry point of ``gym_id``, or ``None``.
    vector: Any = None
    #: The modes the single-game env renders (``"ansi"``: ``str``; ``"rgb_array"``: ``uint8 (H, W, 3)``).
    render_modes: tuple[str, ...] = ("ansi", "rgb_array")
    #: The agents this game offers beyond ``random`` and ``ppo``: name -> agent class, as a ``"module:Class"``
    #: string (``aerodeck.envs`` imports no agent; ``aerodeck.agents.registry`` alone turns a name into a class).
    agents: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    #: Policy networks the game offers beyond the MLP (``[policy] network``): name -> the sb3-contrib
    #: ``MaskableActorCriticPolicy`` class; its ``policy_kwargs(config, rules, inputs)`` (``config``: the
    #: ``[policy]`` section, ``inputs``: ``aerodeck.agents.ppo.Inputs``) gives its keywords or refuses the run.
    networks: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    #: The agent that plays "the opponent": the other seats of ``aerodeck play``, the ``hint``, the
    #: league's fixed member, the agent training is measured against.
    opponent: str = RANDOM
    #: The agent whose preferences a policy may read as its prior (needs ``scores``), or ``None``.
    prior: str | None = None
    #: Games ``aerodeck bench`` plays by default.
    bench_games: int = 10_000
    #: The benches of ``aerodeck run`` on small budgets, weakest agent first: ``(seats, games)`` where
    #: ``seats`` is a tuple of agent specs, one per seat. A solo game benches every entry's agent on
    #: the same deals in one bench, each on its own game count; a multi-player game benches each entry
    #: as its own seat-rotated tournament of that lineup (its length is the player count).
    ladder: tuple[tuple[tuple[str, ...], int], ...] = ()
    #: The game in words for ``aerodeck play`` / ``replay``: a module (``aerodeck.envs.common.protocols.TextModule``), or ``None``.
    text: Any = None
    #: The game on a web page for ``aerodeck serve``: a module (``board``, ``parts``, ``STYLE``; the protocol is
    #: in ``aerodeck/serve/tables.py``), or ``None`` (the game cannot be played or watched in the browser).
    web: Any = None
    #: ``summary(core, state) -> dict`` (``aerodeck.envs.common.protocols.Summary``): the end-of-game figures, or
    #: ``None`` (the score is the sum of a seat's rewards, the standing the score, no tallies).
    summary: Any = None
    #: The metric catalogue (``aerodeck.envs.common.metrics.Catalogue``) of ``aerodeck compare / sweep / tune``, or ``None``.
    metrics: Any = None
    #: The headline metrics of ``aerodeck compare``'s summary (names in the catalogue): the answer a
    #: designer reads first, per variant in one sentence; empty: the catalogue's first metric.
    headline: tuple[str, ...] = ()
    #: The default training config (TOML): ``"package:relative/path.toml"`` or a ``Path``, or ``None``.
    training_config: str | Path | None = None
    #: The rule-general model's config over the defaults (its ``[variants]`` ranges; ``aerodeck train
    #: --general``), as ``training_config``, or ``None``.
    general_config: str | Path | None = None
    #: Rule options that change the layout only by adding items at the end of observation blocks and
    #: actions (a rule-general model lays them out at their largest, ``aerodeck.agents.variants``); any other
    #: option that changes the layout cannot be varied within one model.
    padded_options: tuple[str, ...] = ()
    #: Rule variants the contract test plays (option -> value): the defaults plus ones that change
    #: the shapes or the flow.
    variants: tuple[Mapping[str, Any], ...] = ({},)
    #: The glue that plays house rules (``aerodeck.envs.common.house``: a designer's subclass of the
    #: game's reference engine, behind the core interface): a class with ``reference`` (the engine
    #: class), ``core(rules)``, ``to_act``, ``legal_mask``, ``observe``, ``step``, ``write`` and
    #: ``read`` (see ``envs/airport_scramble/house.py``), or ``None`` (the game takes no house rules).
    house: Any = None
    #: The batched learner view of a multi-player game (the learner in one seat of each game, the other
    #: seats played by opponents): built as ``learner(num_envs, rules, opponents=..., seed=..., assign=...)``;
    #: ``reset()`` → ``(obs float32 (B, O), masks bool (B, A))``, ``step(actions)`` → ``(obs, rewards float32
    #: (B,), dones bool (B,), infos)`` with same-step autoreset, ``action_masks()``; ``None`` for a solo game
    #: (its ``vector`` env is its learner's batch).
    learner: Any = None
    #: The game's benchmark tasks (``aerodeck.bench.tasks``): a TOML file, one table per task named by the task
    #: (``rules``, ``opponents``, ``population``, ``general``, ``eval_games``, ``search_games``,
    #: ``description``), as ``training_config``; ``None``: the game has no benchmark tasks.
    tasks: str | Path | None = None

    def __post_init__(self) -> None:
        where = f"GameSpec {self.id!r}"
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ValueError(f"GameSpec id {self.id!r} must be lowercase words joined by '-' (e.g. 'airport-scramble')")
        if not self.player_counts or any(not isinstance(n, int) or n < 1 for n in self.player_counts):
            raise ValueError(f"{where}: player_counts must be positive integers, got {self.player_counts!r}")
        if (self.players_option is None) != (tuple(self.player_counts) == (1,)):
            raise ValueError(f"{where}: a solo game has player_counts (1,) and no players_option; "
                             f"a multi-player game both, got {self.player_counts!r} and {self.players_option!r}")
        if self.rule_ids and not self.rule_prefix:
            raise ValueError(f"{where}: rule_ids need a rule_prefix (e.g. 'AS' for AS-1)")
        offered = self.agent_names()
        for field, name in (("opponent", self.opponent), ("prior", self.prior)):
            if name is not None and name not in offered:
                raise ValueError(f"{where}: {field} {name!r} is not an agent of the game; agents: {', '.join(offered)}")
        if not self.variants or any(not isinstance(v, Mapping) for v in self.variants):
            raise ValueError(f"{where}: variants must be a non-empty tuple of option mappings")

    # --- players ----------------------------------------------------------------------------------

    @property
    def solo(self) -> bool:
        """One player: agents are compared by score on the same deals, not in tournaments."""
        return tuple(self.player_counts) == (1,)

    def players(self, rules=None) -> int:
        """The player count of ``rules`` (default: the default rules); 1 for a solo game."""
        if self.players_option is None:
            return 1
        return getattr(rules if rules is not None else self.rules_class()(), self.players_option)

    @property
    def default_players(self) -> int:
        """The player count of the default rules."""
        return self.players()

    # --- rules, core, view ------------------------------------------------------------------------

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

    def core_class(self) -> type:
        """The batched core's class."""
        return load(self.core)

    def make_core(self, rules=None, **options):
        """The batched core for ``rules`` with ``options`` applied (core keywords such as
        ``check_actions`` go to the core). Rules carrying a house rule (``aerodeck.envs.common.house``)
        get the reference engine behind the core interface (``ReferenceCore``: exact, slower)."""
        core_kwargs = {k: options.pop(k) for k in ("check_actions",) if k in options}
        rules = self.make_rules(rules, **options)
        from aerodeck.envs.common.house import house_of

        if house_of(rules) is not None:
            return self.make_reference_core(rules, **core_kwargs)
        return self.core_class()(rules, **core_kwargs)

    def make_reference_core(self, rules=None, check_actions: bool = True):
        """``rules``' games played by the reference engine (the house rule's, if ``rules`` carry one)
        behind the core interface (``aerodeck.envs.common.house.ReferenceCore``); ``ValueError`` if the
        game has no house-rule glue (``house``)."""
        from aerodeck.envs.common.house import ReferenceCore

        if self.house is None:
            raise ValueError(f"{self.id} takes no house rules (its GameSpec names no house glue)")
        return ReferenceCore(load(self.house), self.make_rules(rules), check_actions=check_actions)

    def make_view(self, core, state, seats=0):
        """The look-ahead view of the games of ``state`` for ``seats`` (``int64 (B,)`` or one seat)."""
        return load(self.view)(core, state, seats)

    # --- environments -----------------------------------------------------------------------------

    def make_env(self, rules=None, **kwargs):
        """One game in the game's standard single-game API (see ``env``)."""
        return load(self.env)(rules=rules, **kwargs)

    def make_sb3(self, num_envs: int, rules=None, **kwargs):
        """The stable-baselines3 ``VecEnv`` of ``num_envs`` games."""
        return load(self.sb3)(num_envs=num_envs, rules=rules, **kwargs)

    def sb3_class(self) -> type:
        """The stable-baselines3 ``VecEnv`` class (to subclass; needs the ``train`` extra)."""
        return load(self.sb3)

    def vector_class(self) -> type:
        """The Gymnasium ``VectorEnv`` class (see ``vector``); ``ValueError`` if the game has none."""
        if self.vector is None:
            raise ValueError(f"{self.id} has no Gymnasium VectorEnv (its GameSpec names no vector)")
        return load(self.vector)

    def make_learner(self, num_envs: int, rules=None, **kwargs):
        """The batched learner view of ``num_envs`` games (see ``learner``); ``ValueError`` if the game has none."""
        if self.learner is None:
            raise ValueError(f"{self.id} has no learner view (its GameSpec names no learner)")
        return load(self.learner)(num_envs, self.make_rules(rules), **kwargs)

    # --- the game in words, figures and metrics ---------------------------------------------------

    def text_module(self) -> ModuleType:
        """The game in words (``aerodeck.envs.common.protocols.TextModule``); ``ValueError`` if the game has none."""
        if self.text is None:
            raise ValueError(f"{self.id} cannot be shown in words (its GameSpec names no text module)")
        return load(self.text)

    def web_module(self) -> ModuleType:
        """The game on a web page (see the field); ``ValueError`` if the game has none."""
        if self.web is None:
            raise ValueError(f"{self.id} cannot be shown on a web page (its GameSpec names no web module)")
        return load(self.web)

    def summary_of(self):
        """The ``summary`` function (see the field), or ``None``."""
        return None if self.summary is None else load(self.summary)

    def catalogue(self):
        """The metric catalogue; ``ValueError`` if the game has none."""
        if self.metrics is None:
            raise ValueError(f"{self.id} has no metric catalogue (GameSpec.metrics), so rule variants cannot be compared")
        return load(self.metrics)

    # --- agents -----------------------------------------------------------------------------------

    def agent_names(self) -> list[str]:
        """Every agent the game offers: ``random``, its own, ``ppo``."""
        return [RANDOM, *self.agents, PPO]

    def network_class(self, name: str) -> type:
        """The policy class of the game's network ``name`` (one of ``networks``); ``ValueError`` otherwise."""
        if name not in self.networks:
            raise ValueError(f"[policy] network: {self.id} offers no network {name!r}; allowed: "
                             f"{', '.join(['mlp', *self.networks])}")
        return load(self.networks[name])

    def ladder_agents(self) -> list[str]:
        """The distinct agent specs of the ladder, in ladder order."""
        return list(dict.fromkeys(s for seats, _ in self.ladder for s in seats))

    # --- files ------------------------------------------------------------------------------------

    def docs_path(self) -> Path | None:
        """The rules page, or ``None``."""
        return None if self.docs is None else resource(self.docs)

    def training_config_path(self) -> Path:
        """The default training config (TOML); ``ValueError`` if the game has none."""
        if self.training_config is None:
            raise ValueError(f"{self.id} has no training config (GameSpec.training_config)")
        return resource(self.training_config)

    def general_config_path(self) -> Path:
        """The rule-general model's config (TOML); ``ValueError`` if the game has none."""
        if self.general_config is None:
            raise ValueError(f"{self.id} has no rule-general training config (GameSpec.general_config)")
        return resource(self.general_config)

    def tasks_path(self) -> Path | None:
        """The game's benchmark tasks (TOML, see ``tasks``), or ``None``."""
        return None if self.tasks is None else resource(self.tasks)


GAMES: dict[str, GameSpec] = {
    spec.id: spec
    for spec in (
        GameSpec(
            id="airport-scramble",
            title="Airport Scramble",
            rules="aerodeck.envs.airport_scramble.rules:AirportScrambleRules",
            core="aerodeck.envs.airport_scramble.core:AirportScrambleCore",
            env="aerodeck.envs.airport_scramble.env:AirportScrambleEnv",
            vector="aerodeck.envs.airport_scramble.vector:AirportScrambleVectorEnv",
            sb3="aerodeck.envs.airport_scramble.sb3:AirportScrambleSB3VecEnv",
            text="aerodeck.envs.airport_scramble.text",
            web="aerodeck.envs.airport_scramble.web",
            view="aerodeck.envs.airport_scramble.view:AirportScrambleView",
            rule_prefix="AS",
            rule_ids=tuple(range(1, 20)),
            docs="aerodeck.envs:../docs/airport-scramble.md",
            gym_id="aerodeck/AirportScramble-v0",
            agents={
                "heuristic": "aerodeck.agents.airport_scramble.heuristic:HeuristicAgent",
                "search": "aerodeck.agents.airport_scramble.search:SearchAgent",
                "expert": "aerodeck.agents.airport_scramble.expert:ExpertAgent",
            },
            networks={"local": "aerodeck.agents.airport_scramble.local:LocalPolicy"},
            opponent="heuristic",
            prior="heuristic",
            bench_games=10_000,
            ladder=((("random",), 10_000), (("heuristic",), 2_000), (("ppo",), 2_000), (("search",), 50)),
            metrics="aerodeck.envs.airport_scramble.metrics:CATALOGUE",
            headline=("score", "zero_tickets", "turns"),
            training_config="aerodeck.envs.airport_scramble:training.toml",
            general_config="aerodeck.envs.airport_scramble:general.toml",
            tasks="aerodeck.envs.airport_scramble:tasks.toml",
            padded_options=("face_up",),
            house="aerodeck.envs.airport_scramble.house:Glue",
            variants=(
                {},
                {"grid_size": 7, "face_up": 3, "max_replace": 2},
                {"allow_wait": False, "preplayed_rule": "redraw", "action_points": 3},
                {"edition": "generated", "n_colors": 3, "n_tickets": 10, "deck_seed": 5},
            ),
        ),
        GameSpec(
            id="flight-tycoon",
            title="Flight Tycoon",
            rules="aerodeck.envs.flight_tycoon.rules:FlightTycoonRules",
            core="aerodeck.envs.flight_tycoon.core:FlightTycoonCore",
            env="aerodeck.envs.flight_tycoon.env:env",
            sb3="aerodeck.envs.flight_tycoon.sb3:FlightTycoonSB3VecEnv",
            text="aerodeck.envs.flight_tycoon.text",
            web="aerodeck.envs.flight_tycoon.web",
            view="aerodeck.envs.flight_tycoon.view:FlightTycoonView",
            rule_prefix="FT",
            rule_ids=tuple(range(1, 18)),
            docs="aerodeck.envs:../docs/flight-tycoon.md",
            player_counts=(3, 4, 5),
            players_option="n_players",
            agents={
                "heuristic": "aerodeck.agents.flight_tycoon.heuristic:HeuristicAgent",
                "search": "aerodeck.agents.flight_tycoon.search:SearchAgent",
                "expert": "aerodeck.agents.flight_tycoon.expert:ExpertAgent",
            },
            networks={"requests": "aerodeck.agents.flight_tycoon.requests:RequestPolicy"},
            opponent="heuristic",
            prior="heuristic",
            bench_games=1_200,
            summary="aerodeck.envs.flight_tycoon.summary:summary",
            ladder=((("heuristic", "random", "random", "random"), 2_000),
                    (("ppo", "heuristic", "heuristic", "heuristic"), 1_000),
                    (("search", "heuristic", "heuristic", "heuristic"), 100)),
            metrics="aerodeck.envs.flight_tycoon.metrics:CATALOGUE",
            headline=("first_player_win", "skill_gap", "game_length", "vp_margin"),
            training_config="aerodeck.envs.flight_tycoon:training.toml",
            general_config="aerodeck.envs.flight_tycoon:general.toml",
            tasks="aerodeck.envs.flight_tycoon:tasks.toml",
            learner="aerodeck.envs.flight_tycoon.learner:LearnerGames",
            house="aerodeck.envs.flight_tycoon.house:Glue",
            variants=(
                {},
                {"n_players": 3},
                {"n_players": 5, "hand_size": 6, "vp_sharing": "rank"},
                {"tower_giveable": True, "vp_sharing": "first_only", "reward": "vp"},
            ),
        ),
    )
}

#: Entry points of ``aerodeck.games`` already added to ``GAMES`` (by ``name=value``).
_PLUGGED: set[str] = set()
#: Called with each game's spec once it is registered (``envs`` registers the Gymnasium ids).
_HOOKS: list = []
#: The installed entry points have all been read (reading them costs tens of milliseconds, so
#: :func:`discover` reads them again only when asked to or when a game id is not known yet).
_SCANNED = False


def _loading(module: str) -> bool:
    """Whether ``module`` is being imported right now (a plugin whose spec module imports ``envs``)."""
    found = sys.modules.get(module)
    return found is not None and bool(getattr(getattr(found, "__spec__", None), "_initializing", False))


def discover(refresh: bool = False) -> list[GameSpec]:
    """Add the games of the installed packages' ``aerodeck.games`` entry points to ``GAMES`` and return
    the ones added now. An entry point is named after its game's id and loads its :class:`GameSpec`;
    one that fails to import, loads something else, or repeats an id raises :class:`PluginError`
    naming the entry point and its distribution. (One whose module is being imported right now —
    its spec module imported ``envs`` first — is added on the next call.) The entry points are read
    once per process unless ``refresh``."""
    global _SCANNED
    if _SCANNED and not refresh:
        return []
    added, pending = [], False
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        key = f"{ep.name}={ep.value}"
        if key in _PLUGGED:
            continue
        if _loading(ep.module):
            pending = True
            continue
        dist = getattr(ep.dist, "name", None) or "an unknown distribution"
        where = f"game plugin {ep.name!r} (entry point {ep.value!r} of {dist}, group {ENTRY_POINT_GROUP})"
        try:
            spec = ep.load()
        except Exception as err:  # noqa: BLE001 - any failure of a plugin's import is reported as the plugin's
            raise PluginError(f"{where} failed to load: {type(err).__name__}: {err}") from err
        if not isinstance(spec, GameSpec):
            raise PluginError(f"{where} loads a {type(spec).__name__}, not an envs.registry.GameSpec")
        if spec.id != ep.name:
            raise PluginError(f"{where} loads the game {spec.id!r}: name the entry point after the game's id")
        if spec.id in GAMES and GAMES[spec.id] is not spec:
            raise PluginError(f"{where}: the game id {spec.id!r} is already registered")
        GAMES[spec.id] = spec
        _PLUGGED.add(key)
        added.append(spec)
        _after_discovery(spec)
    _SCANNED = not pending
    return added


def _after_discovery(spec: GameSpec) -> None:
    """Run the :func:`on_register` hooks for a game added by :func:`discover`."""
    for hook in _HOOKS:
        hook(spec)


def on_register(hook) -> None:
    """Call ``hook(spec)`` for every game registered now and for every game discovered later."""
    _HOOKS.append(hook)
    for spec in list(GAMES.values()):
        hook(spec)


def games() -> list[str]:
    """The ids of the registered games (built in, then plugged in)."""
    discover()
    return list(GAMES)


def specs() -> list[GameSpec]:
    """The specs of the registered games, in ``games()`` order."""
    return [GAMES[g] for g in games()]


def spec(game: str) -> GameSpec:
    """The spec of ``game``; ``ValueError`` naming the known games otherwise."""
    discover(refresh=not isinstance(game, str) or game not in GAMES)
    try:
        return GAMES[game]
    except (KeyError, TypeError):
        raise ValueError(f"unknown game {game!r}; available: {', '.join(GAMES)}") from None


def game_of_rules(rules) -> GameSpec:
    """The spec whose rules class ``rules`` is an instance of; ``ValueError`` otherwise."""
    for game in specs():
        if isinstance(rules, game.rules_class()):
            return game
    raise ValueError(f"{type(rules).__name__} is not the rules class of a registered game")


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
    game = next((g for g in specs() if isinstance(core, g.core_class())), None)
    if game is None:
        raise TypeError(f"{type(core).__name__} is not the core of a registered game")
    return game.make_view(core, state, core.to_act(state))

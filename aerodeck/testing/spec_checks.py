"""The contract's checks of the rest of the spec, under the default rules: its consistency, the
rule-general config, the rules page, the API checkers, the Gymnasium registration, the SB3 VecEnv,
rendering, the game in words, metrics, the summary and the agents of the ladder."""

from __future__ import annotations

import math
import re
import tomllib
import warnings

import numpy as np

from aerodeck.agents.restricted import NAME as RESTRICTED
from aerodeck.agents.specs import kind_of
from aerodeck.envs.common.batch import sample_legal
from aerodeck.envs.common.protocols import MetricRecorder, Policy, SB3VecEnv, SingleGameEnv, TextModule
from aerodeck.envs.registry import GameSpec
from aerodeck.testing.contract import (MAX_STEPS, Blamed, SkipCheck, blame, contract_check, expect, raises,
                                       rollout_to_end, spec_of)


# --- the rest of the spec, under the default rules -------------------------------------------------


@contract_check("spec_consistency", "id")
def spec_consistency(spec):
    """The spec's fields agree with each other: title, rule ids, players, agents, ladder, render modes,
    variants, training config tables, padded options."""
    expect(bool(spec.title), "title", "the game has no title")
    expect(bool(spec.rule_prefix and spec.rule_ids), "rule_ids", "the game declares no rule_prefix / rule_ids")
    with blame("player_counts"):
        assert spec.players() in spec.player_counts, f"the default rules have {spec.players()} players"
    expect(spec.opponent in spec.agent_names(), "opponent", f"opponent {spec.opponent!r} is not an agent of the game")
    expect(spec.prior is None or spec.prior in spec.agent_names(), "prior", f"prior {spec.prior!r} is not an agent")
    expect(bool(spec.ladder), "ladder", "the game declares no agent ladder")
    unknown = sorted({kind_of(s) for s in spec.ladder_agents()} - set(spec.agent_names()) - {RESTRICTED})
    expect(not unknown, "ladder", f"the ladder names unknown agents {unknown}; agents: {', '.join(spec.agent_names())}")
    expect(set(spec.render_modes) <= {"ansi", "rgb_array"}, "render_modes",
           f"render modes {spec.render_modes}; allowed: 'ansi', 'rgb_array'")
    with blame("variants"):
        for options in spec.variants:
            spec.make_rules(**options)  # every variant is a valid rules object
    with blame("training_config"):
        path = spec.training_config_path()
        config = tomllib.loads(path.read_text(encoding="utf-8"))
        assert {"train", "ppo", "policy"} <= set(config), f"{path} lacks one of the tables [train], [ppo], [policy]"
    with blame("padded_options"):
        unknown = sorted(set(spec.padded_options) - set(spec.rules_class().option_names()))
        assert not unknown, f"padded_options names {unknown}, not options of the rules class"


@contract_check("tasks", "tasks", applies=lambda spec: spec.tasks is not None)
def tasks(spec):
    """The benchmark tasks (``tasks.toml``) read, their rules are valid, their opponents are agents of the game, one
    per other seat (a population: its members), and the game has the env they train on (``vector`` / ``learner``)."""
    from aerodeck.bench.tasks import read_definitions

    with blame("tasks"):
        definitions = read_definitions([spec])
    for name, d in definitions.items():
        with blame("tasks"):
            rules = spec.make_rules(**d.rules)
            unknown = sorted({kind_of(s) for s in d.opponents} - set(spec.agent_names()))
            assert not unknown, f"task {name} names unknown opponents {unknown}; agents: {', '.join(spec.agent_names())}"
            seats = spec.players(rules) - 1
            assert d.population or len(d.opponents) == seats, \
                f"task {name} names {len(d.opponents)} opponents for {seats} other seats"
        if spec.solo:
            expect(spec.vector is not None, "vector", f"task {name} trains on the game's VectorEnv; the spec names none")
        else:
            expect(spec.learner is not None, "learner", f"task {name} trains on the game's learner view; the spec names none")


@contract_check("general_config", "general_config", applies=lambda spec: spec.general_config is not None)
def general_config(spec):
    """The rule-general config names a variant space of the game: every option varies in one layout."""
    try:
        import sb3_contrib  # noqa: F401 - the config loader reads the [ppo] table sb3-contrib defines
    except ImportError:
        raise SkipCheck("sb3-contrib is not installed (the train extra): the rule-general config is not checked") from None
    from aerodeck.agents.variants import VariantSpace
    from aerodeck.train.config import load_config

    space = VariantSpace(spec, load_config(spec.id, general=True).variants.ranges)
    assert space.embedding(space.draw(0, 0)).n_actions == spec.make_core(space.family).n_actions


RULE_DEFINITION = r"^(?:\*\*|#+[ \t]+){prefix}-(\d+)\b"


def rules_page(game: str | GameSpec) -> str:
    """The text of a game's rules page (``GameSpec.docs``); ``AssertionError`` if it declares none or
    the file does not exist."""
    spec = spec_of(game)
    path = spec.docs_path()
    assert path is not None, f"game {spec.id!r} declares no docs page (GameSpec.docs)"
    assert path.is_file(), f"the docs page of {spec.id!r} ({path}) does not exist"
    return path.read_text(encoding="utf-8")


def defined_ids(game: str | GameSpec) -> list[int]:
    """The rule numbers a game's rules page defines, in page order (repeats kept): a line opening with
    the bold id (``**AS-7``) or a heading opening with it (``### AS-7``); mentions inside sentences or
    list items do not count."""
    spec = spec_of(game)
    pattern = RULE_DEFINITION.format(prefix=re.escape(spec.rule_prefix))
    return [int(n) for n in re.findall(pattern, rules_page(spec), flags=re.MULTILINE)]


@contract_check("docs_rule_ids", "docs")
def docs_rule_ids(spec):
    """The docs page defines every rule id of ``rule_ids``."""
    missing = sorted(set(spec.rule_ids) - set(defined_ids(spec)))
    assert not missing, f"{spec.docs_path()} does not define {', '.join(f'{spec.rule_prefix}-{n}' for n in missing)}"


@contract_check("api_checker", "env")
def api_checker(spec):
    """Gymnasium's ``check_env`` for a solo game's env, PettingZoo's ``api_test`` for an AEC env."""
    env = spec.make_env()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checkers' advice (e.g. dict observations), not failures
        if hasattr(env, "agent_iter"):
            from pettingzoo.test import api_test

            api_test(env, num_cycles=20)
        else:
            from gymnasium.utils.env_checker import check_env

            assert isinstance(env, SingleGameEnv), f"{type(env).__name__} does not satisfy SingleGameEnv"
            check_env(env, skip_render_check=True)


@contract_check("gym_registration", "gym_id", applies=lambda spec: spec.gym_id is not None)
def gym_registration(spec):
    """``gymnasium.make(gym_id)`` makes the declared env, and ``make_vec`` the declared vector env."""
    import gymnasium

    env = gymnasium.make(spec.gym_id)
    expect(isinstance(env.unwrapped, type(spec.make_env())), "gym_id",
           f"gymnasium.make({spec.gym_id!r}) makes a {type(env.unwrapped).__name__}, "
           f"the spec's env a {type(spec.make_env()).__name__}")
    if spec.vector is not None:
        with blame("vector"):
            vec = gymnasium.make_vec(spec.gym_id, num_envs=2, vectorization_mode="vector_entry_point")
            obs, info = vec.reset(seed=0)
            assert obs.shape == (2, spec.make_core().obs_size) and info["action_mask"].shape[0] == 2


@contract_check("sb3_vecenv", "sb3")
def sb3_vecenv(spec):
    """The stable-baselines3 VecEnv: shapes, masks, and episodes reported with terminal observations."""
    try:
        import stable_baselines3  # noqa: F401
    except ImportError:
        raise SkipCheck("stable-baselines3 is not installed (the train extra): the SB3 VecEnv is not checked") from None
    core = spec.make_core()
    venv = spec.make_sb3(4, seed=0)
    assert isinstance(venv, SB3VecEnv), f"{type(venv).__name__} does not satisfy SB3VecEnv"
    obs = venv.reset()
    assert obs.shape == (4, core.obs_size) and obs.dtype == np.float32, f"reset: {obs.dtype} {obs.shape}"
    rng = np.random.default_rng(0)
    for _ in range(MAX_STEPS):
        masks = venv.action_masks()
        assert masks.shape == (4, core.n_actions) and masks.dtype == bool and masks.any(axis=1).all(), "action_masks"
        obs, rewards, dones, infos = venv.step(sample_legal(masks, rng.random(4)))
        assert obs.shape == (4, core.obs_size) and rewards.shape == (4,) and dones.shape == (4,), "step shapes"
        for i in np.flatnonzero(dones):
            episode = infos[i]["episode"]
            assert math.isfinite(episode["r"]) and episode["l"] >= 1, f"info['episode'] {episode}"
            assert infos[i]["terminal_observation"].shape == (core.obs_size,), "terminal_observation"
        if dones.any():
            return
    raise AssertionError("no game ended")


@contract_check("render_modes", "render_modes")
def render_modes(spec):
    """Each declared render mode renders: ``ansi`` a non-empty ``str``, ``rgb_array`` ``uint8 (H, W, 3)``."""
    for mode in spec.render_modes:
        env = spec.make_env(render_mode=mode)
        env.reset(seed=0)
        frame = env.render()
        if mode == "ansi":
            assert isinstance(frame, str) and frame.strip(), f"render() in 'ansi' gives {type(frame).__name__}"
        else:
            assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8, f"render() in {mode!r}: not uint8"
            assert frame.ndim == 3 and frame.shape[2] == 3 and min(frame.shape[:2]) > 0, f"frame {frame.shape}"


@contract_check("text", "text", applies=lambda spec: spec.text is not None)
def text(spec):
    """``parse(words(a)) == a`` for every legal move along a random game; the menu is the legal moves."""
    module = spec.text_module()
    assert isinstance(module, TextModule), f"{module.__name__} does not satisfy TextModule"
    core = spec.make_core()
    state = core.init(np.array([5]))
    rng = np.random.default_rng(5)
    first = None
    for _ in range(30):
        if state.done.all():
            break
        before = state.copy()
        first = before if first is None else first
        actions = np.maximum(sample_legal(core.legal_mask(state), rng.random(1)), 0)
        core.step(state, actions)
        legal = np.flatnonzero(core.legal_mask(before)[0]).tolist()
        assert sorted(a for a, _, _ in module.moves(core, before)) == legal, "moves() is not the legal moves"
        for action in legal:
            words = module.words(core, before, action)
            assert module.parse(core, before, words) == action, f"parse(words({action})) = parse({words!r})"
        assert all(isinstance(line, str) for line in module.events(core, before, state, int(actions[0]), 0))
    with raises(ValueError, "", "parse('no such move 123')"):
        module.parse(core, first, "no such move 123")
    picture = module.picture(core, state)
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3, "picture() is not uint8 (H, W, 3)"


@contract_check("web", "web", applies=lambda spec: spec.web is not None)
def web(spec):
    """The page of ``aerodeck serve``: the board draws for the seat to act and a spectator; each legal
    move's clickable parts are on the board and name that move alone."""
    module = spec.web_module()
    assert isinstance(getattr(module, "STYLE", None), str), f"{module.__name__} has no STYLE (the board's CSS)"
    core = spec.make_core()
    state = core.init(np.array([5]))
    rng = np.random.default_rng(5)
    for _ in range(30):
        if state.done.all():
            break
        seat = int(core.to_act(state)[0])
        board = module.board(core, state, seat)
        assert isinstance(board, str) and board, f"board(core, state, {seat}) is not HTML text"
        assert isinstance(module.board(core, state, None), str), "board(core, state, None): no spectator's board"
        drawn = set(re.findall(r'data-part="([^"]+)"', board))
        named: dict[tuple, int] = {}
        for action in np.flatnonzero(core.legal_mask(state)[0]).tolist():
            parts = module.parts(core, state, action)
            assert set(parts) <= drawn, f"action {action}: parts {parts} are not all on the board (data-part)"
            key = tuple(sorted(parts))
            assert not parts or key not in named, f"actions {named.get(key)} and {action} have the same parts {parts}"
            named[key] = action
        core.step(state, np.maximum(sample_legal(core.legal_mask(state), rng.random(1)), 0))


@contract_check("metrics", "metrics", applies=lambda spec: spec.metrics is not None)
def metrics(spec):
    """The metric recorder gives finite ratios of the declared width for every metric."""
    core = spec.make_core()
    catalogue = spec.catalogue()
    G = 6
    recorder = catalogue.make_recorder(core, G, lineups=None if spec.solo else np.zeros((G, core.n_players), np.int64))
    assert isinstance(recorder, MetricRecorder), f"{type(recorder).__name__} does not satisfy MetricRecorder"
    state = core.init(np.arange(G))
    recorder.on_start(core, state, np.arange(G))
    rng = np.random.default_rng(7)
    while not state.done.all():
        actions = np.maximum(sample_legal(core.legal_mask(state), rng.random(G)), 0)
        recorder.on_step(core, state, actions, core.step(state, actions), np.arange(G))
    result = recorder.result()
    for metric in catalogue.for_rules(core.rules):
        numerator, denominator = result[metric.name]
        assert numerator.shape == denominator.shape == (G, metric.width), metric.name
        assert np.isfinite(numerator).all() and np.isfinite(denominator).all(), metric.name
        assert (denominator >= 0).all(), metric.name
    names = {metric.name for metric in catalogue.metrics}
    unknown = [name for name in getattr(spec, "headline", ()) if name not in names]
    expect(not unknown, "headline", f"headline names {unknown}, not metrics of the catalogue; its metrics: {', '.join(sorted(names))}")


@contract_check("summary", "summary", applies=lambda spec: spec.summary is not None)
def summary(spec):
    """The summary gives a score and a standing per seat, and tallies per game."""
    core = spec.make_core()
    state = core.init(np.arange(4))
    rollout_to_end(core, state, np.random.default_rng(8))
    figures = spec.summary_of()(core, state)
    assert np.shape(figures["score"]) == np.shape(figures["standing"]) == (4, core.n_players), "score / standing shape"
    assert all(np.shape(v) == (4,) for items in figures["tallies"].values() for v in items.values()), "tallies shape"


@contract_check("ladder_agents", "agents", "agent")
def ladder_agents(spec, agent):
    """Each agent of the ladder (and the opponent) makes legal moves."""
    from aerodeck.agents.registry import make_agent

    core = spec.make_core()
    try:
        player = make_agent(spec, agent, core.rules, seed=0)
    except ValueError as err:
        if kind_of(agent) == "ppo":  # a game may ship no trained model, or torch may be missing
            raise SkipCheck(str(err)) from None
        raise Blamed("ladder" if kind_of(agent) not in spec.agents else "agents", err) from err
    assert isinstance(player, Policy), f"{type(player).__name__} does not satisfy Policy"
    state = core.init(np.arange(4))
    for _ in range(3):
        masks = core.legal_mask(state)
        seen = spec.make_view(core, state, core.to_act(state)) if player.needs_view else None
        actions = np.asarray(player.act(core.observe(state), masks, seen))
        live = np.flatnonzero(masks.any(axis=1))
        assert actions.shape == (4,) and masks[live, actions[live]].all(), f"{agent} played an illegal move"
        core.step(state, np.where(masks.any(axis=1), actions, 0))

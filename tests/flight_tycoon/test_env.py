"""The PettingZoo AEC environment: PettingZoo's own tests, classic conventions, illegal actions, rendering."""

import copy
import functools
import pickle
import re
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils.env_logger import EnvLogger

from aerodeck import envs
from aerodeck.envs import flight_tycoon_v0
from aerodeck.envs.common.checks import IllegalActionError
from aerodeck.envs.flight_tycoon.core import FlightTycoonCore
from aerodeck.envs.flight_tycoon.env import env, raw_env
from aerodeck.envs.flight_tycoon.observation import ObservationLayout
from aerodeck.envs.flight_tycoon.rules import DISCARD, FlightTycoonRules
from tests.flight_tycoon.differential import VARIANTS

DOCS = Path(__file__).resolve().parents[2] / "docs" / "flight-tycoon.md"


# PettingZoo's api_test warns about dict observations for every env not on its list of classic names.
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array", "ignore:Observation space for each agent")
@pytest.mark.parametrize("n", [3, 4, 5])
def test_pettingzoo_api_test(n):
    api_test(env(n_players=n), num_cycles=300)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_pettingzoo_seed_test(n):
    seed_test(functools.partial(env, n_players=n), num_cycles=300)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_pettingzoo_render_test(n):
    render_test(functools.partial(env, n_players=n))


def _play(environment, rng, until=None):
    for agent in environment.agent_iter():
        obs, reward, term, trunc, info = environment.last()
        if until is not None and until(environment, obs):
            return obs
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        environment.step(action)
    return None


def test_observations_follow_the_classic_conventions():
    environment = env(n_players=4)
    environment.reset(seed=3)
    assert environment.possible_agents == [f"player_{i}" for i in range(4)]
    space = environment.observation_space("player_1")
    assert space is environment.observation_space("player_1")  # cached
    assert environment.action_space("player_0").n == 120
    obs = environment.observe("player_0")
    assert obs["observation"].dtype == np.float32 and obs["action_mask"].dtype == np.int8
    assert obs["observation"].shape == (418,) and space.contains(obs)
    assert not environment.observe("player_2")["action_mask"].any()  # only the agent to act has legal moves
    assert isinstance(environment.terminations["player_0"], bool)


def test_a_seeded_reset_is_the_cores_game_of_that_seed():
    environment = raw_env(n_players=3)
    environment.reset(seed=42)
    core = FlightTycoonCore(FlightTycoonRules(n_players=3))
    st = core.init([42])
    for seat in range(3):
        assert np.array_equal(environment.observe(f"player_{seat}")["observation"], core.observe(st, seat)[0])


def test_a_full_game_pays_ft15_rewards_at_the_end():
    environment = env(n_players=4)
    environment.reset(seed=8)
    totals = {agent: 0.0 for agent in environment.possible_agents}
    rng = np.random.default_rng(0)
    for agent in environment.agent_iter():
        obs, reward, term, trunc, info = environment.last()
        totals[agent] += reward
        environment.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    winners = [v for v in totals.values() if v > 0]
    assert winners and all(v == pytest.approx(1 / len(winners)) for v in winners)
    assert all(v == pytest.approx(-1 / 3) for v in totals.values() if v <= 0)
    assert not environment.agents


def test_an_illegal_action_terminates_with_minus_one_a_warning_and_the_reason():
    environment = env()
    environment.reset(seed=1)
    agent = environment.agent_selection
    mask = environment.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    EnvLogger.mqueue.clear()
    environment.step(illegal)
    assert any("Illegal move" in message for message in EnvLogger.mqueue)  # PettingZoo's warning
    assert environment.rewards[agent] == -1
    assert all(environment.rewards[a] == 0 for a in environment.agents if a != agent)
    assert all(environment.terminations.values())
    assert "not in your hand" in environment.infos[agent]["illegal_action"]


def test_on_illegal_raise_names_the_action_and_why():
    environment = env(on_illegal="raise")
    environment.reset(seed=1)
    with pytest.raises(IllegalActionError, match=r"player_0: action 48 \(ask \+1 on month 1\) is illegal: choose the card"):
        environment.step(48)


def test_the_unwrapped_env_also_refuses_illegal_actions():
    environment = raw_env()
    environment.reset(seed=1)
    EnvLogger.mqueue.clear()
    environment.step(70)
    assert EnvLogger.mqueue
    assert environment.rewards["player_0"] == -1 and "illegal_action" in environment.infos["player_0"]


def test_tower_choices_are_made_in_turn_and_stay_hidden():  # FT-6
    first, second = env(), env()
    first.reset(seed=4)
    second.reset(seed=4)
    mask = first.observe("player_0")["action_mask"]
    choices = np.flatnonzero(mask)
    first.step(int(choices[0]))
    second.step(int(choices[-1]))
    assert first.agent_selection == "player_1"
    for agent in ("player_1", "player_2", "player_3"):
        assert np.array_equal(first.observe(agent)["observation"], second.observe(agent)["observation"])


def test_render_modes_show_what_the_viewer_may_see():
    public = env(render_mode="ansi")
    public.reset(seed=2)
    omniscient = env(render_mode="ansi", render_viewer="all")
    omniscient.reset(seed=2)
    seat = env(render_mode="ansi", render_viewer=0)
    seat.reset(seed=2)
    assert public.render().count("??") == 32 and "??" not in omniscient.render()
    assert seat.render().count("??") == 24
    image = env(render_mode="rgb_array")
    image.reset(seed=2)
    frame = image.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"n_players": 7}, "'n_players'"),
        ({"colour": "red"}, "unknown rule option 'colour'"),
        ({"on_illegal": "ignore"}, "on_illegal must be one of terminate, raise"),
        ({"render_mode": "video"}, "render_mode must be one of"),
        ({"render_viewer": 9}, "render viewer must be a seat 0..3"),
    ],
)
def test_bad_env_options_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        env(**kwargs)


def test_observation_layout_is_documented_block_by_block():
    lay = ObservationLayout(FlightTycoonRules(n_players=3))
    assert lay.size == 353 and lay["hand"].size == 144 and lay.describe().count("\n") == len(lay.blocks) + 1


def _random_moves(environment, rng, count):
    """Play ``count`` random legal moves (or until the game ends); the rewards seen, in order."""
    seen = []
    for _ in range(count):
        if not environment.agents:
            break
        obs, reward, term, trunc, _ = environment.last()
        seen.append(reward)
        environment.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


def _trace(environment, rng):
    """The rest of the game and the next seeded-sequence game: every agent, observation and reward."""
    out = []
    for _ in range(2):
        for agent in environment.agent_iter():
            obs, reward, term, trunc, _ = environment.last()
            out.append((agent, obs["observation"].tobytes(), reward))
            environment.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        environment.reset()  # unseeded: continues the sequence seeded at the first reset
    return out


@pytest.mark.parametrize("make", [env, raw_env], ids=["wrapped", "raw"])
@pytest.mark.parametrize("duplicate", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))], ids=["deepcopy", "pickle"])
def test_a_copy_made_mid_game_continues_exactly_as_the_original(make, duplicate):
    original = make(n_players=3, vp_sharing="rank")
    original.reset(seed=21)
    _random_moves(original, np.random.default_rng(0), 25)
    twin = duplicate(original)
    assert twin.agent_selection == original.agent_selection
    assert _trace(twin, np.random.default_rng(1)) == _trace(original, np.random.default_rng(1))


def test_the_full_state_is_private_and_state_raises_not_implemented():
    environment = env()
    environment.reset(seed=0)
    with pytest.raises(NotImplementedError, match="no global state"):
        environment.state()
    with pytest.raises(NotImplementedError):
        environment.unwrapped.state()
    assert not hasattr(environment.unwrapped, "hand")
    assert envs.view_of_env(environment).batch_size == 1  # the look-ahead view reads the private state


@pytest.mark.parametrize("seed", [2**64 - 1, np.uint64(7), np.int32(7)])
def test_reset_accepts_every_seed_in_range(seed):
    environment = raw_env()
    environment.reset(seed=seed)
    assert np.array_equal(environment.observe("player_0")["observation"],
                          FlightTycoonCore(FlightTycoonRules()).observe(FlightTycoonCore().init([int(seed)]), 0)[0])


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True, "3", float("nan")])
def test_reset_refuses_bad_seeds_naming_the_range(seed):
    with pytest.raises(ValueError, match=r"seed must be an integer in 0..2\*\*64-1"):
        env().reset(seed=seed)


@pytest.mark.parametrize("make", [env, raw_env, functools.partial(env, on_illegal="raise")],
                         ids=["wrapped", "raw", "raise"])
@pytest.mark.parametrize("form", [np.int64, np.uint8, np.array, lambda a: np.array([a])],
                         ids=["int64", "uint8", "0-d", "shape-1"])
def test_step_takes_an_action_as_a_numpy_integer_or_a_one_element_array(make, form):
    plain, other = make(), make()
    plain.reset(seed=5)
    other.reset(seed=5)
    for _ in range(12):
        action = int(np.flatnonzero(plain.observe(plain.agent_selection)["action_mask"])[-1])
        plain.step(action)
        other.step(form(action))
        assert other.agent_selection == plain.agent_selection
        assert np.array_equal(other.observe(other.agent_selection)["observation"],
                              plain.observe(plain.agent_selection)["observation"])


@pytest.mark.parametrize("make", [env, raw_env, functools.partial(env, on_illegal="raise")],
                         ids=["wrapped", "raw", "raise"])
@pytest.mark.parametrize("action", [3.0, np.float32(3), True, np.bool_(True), float("nan"), None, "3", np.array([3, 4]),
                                    -1, 120])
def test_step_refuses_malformed_actions_naming_the_range(make, action):
    environment = make()
    environment.reset(seed=5)
    with pytest.raises(ValueError, match=re.escape("action must be an integer in 0..119")):
        environment.step(action)


def test_the_versioned_module_gives_the_env():
    wrapped, raw = flight_tycoon_v0.env(n_players=5), flight_tycoon_v0.raw_env(n_players=5)
    assert wrapped.metadata["name"] == raw.metadata["name"] == "flight_tycoon_v0"
    assert isinstance(wrapped.unwrapped, raw_env) and wrapped.unwrapped.rules.n_players == 5
    assert envs.spec("flight-tycoon").make_env(rules=FlightTycoonRules(n_players=3), vp_sharing="rank").unwrapped.rules \
        == FlightTycoonRules(n_players=3, vp_sharing="rank")
    with pytest.raises(TypeError, match="rules must be a FlightTycoonRules"):
        raw_env(rules={"n_players": 3})


def _size_formula(sizes: list[int]) -> str:
    """``48·n``, ``n``, ``24``: a block size for n = 3, 4, 5 written as the docs write it."""
    per, base = sizes[1] - sizes[0], sizes[0] - 3 * (sizes[1] - sizes[0])
    assert sizes[2] == base + 5 * per
    if per == 0:
        return str(base)
    term = "n" if per == 1 else f"{per}·n"
    return term if base == 0 else f"{term} + {base}"


def test_the_documented_observation_table_is_the_layout():
    layouts = [ObservationLayout(FlightTycoonRules(n_players=n)) for n in (3, 4, 5)]
    lines = ["| block | size | n=3 | n=4 | n=5 | meaning |", "|---|---|---|---|---|---|"]
    for name, block in layouts[0].blocks.items():
        blocks = [lay[name] for lay in layouts]
        ranges = [f"{b.start}–{b.stop - 1}" if b.size > 1 else str(b.start) for b in blocks]
        lines.append(f"| `{name}` | {_size_formula([b.size for b in blocks])} | {' | '.join(ranges)} | {block.doc} |")
    assert "\n".join(lines) in DOCS.read_text()
    assert [lay.size for lay in layouts] == [65 * n + 158 for n in (3, 4, 5)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_env_plays_the_cores_game_step_by_step(variant):
    """The env runs one game on ``SingleGame`` (not the core): over the differential tests' rule
    variants, every agent's observation (bit for bit) and mask, the rewards, the ends and the game as a
    core state (``_state``, what ``aerodeck.envs.view_of_env`` reads) equal the core's game of the same seed
    after every decision."""
    rules = FlightTycoonRules(**variant)
    aec, core = raw_env(rules=rules), FlightTycoonCore(rules)
    rng = np.random.default_rng(len(str(variant)))
    for seed in range(3):
        aec.reset(seed=seed)
        state = core.init([seed])
        while True:
            to_act = int(core.to_act(state)[0])
            mask = core.legal_mask(state)[0]
            mirror = aec._state
            assert core.snapshot(mirror, 0) == core.snapshot(state, 0)
            assert int(mirror.received[0]) == (int(state.received[0]) if state.phase[0] == DISCARD else -1)
            for agent in aec.possible_agents:
                seat = aec._seat[agent]
                obs = aec.observe(agent)
                assert np.array_equal(obs["observation"].view(np.uint32), core.observe(state, seat)[0].view(np.uint32))
                assert np.array_equal(obs["action_mask"], mask if seat == to_act else np.zeros_like(mask))
            if state.done[0]:
                assert all(aec.terminations.values())
                break
            assert aec.agent_selection == f"player_{to_act}"
            action = int(rng.choice(np.flatnonzero(mask)))
            aec.step(action)
            rewards = core.step(state, np.array([action]))[0]
            assert [aec.rewards[a] for a in aec.possible_agents] == rewards.tolist()

"""The PettingZoo AEC environment: PettingZoo's own tests, classic conventions, illegal actions, rendering."""

import functools
import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils.env_logger import EnvLogger

from envs.flight_tycoon import FlightTycoonCore, FlightTycoonRules, env, raw_env
from envs.flight_tycoon.layout import ObservationLayout


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
    with pytest.raises(ValueError, match=r"player_0: action 48 \(ask \+1 on month 1\) is illegal: choose the card"):
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

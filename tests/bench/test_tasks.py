"""The benchmark's tasks (``aerodeck.bench.tasks``): they load and build their training envs, their
evaluation deals are held out from every training env, and the protocol's normalization puts random at 0
and the heuristic at 1."""

import json

import numpy as np
import pytest

import aerodeck
from aerodeck.agents.registry import make_agent
from aerodeck.bench import measure
from aerodeck.bench import tasks as T
from aerodeck.bench.general import GeneralPolicyAgent, GeneralVecEnv
from aerodeck.envs.common.batch import sample_legal

NAMES = T.names()


def legal_random(masks, rng):
    return sample_legal(masks, rng.random(masks.shape[0]))


def test_the_task_set_has_every_named_task_and_each_loads():
    assert {"as-standard-v0", "ft4-random-v0", "ft4-heuristic-v0", "as-general-v0", "ft4-general-v0"} <= set(NAMES)
    assert [t.name for t in aerodeck.tasks()] == NAMES
    for task in aerodeck.tasks():
        assert aerodeck.task(task.name) is task
        assert task.budget_steps >= 1_000_000 and task.eval_games >= 500
        assert task.has_reference, f"{task.name}: run `aerodeck tasks --measure`"
        assert task.reference["heuristic"] > task.reference["random"]
        assert (task.opponents == ()) == task.spec.solo


def test_an_unknown_task_is_refused_with_the_list_of_names():
    with pytest.raises(ValueError, match="unknown task 'as-nothing-v9'; tasks: as-standard-v0, .*ft4-general-v0"):
        aerodeck.task("as-nothing-v9")


@pytest.mark.parametrize("name", NAMES)
def test_each_task_builds_its_batched_training_env_with_masks(name):
    task = T.task(name)
    env = task.make_vec_env(16, seed=5)
    out = env.reset()
    obs = out[0]
    masks = env.action_masks()
    assert obs.dtype == np.float32 and obs.ndim == 2 and obs.shape[0] == 16
    assert masks.dtype == bool and masks.shape[0] == 16 and masks.any(axis=1).all()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60 if task.general else 120):  # a general env steps 16 cores, one per train variant
        step = env.step(legal_random(env.action_masks(), rng))
        ended += int(np.sum(step[2]))
        assert step[0].shape == obs.shape and step[0].dtype == np.float32
        assert env.action_masks().shape == masks.shape
    assert ended > 0  # games end and restart in place


@pytest.mark.parametrize("name", ["as-standard-v0", "ft4-population-v0", "as-general-v0"])
def test_each_task_builds_its_sb3_env(name):
    pytest.importorskip("sb3_contrib")
    task = T.task(name)
    venv = task.make_sb3_env(16, seed=2)
    obs = venv.reset()
    assert obs.shape == (16, venv.observation_space.shape[0])
    masks = venv.action_masks()
    assert masks.shape == (16, venv.action_space.n)
    rng = np.random.default_rng(1)
    for _ in range(50):
        obs, rewards, dones, infos = venv.step(legal_random(venv.action_masks(), rng))
    assert obs.shape[0] == 16 and len(infos) == 16


# --- held-out deals -----------------------------------------------------------------------------------------

def test_evaluation_deals_are_fixed_by_the_task_and_lie_in_the_upper_half():
    for task in aerodeck.tasks():
        seeds = task.eval_seeds()
        assert seeds.dtype == np.uint64 and seeds.size == task.eval_games
        assert T.is_evaluation_seed(seeds).all()
        assert np.unique(seeds).size == seeds.size
        assert np.array_equal(task.eval_seeds(100), seeds[:100])  # a shorter evaluation plays the first deals
    a, b = T.task("ft4-random-v0").eval_seeds(), T.task("ft4-heuristic-v0").eval_seeds()
    assert not np.intersect1d(a, b).size  # each task its own deals


@pytest.mark.parametrize("seed", [0, 1, 2**63 - 1, 2**63, 2**64 - 1])
def test_training_deals_never_reach_the_evaluation_half_whatever_the_run_seed(seed):
    assert not T.is_evaluation_seed(T.training_seeds(seed, 10_000)).any()


@pytest.mark.parametrize("name", ["as-standard-v0", "ft4-heuristic-v0", "as-general-v0", "ft4-general-v0"])
def test_the_games_a_training_env_deals_are_never_evaluation_deals(name, monkeypatch):
    """Every seed handed to a core's init or reset while a task's training env plays, recorded."""
    task = T.task(name)
    dealt = []
    core_class = task.spec.core_class()
    init, reset = core_class.init, getattr(core_class, "reset", None)

    def recording_init(self, seeds, *args, **kwargs):
        dealt.append(np.asarray(seeds, np.uint64).copy())
        return init(self, seeds, *args, **kwargs)

    monkeypatch.setattr(core_class, "init", recording_init)
    if reset is not None:
        def recording_reset(self, state, rows, seeds, *args, **kwargs):
            dealt.append(np.asarray(seeds, np.uint64).copy())
            return reset(self, state, rows, seeds, *args, **kwargs)

        monkeypatch.setattr(core_class, "reset", recording_reset)
    for seed in (0, 2**64 - 1):
        env = task.make_vec_env(16, seed=seed)
        env.reset()
        rng = np.random.default_rng(3)
        for _ in range(40 if task.general else 120):
            env.step(legal_random(env.action_masks(), rng))
    seeds = np.concatenate(dealt)
    assert seeds.size > 32
    assert not T.is_evaluation_seed(seeds).any()
    assert not np.isin(task.eval_seeds(), seeds).any()


def test_a_solo_training_env_refuses_evaluation_seeds():
    env = T.task("as-standard-v0").make_vec_env(4, seed=0)
    with pytest.raises(ValueError, match="below 2\\*\\*63"):
        env.reset(seed=[1, 2, 3, 2**63 + 4])
    obs, infos = env.reset(seed=2**64 - 1)  # one run seed: mapped into the training half
    assert obs.shape[0] == 4 and infos["action_mask"].shape[0] == 4


def test_the_same_run_seed_deals_the_same_training_games():
    for name in ("as-standard-v0", "ft4-random-v0"):
        first = [T.task(name).make_vec_env(8, seed=9).reset()[0] for _ in range(2)]
        assert np.array_equal(*first)


# --- evaluation and normalization --------------------------------------------------------------------------

def test_normalize_maps_random_to_zero_and_the_heuristic_to_one():
    for task in aerodeck.tasks():
        ref = task.reference
        assert task.normalize(ref["random"]) == pytest.approx(0.0)
        assert task.normalize(ref["heuristic"]) == pytest.approx(1.0)
        assert np.allclose(task.normalize(np.array([ref["random"], ref["heuristic"]])), [0.0, 1.0])
        for v, row in enumerate(ref.get("variants") or []):
            assert task.normalize(row["heuristic"], v) == pytest.approx(1.0)


#: The rules-generalization tasks' full evaluations (8 variants each) run with the long tests.
FULL = [n if n not in T.GENERAL else pytest.param(n, marks=pytest.mark.long) for n in NAMES]


@pytest.mark.parametrize("name", FULL)
def test_heuristic_normalizes_to_one_and_random_to_zero_on_the_full_evaluation(name):
    """The protocol's evaluation (agent seed 0, every held-out deal) of the heuristic holds 1 in its
    normalized interval and random's holds 0. The references are means over 20 agent seeds, not this run
    alone, so the check fails if play, deals or references drift apart; played in batches of another size
    than the references', it also checks that the batch does not change a game."""
    task = T.task(name)
    heuristic = task.evaluate("heuristic", batch_size=1000)
    random = task.evaluate("random", batch_size=1000)
    assert heuristic.games == random.games == task.eval_games
    assert heuristic.normalized.holds(1.0), f"{name}: heuristic {heuristic.normalized}"
    assert random.normalized.holds(0.0), f"{name}: random {random.normalized}"
    assert heuristic.normalized.low > random.normalized.high
    by_seed = task.reference.get("random_by_seed") or task.reference["variants"][0]["random_by_seed"]
    first = random.raw.value if not task.general else float(random.scores[0].mean())
    assert first == pytest.approx(by_seed[0])  # seed 0 of the references, played again


def test_an_agent_object_and_its_spec_evaluate_alike():
    task = T.task("ft4-population-v0")
    by_spec = task.evaluate("heuristic", games=96, seed=3)
    by_object = task.evaluate(make_agent(task.game, "heuristic", task.rules, seed=3), games=96, seed=3)
    assert np.array_equal(by_spec.scores, by_object.scores)
    assert by_spec.raw == by_object.raw and by_spec.scores.shape == (96,)


def test_a_population_task_meets_every_member_at_every_seat_equally_often():
    from aerodeck.bench.evaluate import lineups

    task = T.task("ft4-population-v0")
    lineup, seat = lineups(task, task.eval_games)
    assert (lineup[np.arange(task.eval_games), seat] == 0).all()
    members = len(task.opponents)
    counts = np.zeros((task.players, members), int)
    for g in range(task.eval_games):
        others = np.delete(lineup[g], seat[g])
        assert len(set(others)) == 1  # one member plays every other seat of a game
        counts[seat[g], others[0] - 1] += 1
    assert (counts == counts[0, 0]).all()


def test_evaluation_result_reports_raw_and_normalized_with_intervals():
    ev = T.task("as-easy-v0").evaluate("heuristic", games=200, seed=0)
    d = ev.to_dict()
    assert d["games"] == 200 and d["raw"]["low"] <= d["raw"]["value"] <= d["raw"]["high"]
    assert d["normalized"]["value"] == pytest.approx(T.task("as-easy-v0").normalize(d["raw"]["value"]))
    assert json.dumps(d)


def test_bad_agents_and_game_counts_are_refused():
    task = T.task("as-standard-v0")
    with pytest.raises(ValueError, match="games must be a positive integer"):
        task.evaluate("random", games=0)
    with pytest.raises(ValueError, match="unknown agent"):
        task.evaluate("nobody")
    general = T.task("as-general-v0")
    with pytest.raises(ValueError, match="give an agent spec or a callable rules -> Agent"):
        general.evaluate(make_agent(general.game, "random", general.rules), games=5)


# --- the rules-generalization track --------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(T.GENERAL))
def test_the_shipped_split_is_what_the_seeded_draw_gives(name):
    stored = json.loads(T.VARIANTS_FILE.read_text())[name]
    assert json.loads(json.dumps(measure.split(name), default=list)) == stored
    task = T.task(name)
    labels = [r.label() for r in task.train_variants], [r.label() for r in task.test_variants]
    assert len(labels[0]) == measure.TRAIN_VARIANTS and len(labels[1]) == measure.TEST_VARIANTS
    assert not set(labels[0]) & set(labels[1]) and task.rules.label() not in labels[0] + labels[1]
    assert all(not task.space.outside(r) for r in task.train_variants + task.test_variants)


def test_the_general_env_plays_every_train_variant_in_the_family_layout():
    task = T.task("as-general-v0")
    env = GeneralVecEnv(task, 20, seed=0)
    assert sorted(set(env.variant.tolist())) == list(range(len(task.train_variants)))
    obs, masks = env.reset()
    family = task.space.embedding(task.space.family)
    assert obs.shape == (20, family.obs_size + task.space.size) and masks.shape == (20, family.n_actions)
    for g, rows in enumerate(env.slices):  # each game reads its own variant's rule features
        assert np.allclose(obs[rows, family.obs_size:], task.space.features(task.train_variants[g]))
    with pytest.raises(ValueError, match="at least 16"):
        GeneralVecEnv(task, 8, seed=0)


def test_a_policy_over_the_general_inputs_evaluates_as_the_agent_it_stands_for():
    """A policy that takes the first legal family action plays as an agent taking the first legal action."""
    from aerodeck.agents.base import Agent

    class First(Agent):
        name = "first"

        def act(self, observations, masks, view=None):
            return np.asarray(masks, bool).argmax(axis=1)

    task = T.task("as-general-v0")
    policy = GeneralPolicyAgent.factory(task, lambda obs, masks: masks.argmax(axis=1), name="first")
    via_policy = task.evaluate(policy, games=30)
    direct = task.evaluate(lambda rules: First(0, rules), games=30)
    assert via_policy.scores.shape == (len(task.test_variants), 30)
    assert np.array_equal(via_policy.scores, direct.scores)

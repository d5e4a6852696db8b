"""The typed training config: defaults per game, TOML over them, errors naming the field."""

import dataclasses
import json
from pathlib import Path

import pytest

from aerodeck import envs
from tests.games import MULTI, SOLO
from aerodeck.train.config import Config, LeagueConfig, default_config, describe, load_config, merge, model_file

GAMES = envs.games()


@pytest.mark.parametrize("text, message", [
    ("[ppo]\nlearning_rat = 0.1\n", "[ppo] has no key 'learning_rat'"),
    ("[ppo]\nn_epochs = 1.5\n", "[ppo] n_epochs must be int"),
    ("[ppo]\nlearning_rate = \"fast\"\n", "[ppo] learning_rate must be float"),
    ("[optimizer]\nlr = 1\n", "unknown table [optimizer]"),
    ("[league]\nself = 1.0\n", "unknown table [league] (a table of multi-player games)"),
    ("[ppo]\nbatch_size = 0\n", "[ppo] batch_size must be at least 1, got 0"),
    ("[ppo]\ngamma = 1.5\n", "[ppo] gamma must be in (0, 1], got 1.5"),
    ("[policy]\nactivation = \"gelu\"\n", "[policy] activation must be one of 'tanh', 'relu'"),
    ("[policy]\nprior_ties = \"last\"\n", "[policy] prior_ties must be one of 'even', 'first'"),
    ("[policy]\nnet_arch = [16, 0]\n", "[policy] net_arch must be a non-empty list of positive layer widths"),
    ("[policy]\nsees_mask = 1\n", "[policy] sees_mask must be bool"),
    ("[warm_start]\nplay_batch = 0\n", "[warm_start] play_batch must be at least 1"),
    ("[warm_start]\nworkers = 0\n", "[warm_start] workers must be at least 1"),
    ("[warm_start]\nalso = \"runs/x/warm_start.npz\"\n", "[warm_start] also must be a list of strings"),
    ("[policy]\nnet_arch = [\"wide\"]\n", "[policy] net_arch must be a list of integers"),
    ("[budget]\nwarm_start = 1.0\n", "[budget] warm_start must be in [0, 1)"),
    ("[ppo\n", "not valid TOML"),
    ("[policy]\nprior_ranks = 16\n", "[policy] prior_ranks must be from 0 to 15"),
    ("[policy]\nnetwork = \"conv\"\n", "[policy] network must be one of 'mlp'"),
])
def test_a_bad_config_is_refused_naming_the_field_and_what_is_allowed(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ValueError) as err:
        load_config(SOLO.id, path)
    assert message in str(err.value) and str(path) in str(err.value)


def test_a_league_with_every_weight_zero_is_refused(tmp_path):
    from aerodeck.train.league import League

    game = MULTI
    config = default_config(game.id).replace("league", self=0.0, heuristic=0.0, random=0.0)
    with pytest.raises(ValueError, match="must not all be 0"):
        League(game, game.make_rules(), config.league, 0)


def test_a_config_changes_only_what_it_names(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text("[ppo]\nlearning_rate = 1\n[train]\nnum_envs = 8\n")
    config, default = load_config(SOLO.id, path), default_config(SOLO.id)
    assert config.ppo.learning_rate == 1.0 and isinstance(config.ppo.learning_rate, float)
    assert config.train.num_envs == 8
    assert dataclasses.replace(config, ppo=default.ppo, train=default.train) == default


@pytest.mark.parametrize("game_id", GAMES)
def test_the_game_defaults_load_and_round_trip_through_toml(game_id, tmp_path):
    config = default_config(game_id)
    assert isinstance(config, Config)
    assert (config.league is None) == envs.spec(game_id).solo
    path = tmp_path / "again.toml"
    path.write_text(config.to_toml())
    assert merge(Config(league=config.league and LeagueConfig()), load_config(game_id, path).to_dict(), "x") == config


def test_every_field_has_a_type_default_range_and_meaning():
    for table in ("train", "budget", "ppo", "policy", "warm_start", "league"):
        for name, kind, default, allowed, meaning in describe(table):
            assert kind and default and allowed and len(meaning) > 10, (table, name)


@pytest.mark.parametrize("game_id", GAMES)
def test_the_readmes_quick_config_loads_for_every_game(game_id):
    config = load_config(game_id, Path(__file__).parents[2] / "examples" / "train-quick.toml")
    assert config.warm_start.teacher == "heuristic" and config.warm_start.opponent == ""


@pytest.mark.parametrize("game_id", GAMES)
def test_the_expert_iteration_example_config_loads_and_gives_the_teacher_half_the_budget(game_id):
    config = load_config(game_id, Path(__file__).parents[2] / "examples" / "expert-iteration.toml")
    assert config.warm_start.games == 12_000 and config.budget.warm_start == 0.5


ROOT = Path(__file__).parents[2]


def made_with(game_id: str, sidecar: dict) -> dict:
    """A shipped model's config as its sidecar keeps it, with the knobs added since at their defaults
    (the behaviour it was made with)."""
    defaults = default_config(game_id).to_dict()
    return {table: {**defaults[table], **sidecar["config"].get(table, {})} for table in defaults}


REFINES = sorted((ROOT / "examples").glob("refine-*.toml"))


def test_the_refine_examples_name_registered_games():
    assert REFINES and {path.stem.removeprefix("refine-") for path in REFINES} <= set(GAMES)


@pytest.mark.parametrize("path", REFINES, ids=lambda p: p.stem)
def test_each_refine_example_is_the_config_one_of_its_games_shipped_models_was_made_with(path):
    game = path.stem.removeprefix("refine-")
    config = load_config(game, path)
    base = ROOT / config.policy.init  # the first stage, kept beside the model it led to
    assert base.is_file() and base.stem.endswith("-base") and config.warm_start.games == 0
    shipped = ROOT / "agents" / "models"  # the models it led to; the first stage is kept in research/models
    made = [json.loads(side.read_text()) for side in sorted([*base.parent.glob("*.json"), *shipped.glob("*.json")])]
    made = [made_with(game, m) for m in made if m.get("game") == game and "config" in m]
    assert {**config.to_dict(), "policy": {**config.to_dict()["policy"], "init": ""}} in [
        {**m, "policy": {**m["policy"], "init": ""}} for m in made]


GENERALS = sorted((ROOT / "examples").glob("general-*.toml"))


@pytest.mark.parametrize("path", GENERALS, ids=lambda p: p.stem)
def test_each_general_example_is_the_config_its_games_shipped_general_model_was_made_with(path):
    from aerodeck.agents.ppo import shipped_path

    game = envs.spec(path.stem.removeprefix("general-"))
    config = load_config(game.id, path, general=True)
    shipped = shipped_path(game, game.make_rules(), general=True)
    assert made_with(game.id, json.loads(shipped.with_suffix(".json").read_text())) == config.to_dict()


def test_a_relative_init_path_is_read_from_the_working_directory_else_from_the_projects_root(tmp_path, monkeypatch):
    shipped = sorted((ROOT / "agents" / "models").glob("*.zip"))[0].relative_to(ROOT)
    monkeypatch.chdir(tmp_path)
    assert model_file(str(shipped)) == ROOT / shipped  # not here: the project's file
    (tmp_path / shipped).parent.mkdir(parents=True)
    (tmp_path / shipped).write_bytes(b"mine")
    assert model_file(str(shipped)) == shipped  # here: the working directory's own
    assert model_file("nowhere/model.zip") == Path("nowhere/model.zip")  # missing: as given, for the error

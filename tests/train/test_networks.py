"""The policy networks a game offers beyond the MLP (``GameSpec.networks``, ``[policy] network``)."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from aerodeck import envs  # noqa: E402
from aerodeck.agents.registry import make_agent  # noqa: E402
from aerodeck.cli import main as cli  # noqa: E402

NETWORKS = [(game.id, name) for game in envs.specs() for name in game.networks]


@pytest.mark.parametrize("game, network", NETWORKS)
def test_a_model_of_each_network_trains_saves_and_plays_through_the_cli(game, network, tmp_path):
    spec = envs.spec(game)
    config = tmp_path / "network.toml"
    config.write_text(f'[train]\nnum_envs = 8\neval_games = 20\n[policy]\nnetwork = "{network}"\nlocal_width = 16\n'
                      '[warm_start]\nteacher = "heuristic"\ngames = 8\nepochs = 1\n[budget]\nmin_teacher_games = 1\n')
    out = tmp_path / "run"
    assert cli.main(["train", game, "--steps", "256", "--config", str(config), "--out", str(out), "--no-progress"]) == 0
    agent = make_agent(game, f"ppo:path={out / 'best.zip'}", spec.make_rules())
    assert isinstance(agent.policy, spec.network_class(network)) and agent.policy.width == 16
    core = spec.make_core()
    state = core.init(np.arange(4))
    obs, masks = core.observe(state), core.legal_mask(state)
    assert masks[np.arange(4), agent.act(obs, masks)].all()


@pytest.mark.parametrize("game, network", NETWORKS)
def test_a_rule_general_run_of_a_network_that_reads_one_rules_set_is_refused_in_one_line_and_writes_nothing(
        game, network, tmp_path, capsys):
    config = tmp_path / "network.toml"
    config.write_text(f'[policy]\nnetwork = "{network}"\n[warm_start]\ngames = 0\n')
    out = tmp_path / "run"
    assert cli.main(["train", game, "--general", "--steps", "256", "--config", str(config), "--out", str(out),
                     "--no-progress"]) == 2
    assert "it cannot be rule-general" in capsys.readouterr().err and not out.exists()


def test_the_games_offer_their_networks():
    assert NETWORKS  # the suite's games offer at least one, so the test above runs

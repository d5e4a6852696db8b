"""``aerodeck.testing.check_game``: it passes the registered games, and a spec with one entry broken
fails naming that GameSpec field, the check and the case. (Every case of every registered game runs
in ``tests/test_contract.py``; the example plugin runs the whole ``check_game`` in its own tests,
``tests/test_plugin_install.py``.)"""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest

from aerodeck.agents.random import RandomAgent
from aerodeck.envs.registry import GameSpec, load
from aerodeck.testing import CHECKS, ContractError, cases, check_game, run_check
from tests.games import MULTI, SOLO

CHEAP = ["spec_consistency", "core_protocol", "describe_actions", "docs_rule_ids"]


def flaky_core(spec: GameSpec) -> type:
    """The game's core, but each step's rewards carry noise from an unseeded generator."""

    class Flaky(spec.core_class()):
        def step(self, state, actions):
            return super().step(state, actions) + np.float32(np.random.default_rng().random())

    return Flaky


def shifted_env(spec: GameSpec) -> type:
    """The game's single-game env, but ``reset(seed=s)`` deals the game of seed ``s + 1``."""

    class Shifted(load(spec.env)):
        def reset(self, *, seed=None, options=None):
            return super().reset(seed=None if seed is None else seed + 1, options=options)

    return Shifted


class IllegalAgent(RandomAgent):
    """Plays the first illegal action of each row."""

    def act(self, observations, masks, view=None, keys=None):
        return np.argmin(masks, axis=1).astype(np.int64)


@pytest.mark.parametrize("spec", [SOLO, MULTI], ids=["solo", "multi"])
def test_check_game_passes_a_registered_game(spec):
    for by in (spec.id, spec):
        results = check_game(by, only=CHEAP)
        assert [case.check for case, _ in results] == [c.check for c in cases(spec, CHEAP)]
        assert {outcome for _, outcome in results} == {"passed"}


def test_a_core_that_breaks_determinism_fails_naming_the_core():
    broken = dataclasses.replace(SOLO, core=flaky_core(SOLO))
    with pytest.raises(ContractError) as err:
        check_game(broken, only=["core_protocol", "determinism"])
    assert (err.value.field, err.value.check) == ("core", "determinism")
    assert str(err.value).startswith(f"GameSpec {SOLO.id!r} fails {len(SOLO.variants)} checks")
    assert f"GameSpec {SOLO.id!r}, field 'core': check 'determinism' (variant v0" in str(err.value)
    assert all(f.field == "core" and f.check == "determinism" for f in err.value.failures)


def test_an_env_that_deals_another_game_fails_naming_the_env():
    broken = dataclasses.replace(SOLO, env=shifted_env(SOLO))
    with pytest.raises(ContractError, match=r"field 'env': check 'env_agrees_with_core' \(variant v1") as err:
        check_game(broken, only=["env_agrees_with_core"])
    assert err.value.field == "env" and len(err.value.failures) == len(SOLO.variants)


def test_an_agent_that_plays_illegal_moves_fails_naming_the_agents(tmp_path):
    name = MULTI.opponent
    broken = dataclasses.replace(MULTI, agents={**MULTI.agents, name: IllegalAgent})
    with pytest.raises(ContractError, match=f"field 'agents': check 'ladder_agents' \\(agent '{name}'\\) failed: .*illegal"):
        run_check(broken, "ladder_agents", name)
    run_check(MULTI, "ladder_agents", name)


def test_a_training_config_without_its_tables_fails_naming_the_field(tmp_path):
    path = tmp_path / "training.toml"
    path.write_text("[train]\nsteps = 10\n", encoding="utf-8")
    broken = dataclasses.replace(SOLO, training_config=path)
    with pytest.raises(ContractError, match="field 'training_config': check 'spec_consistency' failed: .*lacks one of"):
        check_game(broken, only=["spec_consistency"])


def test_every_failure_is_listed_with_its_own_field():
    broken = dataclasses.replace(SOLO, core=flaky_core(SOLO), env=shifted_env(SOLO))
    with pytest.raises(ContractError) as err:
        check_game(broken, only=["determinism", "env_agrees_with_core"])
    assert {(f.field, f.check) for f in err.value.failures} == {("core", "determinism"), ("env", "env_agrees_with_core")}


def test_a_check_without_its_optional_package_is_skipped_with_a_note(monkeypatch):
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)  # import stable_baselines3 -> ImportError
    ((case, outcome),) = check_game(SOLO, only=["sb3_vecenv"])
    assert case.check == "sb3_vecenv" and outcome.startswith("skipped: stable-baselines3 is not installed")


def test_unknown_checks_and_cases_are_refused_naming_the_known_ones():
    with pytest.raises(ValueError, match="unknown checks \\['no_such_check'\\]; the checks: core_protocol, "):
        check_game(SOLO, only=["no_such_check"])
    with pytest.raises(ValueError, match="has no case 'v99'.*its cases: v0, v1"):
        run_check(SOLO, "determinism", "v99")


def test_every_check_blames_a_field_of_the_spec_and_says_what_it_checks():
    fields = {f.name for f in dataclasses.fields(GameSpec)}
    assert {check.field for check in CHECKS.values()} <= fields
    assert all(check.doc for check in CHECKS.values())


def test_a_ladder_naming_an_unknown_agent_fails_naming_the_ladder():
    broken = dataclasses.replace(SOLO, ladder=((("nobody:depth=2",), 10),))
    with pytest.raises(ContractError, match=r"field 'ladder': check 'spec_consistency'.*the ladder names unknown "
                                            r"agents \['nobody'\]"):
        check_game(broken, only=["spec_consistency"])

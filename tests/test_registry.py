"""The registry: GameSpec checks its own declaration, and games from other packages join through the
entry-point group ``aerodeck.games`` — a broken plugin is an error naming it."""

from __future__ import annotations

import dataclasses
from importlib.metadata import EntryPoint

import pytest
from gymnasium.envs.registration import registry as gym_registry

from aerodeck import envs
from aerodeck.envs import registry

#: A spec to copy under another id (any registered game will do).
BASE = envs.specs()[0]
SPARE = dataclasses.replace(BASE, id="spare-game", gym_id="aerodeck/SpareGame-v0" if BASE.gym_id else None)
RENAMED = dataclasses.replace(BASE, id="renamed-game")
TWIN = dataclasses.replace(BASE)


@pytest.fixture
def plugins(monkeypatch):
    """Install fake ``aerodeck.games`` entry points: ``plugins(name=value, ...)``; the registry is
    restored afterwards."""
    monkeypatch.setattr(registry, "GAMES", dict(registry.GAMES))
    monkeypatch.setattr(registry, "_PLUGGED", set(registry._PLUGGED))
    monkeypatch.setattr(registry, "_SCANNED", False)

    def install(**entries):
        points = [EntryPoint(name, value, registry.ENTRY_POINT_GROUP) for name, value in entries.items()]
        monkeypatch.setattr(registry.importlib.metadata, "entry_points",
                            lambda group: points if group == registry.ENTRY_POINT_GROUP else [])

    yield install
    gym_registry.pop("aerodeck/SpareGame-v0", None)


def test_a_plugin_game_joins_the_registry_and_gymnasium(plugins):
    plugins(**{"spare-game": f"{__name__}:SPARE"})
    assert "spare-game" in envs.games()
    assert envs.spec("spare-game") is SPARE
    if SPARE.gym_id:
        assert SPARE.gym_id in gym_registry


@pytest.mark.parametrize(("name", "value", "message"), [
    ("broken", "no_such_module_for_aerodeck:SPEC", r"game plugin 'broken' \(entry point 'no_such_module_for_aerodeck:SPEC'"
                                                   r".*failed to load: ModuleNotFoundError"),
    ("wrong-object", "aerodeck.envs.registry:RANDOM", r"game plugin 'wrong-object' .* loads a str, not an envs.registry.GameSpec"),
    ("other-name", f"{__name__}:RENAMED", r"game plugin 'other-name' .* loads the game 'renamed-game': name the entry "
                                          r"point after the game's id"),
    (BASE.id, f"{__name__}:TWIN", rf"game plugin '{BASE.id}' .* the game id '{BASE.id}' is already registered"),
])
def test_a_broken_plugin_is_an_error_naming_it(plugins, name, value, message):
    plugins(**{name: value})
    with pytest.raises(registry.PluginError, match=message):
        envs.games()


@pytest.mark.parametrize(("changes", "message"), [
    ({"id": "Bad Id"}, "GameSpec id 'Bad Id' must be lowercase words joined by '-'"),
    ({"opponent": "nobody"}, "opponent 'nobody' is not an agent of the game; agents: random"),
    ({"prior": "nobody"}, "prior 'nobody' is not an agent of the game"),
    ({"variants": ()}, "variants must be a non-empty tuple"),
    ({"rule_prefix": ""}, "rule_ids need a rule_prefix"),
])
def test_a_spec_refuses_an_inconsistent_declaration(changes, message):
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(BASE, **changes)


def test_a_solo_game_has_no_players_option_and_a_multi_player_game_has_one():
    with pytest.raises(ValueError, match="a solo game has player_counts"):
        dataclasses.replace(BASE, player_counts=(2, 3), players_option=None)
    with pytest.raises(ValueError, match="a solo game has player_counts"):
        dataclasses.replace(BASE, player_counts=(1,), players_option="n_players")


def test_players_of_the_rules_for_every_game():
    for spec in envs.specs():
        for options in spec.variants:
            rules = spec.make_rules(**options)
            assert spec.players(rules) == spec.make_core(rules).n_players


def test_a_resource_must_name_a_package_and_a_path():
    with pytest.raises(ValueError, match="must be 'package:relative/path'"):
        registry.resource("no-colon.md")
    with pytest.raises(ValueError, match="no package 'no_such_package_for_aerodeck'"):
        registry.resource("no_such_package_for_aerodeck:x.md")

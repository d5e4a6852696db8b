"""The benchmark's tasks are declared by the games (``GameSpec.tasks``: a ``tasks.toml`` in the game's folder)
and read through the registry: every task belongs to the game whose file declares it, in the registry's
order with the single-rules tasks first; a malformed table is refused in one line naming the file and the task."""

from __future__ import annotations

import dataclasses

import pytest

from aerodeck import envs
from aerodeck.bench import tasks as T


def test_every_task_is_declared_by_its_games_tasks_file():
    declared = T.read_definitions()
    assert list(declared) == T.names() and declared == T.DEFINITIONS
    for name, d in declared.items():
        task = T.task(name)
        assert task.game == d.game and task.spec.tasks_path() is not None
        assert task.eval_games == d.eval_games and task.search_games == d.search_games
        assert task.general == d.general and task.population == d.population and tuple(task.opponents) == d.opponents
        if not d.general:
            assert task.rules == task.spec.make_rules(**d.rules)
            assert len(task.opponents) == (0 if task.spec.solo else task.players - 1) or task.population
    generals = [d.general for d in declared.values()]
    assert generals == sorted(generals)  # the single-rules tasks first


def test_a_multi_player_task_trains_on_its_games_learner_view():
    name = next(n for n, d in T.DEFINITIONS.items() if not d.general and not envs.spec(d.game).solo)
    task = T.task(name)
    env = task.make_vec_env(4, seed=1)
    assert isinstance(env, envs.registry.load(task.spec.learner))
    obs, masks = env.reset()
    assert obs.shape[0] == masks.shape[0] == 4 and masks.any(axis=1).all()


def planted(tmp_path, spec, text: str):
    path = tmp_path / "tasks.toml"
    path.write_text(text, encoding="utf-8")
    return dataclasses.replace(spec, tasks=path)


def test_a_malformed_task_table_is_refused_in_one_line_naming_the_file_and_the_task(tmp_path):
    spec = envs.specs()[0]
    with pytest.raises(ValueError, match=rf"^tasks.toml of {spec.id}: task x-v0: unknown keys \['oponents'\]; "
                                         r"the keys: rules, opponents"):
        T.read_definitions([planted(tmp_path, spec, '[x-v0]\neval_games = 10\noponents = ["random"]\n')])
    with pytest.raises(ValueError, match=rf"^tasks.toml of {spec.id}: task x-v0: eval_games .* is missing$"):
        T.read_definitions([planted(tmp_path, spec, '[x-v0]\ndescription = "no deals"\n')])
    taken = next(iter(T.DEFINITIONS))
    with pytest.raises(ValueError, match=rf"task {taken}: the name is already a task of {T.DEFINITIONS[taken].game}$"):
        T.read_definitions([*envs.specs(), planted(tmp_path, spec, f'[{taken}]\neval_games = 10\n')])

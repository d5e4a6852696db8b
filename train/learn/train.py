"""``aerodeck train GAME``: MaskablePPO on the game's batched core, from config to saved model.

One straight script in the manner of CleanRL's, read top to bottom by :func:`main`:

1. the run — the rules (``--rule/--rules/--table/--players``, as ``bench``), the config (the game's
   defaults in ``train/learn/configs/<game>.toml``, then ``--config FILE.toml``), the budget (``--steps`` or
   ``--minutes``) and the output folder (``--out``, default ``runs/<game>-<time>``);
2. the environments — the game's SB3 ``VecEnv`` over its batched core; in a multi-player game the
   learner plays one seat (rotated) against the opponent pool of :mod:`train.learn.league`;
3. the model — a new MaskablePPO, optionally warm-started by behaviour cloning of a teacher agent
   (:func:`warm_start`), or the run's last checkpoint (``--resume``);
4. the callbacks — progress bar, evaluation against the heuristic on fixed seeds (the ``aerodeck bench``
   figures, with confidence intervals), checkpoints and the best model, throughput, league snapshots;
5. training, then the last model.

The output folder, written as training goes (each file atomically, so an interrupted run keeps its
checkpoints and ``--resume`` continues it)::

    config.toml             the config in use (defaults and --config merged)
    tb/                     TensorBoard event files: rollout/, train/, eval/, time/, league/, warm_start/
    evaluations.csv         one row per evaluation (steps, seconds, figure, interval)
    checkpoints/step-N.zip  every [train] checkpoint_every steps, each with its sidecar step-N.json
    best.zip, best.json     the best model by evaluation
    last.zip, last.json     the latest model (what --resume continues)

A sidecar holds the game, the rules (``rules.to_dict()``), the layouts (``agents.ppo.layout_of``), what the
policy reads, the package version, the command and config, the steps and the evaluation figures:
``aerodeck bench GAME --agent ppo:path=OUT/best.zip`` plays the model.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import csv
import datetime
import json
import math
import os
import shlex
import shutil
import signal
import sys
import time
import tomllib
import zipfile
from pathlib import Path

import numpy as np

import envs
from train.evaluate.bench import add_rules_arguments, load_rules, seed_arg

#: The default config of each game: ``train/learn/configs/<game>.toml``.
CONFIGS = Path(__file__).parent / "configs"
#: Activation functions a config may name (``[policy] activation``).
ACTIVATIONS = ("tanh", "relu")
#: The arrays of the teacher's decisions (:func:`teacher_decisions`).
DECISION_KEYS = ("inputs", "masks", "actions", "returns", "games", "seats")


def add_parser(sub) -> None:
    """Register ``aerodeck train``."""
    p = sub.add_parser(
        "train",
        help="train a MaskablePPO agent (self-play league for multi-player games; TensorBoard, checkpoints)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("game", choices=envs.games())
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--steps", type=int, metavar="N", help="environment steps of PPO to train (default: the "
                        "config's [train] steps)")
    budget.add_argument("--minutes", type=float, metavar="M", help="train for M minutes of wall time (warm start included)")
    p.add_argument("--num-envs", type=int, metavar="N", help="games stepped at once (default: the config's [train] num_envs)")
    p.add_argument("--seed", type=seed_arg, help="seed of the games, the network and the opponents (default 0; "
                   "--resume keeps the run's)")
    p.add_argument("--config", type=Path, metavar="FILE.toml", help="hyperparameters over the game's defaults "
                   "(train/learn/configs/<game>.toml lists and documents every one)")
    add_rules_arguments(p)
    p.add_argument("--players", type=int, help="multi-player games: number of players")
    p.add_argument("--out", type=Path, help="output folder (default runs/<game>-<date>-<time>)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its last checkpoint "
                   "(its rules and config; --steps/--minutes is the budget of this session)")
    p.add_argument("--threads", type=int, metavar="N", help="CPU threads torch uses (default: torch's own choice)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(func=main)


# --- 1. configs --------------------------------------------------------------------------------------------


def default_config(game: str) -> dict:
    """The documented defaults of ``game`` (``train/learn/configs/<game>.toml``) as nested dicts."""
    return tomllib.loads((CONFIGS / f"{game}.toml").read_text(encoding="utf-8"))


def merge_config(base: dict, changes: dict, where: str) -> dict:
    """``base`` with the tables of ``changes`` over it; an unknown table or key, or a value of another
    type than the default's (an integer where a number is expected is fine), raises ``ValueError``
    naming it and what is allowed."""
    merged = copy.deepcopy(base)
    for table, items in changes.items():
        if table not in base or not isinstance(items, dict):
            raise ValueError(f"{where}: unknown table [{table}]; allowed tables: "
                             + ", ".join(f"[{t}]" for t in base))
        for key, value in items.items():
            if key not in base[table]:
                raise ValueError(f"{where}: [{table}] has no key {key!r}; allowed: {', '.join(base[table])}")
            default = base[table][key]
            same = type(value) is type(default) or (isinstance(default, float) and type(value) is int)
            if not same:
                raise ValueError(f"{where}: [{table}] {key} must be {type(default).__name__} "
                                 f"(like the default {default!r}), got {value!r}")
            merged[table][key] = float(value) if isinstance(default, float) else value
    return merged


def load_config(game: str, path: Path | None) -> dict:
    """The config of a run: the game's defaults with the tables of the TOML file ``path`` over them."""
    config = default_config(game)
    if path is None:
        return config
    try:
        changes = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"config file {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise ValueError(f"config file {str(path)!r} is a folder; give a TOML file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise ValueError(f"config file {str(path)!r} is not valid TOML: {err}") from None
    return check_config(merge_config(config, changes, str(path)))


def check_config(config: dict) -> dict:
    """Refuse values no run can use (``ValueError`` naming the key and what is allowed)."""
    positive = [("train", "num_envs"), ("train", "steps"), ("train", "eval_games"), ("ppo", "n_steps"),
                ("ppo", "batch_size"), ("ppo", "n_epochs"), ("train", "checkpoint_every"), ("train", "eval_every")]
    for table, key in positive:
        if config[table][key] < 1:
            raise ValueError(f"[{table}] {key} must be at least 1, got {config[table][key]}")
    ppo = config["ppo"]
    for key in ("learning_rate", "gamma", "gae_lambda", "clip_range"):
        if not 0 < ppo[key] <= 1:
            raise ValueError(f"[ppo] {key} must be in (0, 1], got {ppo[key]}")
    for key in ("ent_coef", "ent_coef_end", "vf_coef", "max_grad_norm", "target_kl"):
        if not (ppo[key] >= 0 and math.isfinite(ppo[key])):
            raise ValueError(f"[ppo] {key} must be a finite number >= 0, got {ppo[key]}")
    policy = config["policy"]
    if not policy["net_arch"] or not all(isinstance(w, int) and w > 0 for w in policy["net_arch"]):
        raise ValueError(f"[policy] net_arch must be a list of positive layer widths, got {policy['net_arch']}")
    if policy["activation"] not in ACTIVATIONS:
        raise ValueError(f"[policy] activation must be one of {', '.join(ACTIVATIONS)}, got {policy['activation']!r}")
    from agents.ppo import PRIOR_TIES, RANK_STEP

    if not 0 <= policy["prior_ranks"] < 1 / RANK_STEP:
        raise ValueError(f"[policy] prior_ranks must be from 0 to {int(1 / RANK_STEP) - 1}, got {policy['prior_ranks']}")
    if policy["prior_ties"] not in PRIOR_TIES:
        raise ValueError(f"[policy] prior_ties must be one of {', '.join(PRIOR_TIES)}, got {policy['prior_ties']!r}")
    warm = config["warm_start"]
    for key in ("play_batch", "workers"):
        if warm[key] < 1:
            raise ValueError(f"[warm_start] {key} must be at least 1, got {warm[key]}")
    for key in ("games", "epochs"):
        if warm[key] < 0:
            raise ValueError(f"[warm_start] {key} must be at least 0, got {warm[key]}")
    if "league" in config:
        from train.learn.league import check_league_config

        check_league_config(config["league"])
    return config


def config_toml(config: dict) -> str:
    """``config`` written back as TOML (tables of numbers, strings, booleans and lists)."""
    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(value(x) for x in v) + "]"
        return json.dumps(v) if isinstance(v, str) else repr(v)

    return "\n".join(f"[{t}]\n" + "".join(f"{k} = {value(v)}\n" for k, v in items.items())
                     for t, items in config.items())


# --- 2. environments ---------------------------------------------------------------------------------------


def learner_env(venv, inputs):
    """The VecEnv PPO learns on: ``venv`` as the policy reads it (``inputs``, an ``agents.ppo.Inputs``:
    the observation, then perhaps the mask and a prior's preferences) and timed (the seconds spent
    stepping it and building those inputs, for the throughput figures)."""
    import gymnasium
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class LearnerEnv(VecEnvWrapper):
        """The game's VecEnv as the policy reads it, with the time spent in it counted."""

        def __init__(self) -> None:
            self.obs_size, n_actions = venv.observation_space.shape[0], venv.action_space.n
            size = inputs.size(self.obs_size, n_actions)
            super().__init__(venv, observation_space=gymnasium.spaces.Box(0.0, 1.0, (size,), np.float32))
            self.inputs = inputs
            self.env_seconds = 0.0
            self.masks = np.zeros((venv.num_envs, n_actions), bool)

        def reset(self) -> np.ndarray:
            began = time.perf_counter()
            obs = self.venv.reset()
            self.masks = self.venv.action_masks()
            x = inputs(obs, self.masks)
            self.env_seconds += time.perf_counter() - began
            return x

        def step_wait(self):
            began = time.perf_counter()
            obs, rewards, dones, infos = self.venv.step_wait()
            self.masks = self.venv.action_masks()
            x = inputs(obs, self.masks)
            width = x.shape[1] - self.obs_size
            for i in np.flatnonzero(dones):  # a finished game: no legal action, no preference
                infos[i]["terminal_observation"] = np.concatenate([infos[i]["terminal_observation"], np.zeros(width, np.float32)])
            self.env_seconds += time.perf_counter() - began
            return x, rewards, dones, infos

        def env_method(self, method_name: str, *args, indices=None, **kwargs):
            if method_name == "action_masks":  # what MaskablePPO asks before every step: the rows we hold
                return [self.masks[i] for i in self._get_indices(indices)]
            return self.venv.env_method(method_name, *args, indices=indices, **kwargs)

        def action_masks(self) -> np.ndarray:
            return self.masks.copy()

    return LearnerEnv()


# --- 3. warm start -----------------------------------------------------------------------------------------


def teacher_decisions(core, teacher, seeds, inputs, gamma: float, batch_size: int = 2048, opponent=None,
                      make_view=None, first_game: int = 0) -> dict:
    """Play one game per seed with ``teacher``; its decisions as training data.

    The games are numbered from ``first_game`` (``seeds[j]`` is game ``first_game + j``). Without
    ``opponent`` the teacher plays every seat and every decision is kept; with one (an agent),
    the teacher plays one seat of each game (game i: seat i mod n, so every seat is taught equally)
    and ``opponent`` the others, and only the teacher's decisions are kept. Agents with
    ``needs_view`` (the search agents) get their look-ahead view from ``make_view(core, state, seats)``
    (``GameSpec.make_view``).

    Returns ``inputs`` ``float16 (N, ·)`` (what the policy reads of the seat to act's observation and
    mask, ``inputs`` an ``agents.ppo.Inputs``), ``masks`` ``bool (N, A)``,
    ``actions`` ``int64 (N,)`` and ``returns`` ``float32 (N,)``: the seat's discounted return from
    that decision on, discounted once per decision of that seat (what PPO's value function learns);
    ``games`` ``int64 (N,)`` (the decision's game number) and ``seats`` ``int64 (N,)`` (the seat that
    decided).
    """
    parts: dict[str, list] = {"inputs": [], "masks": [], "actions": [], "returns": [], "games": [], "seats": []}
    n = core.n_players
    for start in range(0, len(seeds), batch_size):
        chunk = seeds[start:start + batch_size]
        state = core.init(chunk)
        ids = np.arange(len(chunk))
        taught = (first_game + start + ids) % n if opponent is not None else None  # the teacher's seat in each game
        steps = []
        while ids.size:
            masks = core.legal_mask(state)
            obs = core.observe(state)
            seat = core.to_act(state)
            mine = np.ones(ids.size, bool) if taught is None else seat == taught[ids]
            actions = np.zeros(ids.size, np.int64)
            for agent, rows in ((teacher, np.flatnonzero(mine)), (opponent, np.flatnonzero(~mine))):
                if rows.size:
                    view = (make_view(core, state.take(rows), seat[rows])
                            if make_view is not None and agent.needs_view else None)
                    actions[rows] = agent.act(obs[rows], masks[rows], view)
            rewards = np.asarray(core.step(state, actions), np.float64).reshape(ids.size, n)
            kept = inputs(obs[mine], masks[mine]).astype(np.float16)
            steps.append((ids, seat, mine, kept, masks[mine], actions[mine], rewards))
            live = np.flatnonzero(~state.done)
            if live.size < ids.size:
                ids, state = ids[live], state.take(live)
        ret_next = np.zeros((len(chunk), n))  # by game and seat: the return at the seat's next decision
        between = np.zeros_like(ret_next)
        for ids, seat, mine, obs, masks, actions, rewards in reversed(steps):
            between[ids] += rewards  # every seat's rewards since its next decision
            ret = between[ids, seat] + gamma * ret_next[ids, seat]
            ret_next[ids, seat], between[ids, seat] = ret, 0.0
            for key, value in zip(parts, (obs, masks, actions, ret[mine].astype(np.float32), first_game + start + ids[mine],
                                          seat[mine].astype(np.int64))):
                parts[key].append(value)
    return {key: np.concatenate(value) for key, value in parts.items()}


def teacher_chunk(game_id: str, rules, warm: dict, inputs: dict, seed: int, gamma: float, start: int,
                  count: int) -> dict:
    """The teacher's decisions (:func:`teacher_decisions`) in games ``start … start+count−1`` of the
    warm start (``warm``: the config's ``[warm_start]``; ``inputs``: ``Inputs.to_dict()``). A
    self-contained task, as :mod:`train.judge.backends` plays them: the teacher and the opponent are seeded
    from (``seed``, chunk ``start // play_batch``), so the decisions do not depend on which process
    plays which chunk."""
    from agents.ppo import Inputs
    from agents.registry import make_agent
    from train.judge.backends import agent_seeds
    from train.evaluate.loop import game_seeds

    game = envs.spec(game_id)
    teacher_seed, opponent_seed = agent_seeds(seed, start // warm["play_batch"], 2)
    teacher = make_agent(game_id, warm["teacher"], rules, seed=teacher_seed)
    opponent = make_agent(game_id, warm["opponent"], rules, seed=opponent_seed) if warm["opponent"] else None
    return teacher_decisions(game.make_core(rules), teacher, game_seeds(warm["seed"], count, start),
                             Inputs.make(game_id, rules, **inputs), gamma, count, opponent=opponent,
                             make_view=game.make_view, first_game=start)


def play_teacher(game_id: str, rules, warm: dict, inputs: dict, seed: int, gamma: float, workers: int = 1,
                 done=lambda games: None) -> dict:
    """The teacher's decisions over the warm start's ``warm["games"]`` games, ``warm["play_batch"]`` at a
    time (:func:`teacher_chunk`), in ``workers`` processes (no more than there are chunks; 1: here);
    ``done(games)`` is called as each chunk ends. The same decisions, in game order, whatever ``workers``."""
    games, batch = warm["games"], warm["play_batch"]
    tasks = [(game_id, rules, warm, inputs, seed, gamma, start, min(batch, games - start))
             for start in range(0, games, batch)]
    workers = min(workers, len(tasks))
    if workers <= 1:
        parts = []
        for task in tasks:
            parts.append(teacher_chunk(*task))
            done(task[-1])
    else:
        import concurrent.futures
        import multiprocessing

        with concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(teacher_chunk, *task): task[-1] for task in tasks}
            try:
                for future in concurrent.futures.as_completed(futures):
                    future.result()  # a failed chunk stops the play at once
                    done(futures[future])
            except BaseException:
                pool.shutdown(cancel_futures=True)
                raise
            parts = [future.result() for future in futures]
    return {key: np.concatenate([part[key] for part in parts]) for key in DECISION_KEYS}


def save_decisions(path: Path, data: dict, meta: dict) -> None:
    """Write the teacher's decisions (:func:`teacher_decisions`) and ``meta`` (what made them, a
    JSON-able dict) to the npz file ``path``, atomically."""
    part = path.with_name(path.name + ".part")
    with open(part, "wb") as f:
        np.savez_compressed(f, **data, meta=np.array(json.dumps(meta)))
    os.replace(part, path)


def load_decisions(path: Path, meta: dict) -> tuple[dict, dict]:
    """The decisions saved by :func:`save_decisions` at ``path`` and their stored meta, if every key of
    ``meta`` has the same value there; else ``ValueError`` naming the file and what differs."""
    where = f"[warm_start] decisions = {str(path)!r}"
    try:
        with np.load(path) as f:
            stored = json.loads(str(f["meta"]))
            data = {key: f[key] for key in DECISION_KEYS}
    except FileNotFoundError:
        raise ValueError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise ValueError(f"{where}: a folder; give the warm_start.npz of a run") from None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        raise ValueError(f"{where}: not the teacher's decisions written by aerodeck train ({err})") from None
    differ = [f"{key} (file {stored.get(key)!r}, this run {value!r})" for key, value in meta.items() if stored.get(key) != value]
    if differ:
        raise ValueError(f"{where} was made for another run: " + "; ".join(differ))
    return data, stored


def reread_inputs(data: dict, stored: dict, inputs, obs_size: int) -> np.ndarray:
    """The saved decisions' policy inputs as ``inputs`` (:class:`agents.ppo.Inputs`) reads them:
    unchanged if they were saved under the same inputs (``stored``: their ``to_dict()``), else
    computed anew from the observations they begin with and the saved masks (the teacher's games do
    not depend on what the student reads, so one teacher's games serve students of every kind)."""
    from agents.ppo import CHUNK, Inputs

    if {**Inputs().to_dict(), **stored} == inputs.to_dict():
        return data["inputs"]
    return np.concatenate([inputs(data["inputs"][i:i + CHUNK, :obs_size], data["masks"][i:i + CHUNK])
                           for i in range(0, len(data["masks"]), CHUNK)])


def warm_start(model, data: dict, epochs: int, batch_size: int, learning_rate: float, seed: int,
               log=None, holdout: float = 0.1) -> list[tuple[float, float]]:
    """Behaviour cloning: fit the policy of ``model`` to the teacher's actions (masked cross-entropy)
    and its value function to the teacher's returns (mean squared error, weighted by ``vf_coef``),
    ``epochs`` passes over ``data`` (:func:`teacher_decisions`) less a held-out share ``holdout`` of
    its decisions. ``log(epoch, loss, accuracy, held_out)`` is called before the first pass (epoch 0:
    the untrained policy, loss NaN) and after each. Returns (accuracy, held-out accuracy) after each
    pass: the share of the teacher's actions that are the policy's most likely."""
    import torch

    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(data["actions"]))
    held = order[:int(len(order) * holdout)]
    train = order[len(held):]

    def batches(rows):
        for part in np.array_split(rows, max(1, len(rows) // batch_size)):
            masks = torch.as_tensor(data["masks"][part])
            x = torch.as_tensor(data["inputs"][part], dtype=torch.float32)
            features = policy.extract_features(x, policy.pi_features_extractor)
            latent_pi, latent_vf = policy.mlp_extractor(features)
            logits = policy.action_net(latent_pi).masked_fill(~masks, -1e9)
            yield part, logits, policy.value_net(latent_vf).squeeze(-1), torch.as_tensor(data["actions"][part])

    def held_out_accuracy() -> float:
        with torch.no_grad():
            hits = sum(int((logits.argmax(1) == actions).sum()) for _, logits, _, actions in batches(held))
        return hits / len(held) if len(held) else math.nan

    if log is not None:
        log(0, math.nan, math.nan, held_out_accuracy())
    accuracies = []
    for epoch in range(epochs):
        policy.set_training_mode(True)
        total, hits = 0.0, 0
        for part, logits, values, actions in batches(rng.permutation(train)):
            loss = torch.nn.functional.cross_entropy(logits, actions) \
                + model.vf_coef * torch.nn.functional.mse_loss(values, torch.as_tensor(data["returns"][part]))
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), model.max_grad_norm)
            optimizer.step()
            total += loss.item() * len(part)
            hits += int((logits.argmax(1) == actions).sum())
        policy.set_training_mode(False)
        accuracies.append((hits / max(len(train), 1), held_out_accuracy()))
        if log is not None:
            log(epoch + 1, total / max(len(train), 1), *accuracies[-1])
    return accuracies


# --- 4. evaluation and saving ------------------------------------------------------------------------------


def evaluate(game, rules, agent, games: int, seed: int) -> dict:
    """The ``aerodeck bench`` figures of ``agent`` against the heuristic on fixed seeds.

    Solo games: both play the same ``games`` deals; ``value`` is the agent's mean score, with its
    interval and the paired difference to the heuristic. Multi-player games: a seat-rotated table of
    the agent and n−1 heuristic players; ``value`` is the agent's win rate (fair share 1/n) with its
    interval."""
    from agents.registry import make_agent
    from train.evaluate.bench import bench_solo, bench_tournament

    heuristic = make_agent(game.id, "heuristic", rules, seed=seed + 1)
    if game.solo:
        result = bench_solo(game, rules, ["ppo", "heuristic"], [agent, heuristic], [games, games], seed, progress=False)
        mine = result["agents"]["ppo"]["mean_score"]
        gap = next(c for c in result["comparisons"] if c["agent"] == "heuristic")["mean_score_difference"]
        return {"figure": "mean_score", "value": mine["value"], "low": mine["low"], "high": mine["high"],
                "games": games, "heuristic": result["agents"]["heuristic"]["mean_score"]["value"],
                # the agent minus the heuristic on the same deals (bench reports heuristic − agent)
                "difference": {"value": -gap["value"], "low": -gap["high"], "high": -gap["low"]}}
    n = getattr(rules, game.players_option)
    result = bench_tournament(game, rules, ["ppo", "heuristic"], [agent, heuristic], games, seed,
                              lineup=[0] + [1] * (n - 1), progress=False)
    mine = result["agents"]["ppo"]["win_rate"]
    return {"figure": "win_rate", "value": mine["value"], "low": mine["low"], "high": mine["high"],
            "games": result["games"], "fair_share": 1.0 / n, "table": f"1 ppo + {n - 1} heuristic, seats rotated"}


def export_model(source, target) -> None:
    """Copy the model ``source`` and its sidecar to ``target`` without the optimizer's moments and the
    last batch of observations: all that playing needs, at about a third of the size (how the shipped
    models in ``agents/models/`` are made from a run's ``best.zip``)."""
    from sb3_contrib import MaskablePPO

    from agents.ppo import read_sidecar

    source, target = Path(source), Path(target)
    model = MaskablePPO.load(source, device="cpu", custom_objects={"lr_schedule": lambda _: 0.0,
                                                                   "learning_rate": 0.0, "clip_range": lambda _: 0.0})
    policy = model.policy
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=0.0, **policy.optimizer_kwargs)
    model._last_obs = model._last_original_obs = model._last_episode_starts = None  # the last batch of inputs
    model.ep_info_buffer.clear()
    model.ep_success_buffer.clear()
    save_model(model, target, {**read_sidecar(source), "exported_from": str(source)})


def save_model(model, path: Path, sidecar: dict) -> None:
    """Write the SB3 zip ``path`` and its sidecar JSON, each atomically (a temporary file, then renamed)."""
    from agents.ppo import sidecar_path
    from train.output import write_file

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.partial")
    model.save(tmp)
    os.replace(tmp, path)
    write_file(sidecar_path(path), json.dumps(sidecar, indent=2) + "\n")


# --- 5. callbacks ------------------------------------------------------------------------------------------


def callbacks(run: dict, model, venv, league, progress: bool):
    """The callbacks of a run (see :func:`main`): one object so their order and shared state stay visible."""
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm.auto import tqdm

    from agents.ppo import PPOAgent

    class RunCallbacks(BaseCallback):
        """Progress, evaluation + best, checkpoints, throughput and the league, at every step and update."""

        def _on_training_start(self) -> None:
            self.began = time.perf_counter()
            self.start_steps = self.num_timesteps
            self.next_eval = self.num_timesteps + run["eval_every"]
            self.next_checkpoint = self.num_timesteps + run["checkpoint_every"]
            self.env_seconds_at_start = venv.env_seconds
            self.updates = 0
            self.latest = ""
            self.bar = tqdm(total=run["steps"] or 0, unit="step", unit_scale=True, desc=run["game"].id,
                            disable=not progress, dynamic_ncols=True)
            if self.num_timesteps == 0:  # the starting point (the warm-started policy) is a candidate for best
                self.evaluate()

        def progress(self) -> float:
            """The share of the budget (steps or seconds) used, 0 … 1."""
            if run["seconds"] is not None:
                return min(1.0, (time.perf_counter() - self.began) / run["seconds"])
            return min(1.0, (self.num_timesteps - self.start_steps) / run["steps"])

        def _on_rollout_start(self) -> None:
            self.rollout_began = time.perf_counter()
            self.rollout_env = venv.env_seconds
            self.rollout_steps = self.num_timesteps
            if league is not None and self.updates and self.updates % league.snapshot_every == 0:
                league.add_snapshot(self.model.policy, self.num_timesteps)
            self.updates += 1
            self.model.ent_coef = run["ent_coef"](self.progress())

        def _on_step(self) -> bool:
            if league is not None:
                league.record(self.locals["infos"], self.locals["dones"])
            done = self.num_timesteps - self.start_steps
            elapsed = time.perf_counter() - self.began
            if run["seconds"] is not None:  # a time budget: the bar's total follows the rate
                self.bar.total = int(done + done / max(elapsed, 1e-9) * max(run["seconds"] - elapsed, 0))
            self.bar.n = min(done, self.bar.total)
            self.bar.set_postfix_str(f"{done / max(elapsed, 1e-9):,.0f} steps/s{self.latest}", refresh=False)
            self.bar.update(0)
            if self.num_timesteps >= self.next_eval:
                self.next_eval += run["eval_every"]
                self.evaluate()
            if self.num_timesteps >= self.next_checkpoint:
                self.next_checkpoint += run["checkpoint_every"]
                self.checkpoint()
            return run["seconds"] is None or elapsed < run["seconds"]

        def _on_rollout_end(self) -> None:
            seconds = time.perf_counter() - self.rollout_began
            total = time.perf_counter() - self.began
            steps = self.num_timesteps - self.rollout_steps
            record = self.logger.record
            record("time/rollout_steps_per_s", steps / max(seconds, 1e-9))
            record("time/env_steps_per_s", (self.num_timesteps - self.start_steps) / max(total, 1e-9))
            record("time/env_share", (venv.env_seconds - self.env_seconds_at_start) / max(total, 1e-9))
            record("time/env_share_of_rollout", (venv.env_seconds - self.rollout_env) / max(seconds, 1e-9))
            record("train/ent_coef", self.model.ent_coef)
            if league is not None:
                for name, value in league.figures().items():
                    record(f"league/{name}", value)

        def _on_training_end(self) -> None:
            self.bar.close()

        def evaluate(self) -> None:
            agent = PPOAgent.from_policy(self.model.policy, run["rules"], venv.inputs, deterministic=True)
            result = evaluate(run["game"], run["rules"], agent, run["eval_games"], run["eval_seed"])
            result["steps"] = int(self.num_timesteps)
            run["evaluation"] = result
            for key in ("value", "low", "high"):
                self.logger.record(f"eval/{result['figure']}" + ("" if key == "value" else f"_{key}"), result[key])
            if "difference" in result:
                self.logger.record("eval/difference_to_heuristic", result["difference"]["value"])
            self.latest = f", eval {result['figure']} {result['value']:.3f} [{result['low']:.3f}, {result['high']:.3f}]"
            table = run["out"] / "evaluations.csv"
            new = not table.exists()
            with open(table, "a", newline="") as f:
                if new:
                    csv.writer(f).writerow(["steps", "seconds", "figure", "value", "low", "high",
                                            "difference_to_heuristic"])
                row = [self.num_timesteps, round(time.perf_counter() - run["began"], 1), result["figure"],
                       result["value"], result["low"], result["high"], result.get("difference", {}).get("value", "")]
                csv.writer(f).writerow(row)
            if result["value"] > run["best"]:
                run["best"] = result["value"]
                save_model(self.model, run["out"] / "best.zip", sidecar(run, self.model))

        def checkpoint(self) -> None:
            save_model(self.model, run["out"] / "checkpoints" / f"step-{self.num_timesteps}.zip", sidecar(run, self.model))
            save_model(self.model, run["out"] / "last.zip", sidecar(run, self.model))

    return RunCallbacks()


def sidecar(run: dict, model) -> dict:
    """The sidecar of a model saved now (see the module docstring)."""
    from agents.ppo import layout_of, package_version

    return {
        "game": run["game"].id, "rules": run["rules"].to_dict(), "layout": layout_of(run["core"]),
        "inputs": run["inputs"], "aerodeck_version": package_version(), "command": run["command"],
        "config": run["config"], "seed": run["seed"], "steps": int(model.num_timesteps),
        "warm_start": run.get("warm_start"), "wall_seconds": round(time.perf_counter() - run["began"] + run["seconds_before"], 1),
        "evaluation": run.get("evaluation"), "saved": datetime.datetime.now().isoformat(timespec="seconds"),
    }


def entropy_schedule(start: float, end: float):
    """The entropy coefficient as a function of the share of the budget used (0 → 1): linear from
    ``start`` to ``end``."""
    return lambda used: start + (end - start) * used


# --- the script --------------------------------------------------------------------------------------------


def main(args: argparse.Namespace) -> int:
    """Train as the parsed command line says; returns the exit status."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    from agents.ppo import Inputs, PriorPolicy, layout_of

    began = time.perf_counter()
    game = envs.spec(args.game)
    command = command_line(args)

    # 1. the run: rules, config, budget, output folder --------------------------------------------------------
    if args.resume:
        if args.out is None:
            raise ValueError("--resume continues the run in --out DIR: name the folder")
        if args.config or args.rules or args.rule_items or args.players or args.table or args.seed is not None:
            raise ValueError("--resume continues a run with its own rules, config and seed; "
                             "drop --config/--rule/--rules/--table/--players/--seed")
        last = args.out / "last.zip"
        if not last.is_file():
            raise ValueError(f"--resume: {last} does not exist (a run writes it at its first checkpoint)")
        from agents.ppo import read_sidecar
        before = read_sidecar(last)
        if before.get("game") != game.id:
            raise ValueError(f"--resume: {args.out} holds a {before.get('game')} run, not {game.id}")
        config = check_config(merge_config(default_config(game.id), before["config"], str(last.with_suffix(".json"))))
        rules = game.rules_class().from_options(before["rules"])
        seed = before["seed"]
    else:
        config = load_config(game.id, args.config)
        rules = load_rules(game, args.rules, args.rule_items, args.table, args.players)
        seed = 0 if args.seed is None else args.seed
        before = {}
    if args.num_envs is not None:
        if args.num_envs < 1:
            raise ValueError(f"--num-envs must be at least 1, got {args.num_envs}")
        config["train"]["num_envs"] = args.num_envs
    if args.steps is not None and args.steps < 1:
        raise ValueError(f"--steps must be at least 1, got {args.steps}")
    if args.minutes is not None and not args.minutes > 0:
        raise ValueError(f"--minutes must be above 0, got {args.minutes}")
    if args.threads is not None:
        if args.threads < 1:
            raise ValueError(f"--threads must be at least 1, got {args.threads}")
        torch.set_num_threads(args.threads)
    out = args.out or Path("runs") / f"{game.id}-{datetime.datetime.now():%Y%m%d-%H%M%S}"
    if not args.resume and out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ValueError(f"output folder {str(out)!r} exists and is not empty: choose a new folder, "
                         "or continue its run with --resume")
    fresh = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    # a folder this run made holds nothing of value until training starts: removed if setting up fails
    with removed_on_failure(out, fresh):
        from train.output import write_file
        write_file(out / "config.toml", f"# {command}\n# rules: {rules.label()}\n" + config_toml(config))

        train_cfg, ppo_cfg, policy_cfg, warm_cfg = config["train"], config["ppo"], config["policy"], config["warm_start"]
        num_envs = train_cfg["num_envs"]
        run = {
            "game": game, "rules": rules, "core": game.make_core(rules), "config": config, "command": command,
            "seed": seed, "out": out, "began": began, "seconds_before": before.get("wall_seconds", 0.0),
            # the budget of this session: steps of PPO, or seconds of wall time (then "steps" is None)
            "steps": args.steps or (None if args.minutes else train_cfg["steps"]),
            "seconds": None if args.minutes is None else args.minutes * 60,
            "eval_every": train_cfg["eval_every"], "eval_games": train_cfg["eval_games"], "eval_seed": train_cfg["eval_seed"],
            "checkpoint_every": train_cfg["checkpoint_every"], "best": -math.inf,
            "ent_coef": entropy_schedule(ppo_cfg["ent_coef"], ppo_cfg["ent_coef_end"]),
            "warm_start": before.get("warm_start"),
        }
        if before.get("evaluation"):
            run["evaluation"] = before["evaluation"]
            best = read_best(out)
            run["best"] = best if best is not None else -math.inf

        # 2. the environments --------------------------------------------------------------------------------------
        inputs = Inputs.make(game.id, rules, policy_cfg["sees_mask"], policy_cfg["prior"], policy_cfg["prior_units"],
                             policy_cfg["prior_ties"], policy_cfg["prior_ranks"])
        run["inputs"] = inputs.to_dict()
        league = None
        env_options = {}
        if "league" in config and not game.solo:
            from train.learn.league import League
            league = League(game, rules, config["league"], seed, inputs)
            env_options["opponents"] = league.opponents
            env_options["assign"] = league.assign
        # a resumed run deals new games: its seed moved on by the steps already played
        env_seed = (seed + before.get("steps", 0)) % 2**63
        venv = learner_env(game.make_sb3(num_envs, rules=rules, seed=env_seed, **env_options), inputs)

        # 3. the model: resumed, or new (and warm-started) ---------------------------------------------------------
        ppo_kwargs = dict(
            learning_rate=ppo_cfg["learning_rate"], n_steps=ppo_cfg["n_steps"], batch_size=ppo_cfg["batch_size"],
            n_epochs=ppo_cfg["n_epochs"], gamma=ppo_cfg["gamma"], gae_lambda=ppo_cfg["gae_lambda"],
            clip_range=ppo_cfg["clip_range"], ent_coef=ppo_cfg["ent_coef"], vf_coef=ppo_cfg["vf_coef"],
            max_grad_norm=ppo_cfg["max_grad_norm"], target_kl=ppo_cfg["target_kl"] or None,
        )
        if args.resume:
            model = MaskablePPO.load(out / "last.zip", env=venv, device="cpu", **ppo_kwargs,
                                     custom_objects={"learning_rate": ppo_cfg["learning_rate"],
                                                     "lr_schedule": lambda _: ppo_cfg["learning_rate"],
                                                     "clip_range": lambda _: ppo_cfg["clip_range"]})
        else:
            activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[policy_cfg["activation"]]
            arch = list(policy_cfg["net_arch"])
            policy_kwargs = {"net_arch": {"pi": arch, "vf": arch}, "activation_fn": activation}
            if inputs.prior:
                policy_kwargs["prior_scale"] = policy_cfg["prior_scale"]
                policy_kwargs["learn_prior_scale"] = policy_cfg["learn_prior_scale"]
            model = MaskablePPO(PriorPolicy if inputs.prior else "MlpPolicy", venv, seed=seed, device="cpu",
                                policy_kwargs=policy_kwargs, **ppo_kwargs)
        model.set_logger(configure(str(out / "tb"), ["tensorboard"]))
        if not args.resume and warm_cfg["games"] > 0:
            meta = {"game": game.id, "rules": rules.to_dict(), "layout": layout_of(run["core"]), "inputs": inputs.to_dict(),
                    **{key: warm_cfg[key] for key in ("teacher", "opponent", "games", "seed")},
                    "teacher_seed": seed, "gamma": ppo_cfg["gamma"]}
            clock = time.perf_counter()
            if warm_cfg["decisions"]:  # the decisions of an earlier run's teacher, made for the same run
                data, stored = load_decisions(Path(warm_cfg["decisions"]), {k: v for k, v in meta.items() if k != "inputs"})
                data["inputs"] = reread_inputs(data, stored["inputs"], inputs, run["core"].obs_size)
                played = stored["play_seconds"]
            else:
                from tqdm.auto import tqdm
                with tqdm(total=warm_cfg["games"], unit="game", desc=f"warm start: {warm_cfg['teacher']} plays",
                          disable=args.no_progress, leave=False) as bar:
                    data = play_teacher(game.id, rules, warm_cfg, inputs.to_dict(), seed, ppo_cfg["gamma"],
                                        warm_cfg["workers"], done=bar.update)
                played = time.perf_counter() - clock
                save_decisions(out / "warm_start.npz", data, {**meta, "play_seconds": round(played, 1)})

            def log(epoch, loss, accuracy, held_out):
                if epoch:
                    model.logger.record("warm_start/loss", loss)
                    model.logger.record("warm_start/accuracy", accuracy)
                model.logger.record("warm_start/held_out_accuracy", held_out)
                model.logger.dump(epoch)
                if not args.no_progress:
                    print(f"warm start: epoch {epoch}/{warm_cfg['epochs']}, loss {loss:.3f}, accuracy {accuracy:.3f}, "
                          f"held out {held_out:.3f}", file=sys.stderr)

            accuracies = warm_start(model, data, warm_cfg["epochs"], warm_cfg["batch_size"],
                                    warm_cfg["learning_rate"], seed, log)
            run["warm_start"] = {"teacher": warm_cfg["teacher"], "opponent": warm_cfg["opponent"] or None,
                                 "games": warm_cfg["games"], "decisions": int(len(data["actions"])),
                                 "epochs": warm_cfg["epochs"],
                                 "accuracy": accuracies[-1][0] if accuracies else None,
                                 "held_out_accuracy": accuracies[-1][1] if accuracies else None,
                                 "play_seconds": round(played, 1), "seconds": round(time.perf_counter() - clock, 1),
                                 "decisions_from": warm_cfg["decisions"] or None}
            del data
        if league is not None:
            league.add_snapshot(model.policy, model.num_timesteps)

    # 4. callbacks, 5. training ------------------------------------------------------------------------------
    if run["seconds"] is not None:
        run["seconds"] = max(run["seconds"] - (time.perf_counter() - began), 1.0)  # the warm start used some
    callback = callbacks(run, model, venv, league, not args.no_progress)
    stop = signal.signal(signal.SIGTERM, interrupt)  # `kill` stops a run as Ctrl-C does
    try:
        model.learn(total_timesteps=run["steps"] or 10**15, callback=callback, reset_num_timesteps=not args.resume,
                    tb_log_name="ppo")
    except KeyboardInterrupt:  # save what was learnt, and say how to go on
        save_model(model, out / "last.zip", sidecar(run, model))
        print(f"aerodeck train: interrupted at {model.num_timesteps:,} steps; saved {out / 'last.zip'}: continue "
              f"with aerodeck train {game.id} --out {out} --resume", file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGTERM, stop)
    if run.get("evaluation", {}).get("steps") != model.num_timesteps:
        callback.evaluate()
    save_model(model, out / "last.zip", sidecar(run, model))
    model.logger.dump(model.num_timesteps)
    model.logger.close()
    ev = run["evaluation"]
    print(f"{game.id}: {model.num_timesteps:,} steps in {time.perf_counter() - began:.0f} s; evaluation "
          f"{ev['figure']} {ev['value']:.4g} [{ev['low']:.4g}, {ev['high']:.4g}] over {ev['games']} games; "
          f"best {run['best']:.4g}")
    print(f"wrote {', '.join(sorted(p.name for p in out.iterdir()))} to {out}/")
    return 0


@contextlib.contextmanager
def removed_on_failure(folder: Path, fresh: bool):
    """Remove ``folder`` (``fresh``: made by this run) if the block raises an error, so the run can be
    repeated with the same ``--out`` once it is fixed (Ctrl-C keeps it: the teacher's decisions may be
    there to reuse)."""
    try:
        yield
    except Exception:
        if fresh:
            shutil.rmtree(folder, ignore_errors=True)
        raise


def interrupt(signum, frame) -> None:
    """A SIGTERM handler that stops training as Ctrl-C does."""
    raise KeyboardInterrupt


def command_line(args: argparse.Namespace) -> str:
    """The ``aerodeck train`` command line that ``args`` (the parsed options) stand for."""
    words = ["aerodeck", "train", args.game]
    for flag, value in (("--steps", args.steps), ("--minutes", args.minutes), ("--num-envs", args.num_envs),
                        ("--seed", args.seed), ("--config", args.config), ("--rules", args.rules),
                        ("--table", args.table), ("--players", args.players), ("--out", args.out),
                        ("--threads", args.threads)):
        if value is not None:
            words += [flag, str(value)]
    for item in args.rule_items:
        words += ["--rule", item]
    if args.resume:
        words.append("--resume")
    return " ".join(shlex.quote(w) for w in words)


def read_best(out: Path) -> float | None:
    """The evaluation figure of the run's best model so far, if it has one."""
    from agents.ppo import read_sidecar

    best = out / "best.zip"
    if not best.is_file():
        return None
    return (read_sidecar(best).get("evaluation") or {}).get("value")

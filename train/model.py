"""The learner's side of a run: the VecEnv PPO learns on, a new or resumed MaskablePPO, its evaluation
against the game's opponent, and saving models with their sidecars."""

from __future__ import annotations

import json
import os
import time
import zipfile
from pathlib import Path

import numpy as np


def learner_env(venv, inputs):
    """The VecEnv PPO learns on: ``venv`` as the policy reads it (``inputs``, an ``aerodeck.agents.ppo.Inputs``:
    the observation, then perhaps the mask and a prior's preferences) and timed (``env_seconds``: the
    seconds spent stepping it and building those inputs, for the throughput figures)."""
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
            for i in np.flatnonzero(dones):  # a finished game: no legal action, no preference
                end = infos[i]["terminal_observation"]
                if inputs.embedding is not None:  # a rule-general policy: in the family layout
                    end = inputs.embedding.observations(end[None])[0]
                infos[i]["terminal_observation"] = np.concatenate([end, np.zeros(x.shape[1] - len(end), np.float32)])
            self.env_seconds += time.perf_counter() - began
            return x, rewards, dones, infos

        def env_method(self, method_name: str, *args, indices=None, **kwargs):
            if method_name == "action_masks":  # what MaskablePPO asks before every step: the rows we hold
                return [self.masks[i] for i in self._get_indices(indices)]
            return self.venv.env_method(method_name, *args, indices=indices, **kwargs)

        def action_masks(self) -> np.ndarray:
            return self.masks.copy()

    return LearnerEnv()


def ppo_kwargs(ppo) -> dict:
    """MaskablePPO's keyword arguments from the ``[ppo]`` section ``ppo`` (a ``PPOConfig``)."""
    return dict(learning_rate=ppo.learning_rate, n_steps=ppo.n_steps, batch_size=ppo.batch_size, n_epochs=ppo.n_epochs,
                gamma=ppo.gamma, gae_lambda=ppo.gae_lambda, clip_range=ppo.clip_range, ent_coef=ppo.ent_coef,
                vf_coef=ppo.vf_coef, max_grad_norm=ppo.max_grad_norm, target_kl=ppo.target_kl or None)


def new_model(venv, config, inputs, seed: int):
    """A new MaskablePPO on ``venv`` as ``config`` (a ``Config``) says: its ``[policy]`` network (the MLP,
    with the prior's head when ``inputs`` has a prior, or the game's ``network``) and its ``[ppo]`` settings. ``seed`` (0 … 2**64 − 1, as
    ``--seed``) seeds the network and PPO's sampling modulo 2**32 (what SB3's seeding takes)."""
    import torch
    from sb3_contrib import MaskablePPO

    from aerodeck.agents.ppo import PriorPolicy, game_of

    policy = config.policy
    arch = list(policy.net_arch)
    policy_kwargs = {"net_arch": {"pi": arch, "vf": arch},
                     "activation_fn": {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[policy.activation]}
    if policy.network != "mlp":  # the game's own actor (GameSpec.networks), which says what it builds
        network = game_of(inputs.rules).network_class(policy.network)
        policy_kwargs.update(network.policy_kwargs(policy, inputs.rules, inputs))
        return MaskablePPO(network, venv, seed=seed % 2**32, device="cpu", policy_kwargs=policy_kwargs,
                           **ppo_kwargs(config.ppo))
    if inputs.prior:
        policy_kwargs["prior_scale"] = policy.prior_scale
        policy_kwargs["learn_prior_scale"] = policy.learn_prior_scale
    return MaskablePPO(PriorPolicy if inputs.prior else "MlpPolicy", venv, seed=seed % 2**32, device="cpu",
                       policy_kwargs=policy_kwargs, **ppo_kwargs(config.ppo))


def init_from(model, path, inputs, game, rules) -> None:
    """Copy the weights of the model zip ``path`` into ``model`` (a new MaskablePPO whose policy reads
    ``inputs`` under ``rules``): the same network widths and the same kind of inputs are required
    (``ValueError`` naming what differs). A source trained on one rules set may start a rule-general
    policy: its inputs go to their places in the family layout (observation blocks and actions matched
    as ``aerodeck.agents.variants.Embedding`` does) and the new inputs (the rule features, the family's extra
    entries and actions) start at weight 0. A rule-general source starts only a run over the same variant
    space, weight for weight."""
    import torch

    from aerodeck.agents.ppo import load_model

    source = load_model(path, rules if inputs.variants is None else None)
    src, dst = source.policy, model.policy
    mine, theirs = inputs.to_dict(), source.inputs.to_dict()
    differ = [k for k in ("mask", "prior", "prior_units", "prior_ties", "prior_ranks") if mine[k] != theirs[k]]
    if differ:
        raise ValueError(f"[policy] init: {path} reads other inputs ({', '.join(f'{k}={theirs[k]!r}' for k in differ)}; "
                         f"this run: {', '.join(f'{k}={mine[k]!r}' for k in differ)})")
    remap = source.inputs.variants is None  # a rule-general source: weight for weight, over the same space
    if not remap and (inputs.variants is None or _space(source.inputs.variants) != _space(inputs.variants)):
        raise ValueError(f"[policy] init: {path} is a rule-general model over {source.inputs.variants.describe()}; "
                         "it can start only a run over the same [variants] space, this run's: "
                         f"{inputs.variants.describe() if inputs.variants is not None else 'one rules set'}")
    if remap:
        core = game.make_core(source.rules)
        O, A = core.obs_size, core.n_actions
        if inputs.variants is None:
            obs_index, action_index, n_obs, n_act, extra = np.arange(O), np.arange(A), O, A, 0
        else:
            emb = inputs.variants.embedding(source.rules)
            obs_index, action_index, n_obs, n_act, extra = (emb.obs_index, emb.action_index, emb.obs_size,
                                                            emb.n_actions, inputs.variants.size)
        columns = [obs_index]  # where each source input goes among this run's inputs
        for block in range(int(source.inputs.mask) + int(source.inputs.prior is not None)):
            columns.append(n_obs + extra + block * n_act + action_index)
        columns = torch.as_tensor(np.concatenate(columns))
    new, old = dst.state_dict(), src.state_dict()
    with torch.no_grad():
        for key, value in old.items():
            if key not in new:
                raise ValueError(f"[policy] init: {path} has a weight {key!r} this run's network lacks")
            target = new[key]
            if target.shape[:1] != value.shape[:1] and not key.startswith("action_net.linear"):
                raise ValueError(f"[policy] init: {path} has another network: weight {key!r} is {tuple(value.shape)} "
                                 f"there, {tuple(target.shape)} here")
            if remap and key.endswith("net.0.weight") and "mlp_extractor" in key:  # the first layer: by input column
                target.zero_()
                target[:, columns] = value
            elif remap and key.startswith("action_net.linear"):  # the prior head: by action
                target.zero_()
                target[torch.as_tensor(action_index)] = value
            elif target.shape == value.shape:
                target.copy_(value)
            else:
                raise ValueError(f"[policy] init: weight {key!r} is {tuple(value.shape)} in {path}, "
                                 f"{tuple(target.shape)} here")
    dst.load_state_dict(new)


def _space(variants) -> tuple[dict, dict]:
    """A variant space's ranges and the options it does not vary (what its policies' inputs mean)."""
    data = variants.to_dict()
    return data["ranges"], {k: v for k, v in data["base"].items() if k not in data["ranges"]}


def resumed_model(path: Path, venv, config):
    """The MaskablePPO saved at ``path`` on ``venv``, with ``config``'s ``[ppo]`` settings; ``ValueError``
    in one line if ``path`` is not a loadable model (it reads the file and writes nothing)."""
    from sb3_contrib import MaskablePPO

    ppo = config.ppo
    if not zipfile.is_zipfile(path):
        raise ValueError(f"--resume: {path} is not a saved model (not a zip archive: truncated, or another kind of "
                         "file); the run is left as it was")
    try:
        return MaskablePPO.load(path, env=venv, device="cpu", **ppo_kwargs(ppo),
                                custom_objects={"learning_rate": ppo.learning_rate, "lr_schedule": lambda _: ppo.learning_rate,
                                                "clip_range": lambda _: ppo.clip_range})
    except Exception as err:  # SB3 reports a bad archive in many ways (KeyError, pickle, zip, torch errors)
        raise ValueError(f"--resume: {path} cannot be loaded as this run's model ({type(err).__name__}: "
                         f"{str(err).splitlines()[0] if str(err) else 'no detail'}); the run is left as it was") from None


def evaluate(game, rules, agent, games: int, seed: int, backend=None, sampled=None) -> dict:
    """The ``aerodeck bench`` figures of ``agent`` against the game's opponent (``GameSpec.opponent``) on
    the fixed deals of ``seed``.

    Solo games: both play the same ``games`` deals; ``value`` is the agent's mean score, with its interval
    and ``difference``, the agent minus the opponent on the same deals (bench's paired comparison).
    Multi-player games: a seat-rotated table of the agent and n−1 opponents; ``value`` is the agent's win
    rate (fair share 1/n) with its interval. ``backend``: where the games are played (default here; a Ray
    backend gives the same figures). ``sampled``: a second agent (the same policy sampling its actions)
    that plays the same deals or table; its figures under ``"sampled"`` (``value``, ``low``, ``high``, and
    in a solo game its ``difference`` to the opponent)."""
    from aerodeck.agents.registry import make_agent
    from aerodeck.bench.bench import bench_solo, bench_tournament

    opponent = make_agent(game.id, game.opponent, rules, seed=seed + 1)
    if game.solo:  # the opponent first: bench compares each later agent with it (later − earlier)
        names, agents = [game.opponent, "ppo"] + ["ppo-sampled"] * bool(sampled), [opponent, agent, sampled][:2 + bool(sampled)]
        result = bench_solo(game, rules, names, agents, [games] * len(names), seed, progress=False, backend=backend)

        def figures(name: str) -> dict:
            mine = result["agents"][name]["mean_score"]
            gap = next(c for c in result["comparisons"] if c["agent"] == name and c["versus"] == game.opponent)
            return {**{k: mine[k] for k in ("value", "low", "high")},
                    "difference": {k: gap["mean_score_difference"][k] for k in ("value", "low", "high")}}

        out = {"figure": "mean_score", **figures("ppo"), "games": games,
               "opponent": game.opponent, game.opponent: result["agents"][game.opponent]["mean_score"]["value"]}
        return {**out, "sampled": figures("ppo-sampled")} if sampled else out
    n = game.players(rules)
    result = bench_tournament(game, rules, ["ppo", game.opponent], [agent, opponent], games, seed,
                              lineup=[0] + [1] * (n - 1), progress=False, backend=backend)
    mine = result["agents"]["ppo"]["win_rate"]
    out = {"figure": "win_rate", "value": mine["value"], "low": mine["low"], "high": mine["high"],
           "games": result["games"], "fair_share": 1.0 / n, "opponent": game.opponent,
           "table": f"1 ppo + {n - 1} {game.opponent}, seats rotated"}
    if sampled:
        other = bench_tournament(game, rules, ["ppo", game.opponent], [sampled, opponent], games, seed,
                                 lineup=[0] + [1] * (n - 1), progress=False, backend=backend)["agents"]["ppo"]["win_rate"]
        out["sampled"] = {k: other[k] for k in ("value", "low", "high")}
    return out


def save_model(model, path: Path, sidecar: dict) -> None:
    """Write the SB3 zip ``path`` and its sidecar JSON, each atomically (a temporary file, then renamed)."""
    from aerodeck.agents.ppo import sidecar_path
    from aerodeck.arena.output import write_file

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.partial")
    try:
        model.save(tmp)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    write_file(sidecar_path(path), json.dumps(sidecar, indent=2) + "\n")


def export_model(source, target) -> None:
    """Copy the model ``source`` and its sidecar to ``target`` without the optimizer's moments and the
    last batch of observations: all that playing needs, at about a third of the size (how the shipped
    models in ``agents/models/`` are made from a run's ``best.zip``)."""
    from sb3_contrib import MaskablePPO

    from aerodeck.agents.ppo import read_sidecar

    source, target = Path(source), Path(target)
    model = MaskablePPO.load(source, device="cpu", custom_objects={"lr_schedule": lambda _: 0.0,
                                                                   "learning_rate": 0.0, "clip_range": lambda _: 0.0})
    policy = model.policy
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=0.0, **policy.optimizer_kwargs)
    model._last_obs = model._last_original_obs = model._last_episode_starts = None  # the last batch of inputs
    model.ep_info_buffer.clear()
    model.ep_success_buffer.clear()
    save_model(model, target, {**read_sidecar(source), "exported_from": str(source)})

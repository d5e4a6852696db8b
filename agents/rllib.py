"""The RLlib agent: a policy trained by ``python -m aerodeck.train.rllib`` (needs the ``rllib`` extra).

``rllib:path=RUN`` plays the best checkpoint of the run folder ``RUN`` (``RUN/best/``, else ``RUN/last/``);
``path`` may also name a checkpoint folder itself (``RUN/last``, ``RUN/best``, or an algorithm checkpoint
saved from Python with an ``aerodeck.json`` beside it). ``deterministic=0`` samples from the policy instead
of taking its most likely legal action. Every game offers it (``aerodeck.agents.registry``).

The RLModule (``aerodeck.train.rllib_ppo.MaskedPPOModule``) is loaded once per process and checkpoint; each
``act`` is one batched forward pass over the batch of observations and masks (in chunks of
:data:`CHUNK` games), its logits of illegal actions at the float minimum, so an illegal action is never
chosen. ``threads`` (default 1) sets the CPU threads torch uses in the process at the first move: on a
busy machine torch's threads wait for each other at every small product (docs/research/rllib-speed.md). Ray is imported when the agent is made, never by ``import aerodeck``; no Ray instance is needed.
The checkpoint's ``aerodeck.json`` names the game, the rules and the sizes it was trained for: another
game or other sizes are refused naming both; the same sizes under other rule options play (with a
warning naming the options).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np

from aerodeck.agents.base import Agent, Knob

#: Games run through the network at once.
CHUNK = 8192
#: The checkpoint's sidecar (written by ``aerodeck.train.rllib``).
SIDECAR = "aerodeck.json"

#: Modules loaded in this process: (folder, its mtime) -> module.
_MODULES: dict[tuple[str, int], object] = {}


def checkpoint_folder(path: str | Path) -> tuple[Path, dict]:
    """The checkpoint folder ``path`` stands for (a run folder: its ``best/``, else ``last/``) and its
    sidecar; ``ValueError`` naming what is missing."""
    path = Path(path)
    if not path.is_dir():
        raise ValueError(f"agent 'rllib': {str(path)!r} is not a folder (give a run folder of "
                         "python -m aerodeck.train.rllib, or one of its checkpoints)")
    for folder in (path, path / "best", path / "last"):
        if (folder / SIDECAR).is_file():
            return folder, json.loads((folder / SIDECAR).read_text(encoding="utf-8"))
    raise ValueError(f"agent 'rllib': {str(path)!r} holds no checkpoint of python -m aerodeck.train.rllib "
                     f"({SIDECAR} in it, or in its best/ or last/)")


def module_folder(folder: Path, sidecar: dict) -> Path:
    """Where the RLModule of the checkpoint ``folder`` lies: the folder itself (a module checkpoint) or
    the module inside an algorithm checkpoint."""
    inner = folder / "learner_group" / "learner" / "rl_module" / sidecar["module"]
    return inner if inner.is_dir() else folder


def load_module(folder: Path, sidecar: dict):
    """The torch RLModule of the checkpoint ``folder`` (cached per process)."""
    where = module_folder(folder, sidecar)
    key = (str(where.resolve()), (where / "module_state.pkl").stat().st_mtime_ns if (where / "module_state.pkl").exists() else 0)
    if key not in _MODULES:
        try:
            from ray.rllib.core.rl_module.rl_module import RLModule
        except ImportError as err:
            raise ValueError(f"agent 'rllib' needs RLlib: pip install -e '.[rllib]' ({err})") from None
        module = RLModule.from_checkpoint(str(where.resolve()))
        module.eval()
        _MODULES[key] = module
    return _MODULES[key]


class RLlibAgent(Agent):
    """A policy trained with RLlib's PPO (see the module docstring)."""

    name = "rllib"
    knobs = {
        "path": Knob(str, doc="a run folder of python -m aerodeck.train.rllib (its best checkpoint) or a checkpoint folder"),
        "deterministic": Knob(bool, doc="on: the most likely legal action; off: sample from the policy"),
        "threads": Knob(int, 0, 256, doc="CPU threads torch uses in this process from the agent's first move on "
                                          "(default 1; 0: leave torch's setting). One is far faster on a busy machine"),
    }

    def __init__(self, seed: int | None = 0, rules=None, path: str | None = None, deterministic: bool = True,
                 threads: int = 1) -> None:
        from aerodeck import envs

        if path is None:
            raise ValueError("agent 'rllib' needs path=RUN (a run folder of python -m aerodeck.train.rllib)")
        folder, sidecar = checkpoint_folder(path)
        game = envs.spec(sidecar["game"])
        trained = game.rules_class().from_options(sidecar["rules"])
        if rules is not None:
            from aerodeck.envs.registry import game_of_rules

            mine = game_of_rules(rules)
            if mine.id != game.id:
                raise ValueError(f"agent 'rllib': {path} was trained for {game.id}, not {mine.id}")
            core = mine.make_core(rules)
            if (core.obs_size, core.n_actions) != (sidecar["obs_size"], sidecar["n_actions"]):
                raise ValueError(f"agent 'rllib': {path} reads observations of {sidecar['obs_size']} and "
                                 f"{sidecar['n_actions']} actions; these rules give {core.obs_size} and {core.n_actions}")
            if rules != trained:
                differ = sorted(k for k, v in rules.to_dict().items() if trained.to_dict().get(k) != v)
                warnings.warn(f"agent 'rllib': {path} was trained under other rule options ({', '.join(differ)})",
                              stacklevel=2)
        super().__init__(seed, rules if rules is not None else trained)
        self.path, self.sidecar = str(path), sidecar
        self.module = load_module(folder, sidecar)
        self.deterministic = bool(deterministic)
        self.threads = int(threads)

    def logits(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The module's masked logits ``float32 (B, A)``: one forward pass per :data:`CHUNK` games."""
        import torch
        from ray.rllib.core.columns import Columns

        obs = np.asarray(observations, np.float32)
        mask = np.asarray(masks, np.float32)
        out = np.empty(mask.shape, np.float32)
        if self.threads and torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)  # the process's setting from now on (switching back and forth costs more)
        with torch.no_grad():
            for a in range(0, len(obs), CHUNK):
                batch = {Columns.OBS: {"observation": torch.from_numpy(obs[a:a + CHUNK]),
                                       "action_mask": torch.from_numpy(mask[a:a + CHUNK])}}
                out[a:a + CHUNK] = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS].numpy()
        return out

    def act(self, observations: np.ndarray, masks: np.ndarray, view=None, keys: np.ndarray | None = None) -> np.ndarray:
        """Actions ``int64 (B,)`` for observations ``float32 (B, O)`` and masks ``bool (B, A)``: the most
        likely legal action, or one sampled from the policy (Gumbel-max, the noise from the decision
        ``keys``, or from the agent's generator without them). A row without a legal action gets 0."""
        masks = np.asarray(masks, bool)
        logits = self.logits(observations, masks)
        if not self.deterministic:
            logits = logits + self.gumbel(keys, logits.shape).astype(np.float32)
        logits = np.where(masks, logits, -np.inf)
        legal = masks.any(axis=1)
        return np.where(legal, logits.argmax(axis=1), 0).astype(np.int64)

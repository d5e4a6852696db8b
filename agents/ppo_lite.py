"""The agent of ``train/ppo_lite.py`` (the one-file masked PPO): ``ppo-lite:path=runs/x/model.pt``.

A model file is one ``torch.save`` dict: ``format`` (:data:`FORMAT`), ``game`` (a game id), ``rules``
(``rules.to_dict()``), ``obs_size``, ``n_actions``, ``hidden`` (layer widths), ``sees_mask`` (the
policy also reads the legal mask as 0/1), ``state_dict`` (the :class:`ActorCritic`'s weights) and
``meta`` (task, steps, seed, the config). Loading checks the sizes against the rules in play.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
from torch import nn

from aerodeck.agents.base import Agent, Knob

FORMAT = "aerodeck-ppo-lite-1"


def layer(n_in: int, n_out: int, std: float = 2 ** 0.5) -> nn.Linear:
    """A linear layer with orthogonal weights (gain ``std``) and zero bias, as CleanRL initialises them."""
    linear = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class ActorCritic(nn.Module):
    """Separate tanh MLPs for the policy (logits ``(B, A)``) and the value (``(B,)``) over the
    input ``float32 (B, obs_size [+ n_actions with sees_mask])``."""

    def __init__(self, obs_size: int, n_actions: int, hidden=(256, 256), sees_mask: bool = False) -> None:
        super().__init__()
        self.sees_mask = bool(sees_mask)
        width = obs_size + (n_actions if sees_mask else 0)

        def mlp(out: int, std: float) -> nn.Sequential:
            sizes, parts = [width, *hidden], []
            for a, b in zip(sizes, sizes[1:]):
                parts += [layer(a, b), nn.Tanh()]
            return nn.Sequential(*parts, layer(sizes[-1], out, std))

        self.actor, self.critic = mlp(n_actions, 0.01), mlp(1, 1.0)

    def inputs(self, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        return torch.cat([obs, masks.float()], 1) if self.sees_mask else obs

    def logits(self, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        """Masked logits ``(B, A)``: illegal actions get -1e8 (a row without a legal action keeps its raw logits)."""
        raw = self.actor(self.inputs(obs, masks))
        return torch.where(masks | ~masks.any(1, keepdim=True), raw, torch.full_like(raw, -1e8))

    def value(self, obs: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        return self.critic(self.inputs(obs, masks))[:, 0]


def save(path, net: ActorCritic, game: str, rules, hidden, meta: dict) -> Path:
    """Write ``net`` as a ppo-lite model file (written to a temporary name, then renamed)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    first = net.actor[0].in_features - (net.actor[-1].out_features if net.sees_mask else 0)
    data = {"format": FORMAT, "game": game, "rules": rules.to_dict(), "obs_size": first,
            "n_actions": net.actor[-1].out_features, "hidden": list(hidden), "sees_mask": net.sees_mask,
            "state_dict": net.state_dict(), "meta": meta}
    tmp = path.with_name(path.name + ".tmp")
    torch.save(data, tmp)
    tmp.replace(path)
    return path


def load(path, rules=None) -> tuple[ActorCritic, dict]:
    """The network of model file ``path`` and its dict; ``ValueError`` for another kind of file or a
    model whose sizes differ from those of ``rules`` (when given)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no model file {path}")
    try:
        data = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as err:  # torch reports a bad file in many ways
        raise ValueError(f"{path} is not a ppo-lite model ({type(err).__name__}: {err})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a ppo-lite model (made by train/ppo_lite.py); an SB3 zip plays as ppo:path=")
    if rules is not None:
        from aerodeck.envs.registry import game_of_rules

        game = game_of_rules(rules)
        core = game.make_core(rules)
        if game.id != data["game"] or (core.obs_size, core.n_actions) != (data["obs_size"], data["n_actions"]):
            raise ValueError(f"{path} is a {data['game']} model reading {data['obs_size']} observations with "
                             f"{data['n_actions']} actions; the rules in use ({game.id}) have {core.obs_size} and "
                             f"{core.n_actions}")
    net = ActorCritic(data["obs_size"], data["n_actions"], tuple(data["hidden"]), data["sees_mask"])
    net.load_state_dict(data["state_dict"])
    net.eval()
    return net, data


class PPOLiteAgent(Agent):
    """Plays a model of ``train/ppo_lite.py``: ``ppo-lite:path=FILE.pt`` (greedy), ``deterministic=off`` samples."""

    name = "ppo-lite"
    knobs = {
        "path": Knob(str, doc="the model file written by train/ppo_lite.py (model.pt)"),
        "deterministic": Knob(bool, doc="on: the most likely legal action; off: sample from the policy"),
    }

    def __init__(self, seed: int | None = 0, rules=None, path: str | None = None, deterministic: bool = True) -> None:
        if path is None:
            raise ValueError("agent 'ppo-lite' needs path=FILE.pt (a model of train/ppo_lite.py)")
        self.net, data = load(path, rules)
        if rules is None:
            from aerodeck import envs

            rules = envs.spec(data["game"]).rules_class().from_options(data["rules"])
        super().__init__(seed, rules)
        self.deterministic = bool(deterministic)

    @classmethod
    def from_network(cls, net: ActorCritic, rules, deterministic: bool = True, seed: int = 0) -> PPOLiteAgent:
        """An agent acting with a live network (during training)."""
        agent = cls.__new__(cls)
        Agent.__init__(agent, seed, rules)
        agent.net, agent.deterministic = net, bool(deterministic)
        return agent

    def act(self, observations: np.ndarray, masks: np.ndarray, view=None, keys: np.ndarray | None = None) -> np.ndarray:
        """Actions ``int64 (B,)`` for observations ``float32 (B, O)`` and masks ``bool (B, A)`` (row
        without a legal action: 0)."""
        masks = np.asarray(masks, bool)
        with torch.no_grad():
            logits = self.net.logits(torch.as_tensor(np.asarray(observations, np.float32)),
                                     torch.as_tensor(masks)).numpy()
        if not self.deterministic:
            logits = logits + self.gumbel(keys, logits.shape).astype(np.float32)
        return np.where(masks.any(1), logits.argmax(1), 0).astype(np.int64)

"""The trained agent: a MaskablePPO policy saved by ``aerodeck train`` (needs the ``train`` extra).

``ppo`` plays the model shipped for the game (and player count) in ``agents/models/``;
``ppo:path=runs/x/best.zip`` plays a model of your own; ``deterministic=0`` samples from the policy
instead of taking its most likely action. Every game offers it (``aerodeck.agents.registry``).

A model is the stable-baselines3 zip plus a sidecar JSON beside it (``best.zip`` → ``best.json``)
that ``aerodeck train`` writes: the game, the rules (``rules.to_dict()``), the observation and action
layouts (sizes and a fingerprint, :func:`layout_of`), what the policy reads (:class:`Inputs`), the
package version, the command and config that made it, its steps and its evaluation. Loading checks
the model against the rules in use: a different layout is refused naming both; the same layout under
other rule options loads with a warning naming the options that differ. A model saved from Python
without a sidecar (``model.save``) is checked by its sizes only.

What the policy reads (:class:`Inputs`): the observation; optionally the legal mask as 0/1 values —
it carries what the rules compute from the table (which cells a card fits, how far the plane flies),
which a small network learns slowly from the observation alone; optionally a *prior*: another agent's
preferences over the actions (:func:`prior_features`), which :class:`PriorPolicy` adds to its logits,
so training starts from that agent's play and learns where to depart from it. Inference is one
batched forward pass per call, in chunks of :data:`CHUNK` games, on the CPU threads torch is set to
use (``torch.set_num_threads``; nothing here changes it).
"""

from __future__ import annotations

import base64
import io
import json
import pickle
import warnings
import zipfile
from importlib import metadata
from pathlib import Path

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from aerodeck.agents.base import Agent, Knob, act
from aerodeck.agents.layout import layout_of

#: The models shipped with the package: ``<game>.zip`` (solo games) or ``<game>-<n>p.zip``, each with its sidecar.
MODELS = Path(__file__).parent / "models"
#: Games run through the network at once (bounds the memory of one forward pass).
CHUNK = 8192
#: How :func:`prior_features` reads equal best scores (``Inputs.prior_ties``).
PRIOR_TIES = ("even", "first")
#: With ``prior_ties = "first"``: how much less than the first best action the other best actions get.
TIE = 1 / 64
#: With ``prior_ranks = k``: how much less each next-best of the prior agent's k best actions gets.
RANK_STEP = 1 / 16


def game_of(rules):
    """The registry entry (``aerodeck.envs.registry.GameSpec``) whose rules class ``rules`` is an instance of."""
    from aerodeck.envs.registry import game_of_rules

    return game_of_rules(rules)


def shipped_path(game, rules, general: bool = False) -> Path:
    """The shipped model of ``game`` (a ``GameSpec``) for ``rules``: ``agents/models/<game>[-<n>p].zip``,
    or with ``general`` the rule-general one, ``<game>[-<n>p]-general.zip``."""
    name = game.id if game.players_option is None else f"{game.id}-{game.players(rules)}p"
    return MODELS / f"{name}{'-general' if general else ''}.zip"


def shipped_models() -> list[str]:
    """The names of the shipped models (``airport-scramble``, ``flight-tycoon-4p``, ...)."""
    return sorted(p.stem for p in MODELS.glob("*.zip"))


def shipped_misfit(rules, general: bool = False) -> str | None:
    """Why the shipped model (``general``: the rule-general one) of the game of ``rules`` cannot play
    under them (no model for that game and player count, or one trained for another layout), or
    ``None`` when it can. Reads only the sidecar."""
    game = game_of(rules)
    path = shipped_path(game, rules, general)
    if not path.exists():
        return f"no shipped model {path.name} (shipped: {', '.join(shipped_models()) or 'none'})"
    sidecar = read_sidecar(path)
    trained = sidecar.get("layout")
    variants = sidecar.get("inputs", {}).get("variants")
    if variants:
        from aerodeck.agents.variants import VariantSpace

        try:
            VariantSpace.from_dict(game, variants).embedding(rules)
        except ValueError as err:
            return f"the shipped model {path.name} cannot lay out these rules: {err}"
        return None
    layout = layout_of(game.make_core(rules))
    if trained != layout:
        return (f"the shipped model {path.name} was trained for another layout "
                f"({_describe_layout(trained) if trained else 'unknown'}; these rules: {_describe_layout(layout)})")
    return None


def package_version() -> str:
    """The installed aerodeck version (``"unknown"`` when run from a bare checkout)."""
    try:
        return metadata.version("aerodeck")
    except metadata.PackageNotFoundError:
        return "unknown"


def sidecar_path(path: Path) -> Path:
    """The sidecar JSON of model ``path``: the same name with ``.json``."""
    return Path(path).with_suffix(".json")


class Inputs:
    """What a policy reads, in order: the observation ``float32 (B, O)``; with ``mask``, the legal
    mask as 0/1 ``(B, A)``; with ``prior`` (an agent name), that agent's action preferences as
    :func:`prior_features` ``(B, A)`` (the agent must offer ``scores(observations, masks)``, higher is
    better; ``prior_ties`` says how equal best scores are read; ``prior_ranks = k`` ≥ 1 reads the
    ranks of its k best actions instead, see :func:`rank_features`). ``prior_agent`` is the agent
    instance (``None`` without a prior).

    A rule-general policy (``variants``, an ``aerodeck.agents.variants.VariantSpace``, with the ``rules`` it
    plays under) reads all of it laid out in the space's family layout (``O``, ``A`` the family's),
    with the rule features ``float32 (F,)`` of ``rules`` after the observation; its actions are the family's
    (:meth:`family_masks`, :meth:`variant_actions` translate)."""

    def __init__(self, mask: bool = False, prior: str | None = None, prior_units: float = 4.0, prior_agent=None,
                 prior_ties: str = "even", prior_ranks: int = 0, variants=None, rules=None) -> None:
        if prior and prior_agent is None:
            raise ValueError(f"inputs with the prior {prior!r} need that agent")
        if prior and not callable(getattr(prior_agent, "scores", None)):
            raise ValueError(f"agent {prior!r} cannot be a prior: it has no scores(observations, masks)")
        if not prior_units > 0:
            raise ValueError(f"prior_units must be above 0, got {prior_units}")
        if prior_ties not in PRIOR_TIES:
            raise ValueError(f"prior_ties must be one of {', '.join(PRIOR_TIES)}, got {prior_ties!r}")
        if not (isinstance(prior_ranks, int) and 0 <= prior_ranks < 1 / RANK_STEP):
            raise ValueError(f"prior_ranks must be an integer from 0 to {int(1 / RANK_STEP) - 1}, got {prior_ranks!r}")
        if variants is not None and rules is None:
            raise ValueError("rule-general inputs need the rules they are read under")
        self.mask, self.prior, self.prior_units, self.prior_agent = bool(mask), prior or None, float(prior_units), prior_agent
        self.prior_ties, self.prior_ranks = prior_ties, prior_ranks
        self.variants, self.rules = variants, rules
        self.embedding = variants.embedding(rules) if variants is not None else None
        self.rule_features = variants.features(rules) if variants is not None else None

    @classmethod
    def make(cls, game: str, rules, mask: bool = False, prior: str | None = None, prior_units: float = 4.0,
             prior_ties: str = "even", prior_ranks: int = 0, variants=None) -> Inputs:
        """Inputs for ``game`` under ``rules``, building the prior agent by name (``variants``: a
        ``VariantSpace`` for a rule-general policy)."""
        from aerodeck.agents.declared import make_declared

        agent = make_declared(game, prior, rules, seed=0) if prior else None
        return cls(mask, prior, prior_units, agent, prior_ties, prior_ranks, variants, rules)

    def for_rules(self, game: str, rules) -> Inputs:
        """The same inputs read under other ``rules`` (their own prior agent, rule features and layout)."""
        return Inputs.make(game, rules, self.mask, self.prior, self.prior_units, self.prior_ties, self.prior_ranks,
                           self.variants)

    def to_dict(self) -> dict:
        """For the sidecar: ``{"mask", "prior", "prior_units", "prior_ties", "prior_ranks"}`` and, for a
        rule-general policy, ``"variants"`` (``VariantSpace.to_dict``)."""
        out = {"mask": self.mask, "prior": self.prior, "prior_units": self.prior_units, "prior_ties": self.prior_ties,
               "prior_ranks": self.prior_ranks}
        if self.variants is not None:
            out["variants"] = self.variants.to_dict()
        return out

    def size(self, obs_size: int, n_actions: int) -> int:
        """The width of what the policy reads (a rule-general policy: in the family layout)."""
        if self.embedding is not None:
            obs_size, n_actions = self.embedding.obs_size, self.embedding.n_actions
        extra = 0 if self.variants is None else self.variants.size
        return obs_size + n_actions * (int(self.mask) + int(self.prior is not None)) + extra

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``float32 (B, size)`` for observations ``float32 (B, O)`` and masks ``bool (B, A)``."""
        observations = np.asarray(observations, np.float32)
        emb = self.embedding
        parts = [observations if emb is None else emb.observations(observations)]
        if self.rule_features is not None:  # before the action-wise parts: the prior stays last (PriorExtractor)
            parts.append(np.broadcast_to(self.rule_features, (len(observations), len(self.rule_features))))
        if self.mask:
            parts.append(self.family_masks(masks).astype(np.float32))
        if self.prior is not None:
            scores = self.prior_agent.scores(observations, masks)
            features = (rank_features(scores, self.prior_ranks) if self.prior_ranks
                        else prior_features(scores, self.prior_units, self.prior_ties))
            parts.append(features if emb is None else emb.actionwise(features))
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)

    def family_masks(self, masks: np.ndarray) -> np.ndarray:
        """``bool (B, A)`` masks as the policy's actions are laid out (the family's for a general policy)."""
        masks = np.asarray(masks, bool)
        return masks if self.embedding is None else self.embedding.actionwise(masks, False)

    def variant_actions(self, actions: np.ndarray) -> np.ndarray:
        """``int64 (B,)``: the policy's actions as the rules in use number them."""
        return np.asarray(actions, np.int64) if self.embedding is None else self.embedding.actions(actions)


def _forward(policy, inputs: np.ndarray, head, width: int) -> np.ndarray:
    """``float32 (B, width)``: ``head(policy, x)`` of every row of ``inputs``, one forward pass per
    :data:`CHUNK` rows, without gradients."""
    out = np.empty((len(inputs), width), np.float32)
    with torch.no_grad():
        for start in range(0, len(inputs), CHUNK):
            x = torch.as_tensor(inputs[start:start + CHUNK], dtype=torch.float32, device=policy.device)
            out[start:start + CHUNK] = head(policy, x).cpu().numpy()
    return out


def _actor(policy, x):
    features = policy.extract_features(x, policy.pi_features_extractor)
    if isinstance(features, tuple):  # features extractor not shared: (actor's, critic's)
        features = features[0]
    return policy.action_net(policy.mlp_extractor.forward_actor(features))


def masked_logits(policy, inputs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``float32 (B, A)``: the policy's action logits for ``inputs`` (what it reads, ``(B, ·)``, see
    :class:`Inputs`), ``-inf`` where ``masks`` (``bool (B, A)``) is False. One forward pass per
    :data:`CHUNK` rows."""
    out = _forward(policy, inputs, _actor, masks.shape[1])
    out[~masks] = -np.inf
    return out


def value_of(agent, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """``float64 (B,)``: the value network's estimate (the return it expects from here) of ``agent``
    (a :class:`PPOAgent`) for observations ``float32 (B, O)`` with masks ``bool (B, A)``."""
    inputs = agent.inputs(observations, np.asarray(masks, bool))
    return _forward(agent.policy, inputs, lambda policy, x: policy.predict_values(x), 1)[:, 0].astype(np.float64)


def prior_features(scores: np.ndarray, units: float, ties: str = "even") -> np.ndarray:
    """``float32 (B, A)`` in [0, 1]: a prior agent's action scores (``float (B, A)``, higher is better,
    ``-inf`` where illegal) as the policy reads them: 1 for each game's best action, falling linearly
    to 0 at ``units`` below it (and beyond), 0 where illegal. ``ties``: ``"even"`` — every action with
    the best score gets 1; ``"first"`` — only the first of them (the lowest index, the choice of an
    agent that breaks ties by index, as the Airport Scramble heuristic does) gets 1, the others
    1 − :data:`TIE`, so a policy that follows the prior plays exactly that agent's choice."""
    scores = np.asarray(scores, np.float64)
    best = np.max(scores, axis=1, keepdims=True, initial=-np.inf)
    with np.errstate(invalid="ignore"):
        gap = np.where(np.isfinite(scores), best - scores, np.inf)
    features = np.clip(1.0 - gap / units, 0.0, 1.0).astype(np.float32)
    if ties == "first":
        top = gap == 0
        first = top.argmax(axis=1)
        top[np.arange(len(top)), first] = False
        features[top] -= TIE
    return features


def rank_features(scores: np.ndarray, k: int) -> np.ndarray:
    """``float32 (B, A)``: a prior agent's ``k`` best actions by rank — its best 1, the next
    1 − :data:`RANK_STEP`, the next 1 − 2 × :data:`RANK_STEP`, … (equal scores ranked by the lowest
    index first) — and 0 for every other action and where illegal (``scores`` ``-inf``). Unlike
    :func:`prior_features`, how much worse the agent scores an action does not matter, only its place:
    with ``prior_scale`` 32 the policy departs to the agent's second choice when its own logits favour
    that action by 2, to its third by 4, and never (in practice) beyond the k best, which is where a
    search over the agent's k best candidates departs (``search:candidates=k``)."""
    scores = np.asarray(scores, np.float64)
    B, A = scores.shape
    k = min(k, A)
    best = np.argsort(np.where(np.isfinite(scores), -scores, np.inf), axis=1, kind="stable")[:, :k]
    rows = np.arange(B)[:, None]
    values = np.broadcast_to((1 - RANK_STEP * np.arange(k)).astype(np.float32), (B, k))
    features = np.zeros((B, A), np.float32)
    features[rows, best] = np.where(np.isfinite(scores[rows, best]), values, 0)
    return features


class PriorExtractor(torch.nn.Module):
    """The policy's MLP: its actor's output followed by the prior features (the input's last A entries)."""

    def __init__(self, inner, prior_size: int) -> None:
        super().__init__()
        self.inner, self.prior_size = inner, prior_size
        self.latent_dim_pi = inner.latent_dim_pi + prior_size
        self.latent_dim_vf = inner.latent_dim_vf

    def forward(self, features):
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features):
        return torch.cat([self.inner.forward_actor(features), features[:, -self.prior_size:]], dim=1)

    def forward_critic(self, features):
        return self.inner.forward_critic(features)


class PriorHead(torch.nn.Module):
    """Action logits: a linear layer of the actor's output plus ``scale`` × the prior features
    (``scale`` starts at ``prior_scale`` and is learnt, or stays there with ``learn_scale`` off)."""

    def __init__(self, latent_dim: int, prior_size: int, scale: float, learn_scale: bool = True) -> None:
        super().__init__()
        self.prior_size = prior_size
        self.linear = torch.nn.Linear(latent_dim, prior_size)
        self.log_scale = torch.nn.Parameter(torch.tensor(float(np.log(scale))), requires_grad=learn_scale)

    def forward(self, latent):
        return self.linear(latent[:, :-self.prior_size]) + self.log_scale.exp() * latent[:, -self.prior_size:]


class PriorPolicy(MaskableActorCriticPolicy):
    """sb3-contrib's MaskableActorCriticPolicy whose logits add a prior agent's preferences to the network's.

    The policy's input ends with :func:`prior_features` (A entries); the action logits are the
    network's plus ``scale`` × those features, so the untrained policy already plays like the prior
    agent (its best action ``prior_scale`` logits above any action ``units`` worse or more) and PPO
    learns where to depart from it."""

    def __init__(self, *args, prior_scale: float = 32.0, learn_prior_scale: bool = True, **kwargs) -> None:
        self.prior_scale, self.learn_prior_scale = prior_scale, learn_prior_scale
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        super()._build_mlp_extractor()
        self.mlp_extractor = PriorExtractor(self.mlp_extractor, self.action_space.n)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        head = self._head()
        if self.ortho_init:
            head.linear.apply(lambda m: self.init_weights(m, gain=0.01))
        self.action_net = head.to(self.device)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _head(self) -> PriorHead:
        """The action head (a subclass may return a :class:`PriorHead` of its own, under the same weight names)."""
        return PriorHead(self.mlp_extractor.inner.latent_dim_pi, self.action_space.n, self.prior_scale,
                         learn_scale=self.learn_prior_scale)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "prior_scale": self.prior_scale,
                "learn_prior_scale": self.learn_prior_scale}


class PPOAgent(Agent):
    """A trained MaskablePPO policy (see the module docstring).

    ``path``: the model zip (default: the shipped model of the game and player count);
    ``deterministic``: on = the most likely legal action, off = sample (with the agent's seed);
    ``caution``: with a prior, the prior agent's best actions get that many logits more, so the policy
    leaves them only where it favours another action by more than the caution — a cautious policy for
    rules it has not seen (default: the sidecar's ``caution.value``, which
    ``benchmarks/rule_general.py --set-caution`` chooses over drawn variants, else 0);
    ``check``: with a prior, a self-check of that many deals under the rules in play chooses the caution,
    or plays as the prior agent where no caution is shown better than it (:mod:`aerodeck.agents.self_check`;
    default: the sidecar's ``check.deals``, else 0: no check). Its outcome is ``check_result``; a check
    runs once per model file, rules and knobs in a process.
    """

    name = "ppo"
    #: ``[decisions, as the prior]`` counted by :meth:`act` when set to ``[0, 0]`` (a model with a prior):
    #: how many of its decisions were one of the prior agent's best actions (what a training run reports).
    agreement: list | None = None
    knobs = {
        "path": Knob(str, doc="the model zip written by aerodeck train (default: the shipped model)"),
        "deterministic": Knob(bool, doc="on: the most likely legal action; off: sample from the policy"),
        "general": Knob(bool, doc="the shipped rule-general model (`ppo:general`), trained over rule variants"),
        "caution": Knob(float, 0, 1000, doc="models with a prior: leave the prior agent's choice only for an action the "
                                           "policy favours by more than this many logits (default: the model's sidecar "
                                           "caution, else 0: the policy as trained)"),
        "check": Knob(int, 0, 100_000, doc="models with a prior: deals of a self-check under the rules in play that "
                                           "chooses the caution, or plays as the prior agent where none is shown "
                                           "better (default: the model's sidecar check, else 0: none)"),
    }

    def __init__(self, seed: int | None = 0, rules=None, path: str | None = None, deterministic: bool = True,
                 general: bool = False, caution: float | None = None, check: int | None = None) -> None:
        if rules is None and path is None:
            raise ValueError("ppo needs the rules of the game it plays (or a model path whose sidecar names them)")
        if path is not None and general:
            raise ValueError("agent 'ppo': give path= or general, not both")
        if path is None:
            game = game_of(rules)
            path = shipped_path(game, rules, general)
            if not path.exists():
                raise ValueError(f"no shipped ppo model for {game.id} under these rules ({path.name}); shipped: "
                                 f"{', '.join(shipped_models()) or 'none'} — train one with `aerodeck train {game.id}` "
                                 f"and pass ppo:path=...")
        self.model = load_model(path, rules)
        super().__init__(seed, self.model.rules)
        self.policy = self.model.policy
        self.inputs = self.model.inputs
        self.deterministic = bool(deterministic)
        if caution is not None and check:
            raise ValueError("agent 'ppo': give caution= or check= (a self-check chooses the caution), not both")
        if check is None:
            check = 0 if caution is not None else sidecar_check(path, self.model.sidecar)
        if caution is None:
            caution = sidecar_caution(path, self.model.sidecar)
        for knob, value in (("caution", caution), ("check", check)):
            if value and self.inputs.prior is None:
                raise ValueError(f"agent 'ppo': {knob}= needs a model that reads a prior agent's preferences; "
                                 f"{path} reads none")
        self.caution, self.as_prior, self.check_result = float(caution), False, None
        if check:
            self.check_result = _checked(self, Path(path), check)
            chosen = self.check_result["caution"]
            self.caution, self.as_prior = (0.0, True) if chosen is None else (chosen, False)

    @classmethod
    def from_policy(cls, policy, rules, inputs: Inputs, deterministic: bool = True, seed=0) -> PPOAgent:
        """An agent acting with ``policy`` (a live ``MaskableActorCriticPolicy``, e.g. during training)
        that reads ``inputs``."""
        agent = cls.__new__(cls)
        Agent.__init__(agent, seed, rules)
        agent.model, agent.policy, agent.inputs, agent.deterministic = None, policy, inputs, bool(deterministic)
        agent.caution, agent.as_prior, agent.check_result = 0.0, False, None
        return agent

    def act(self, observations: np.ndarray, masks: np.ndarray, view=None, keys: np.ndarray | None = None) -> np.ndarray:
        """Actions ``int64 (B,)`` for observations ``float32 (B, O)`` and masks ``bool (B, A)``: the most
        likely legal action, or one sampled from the policy (Gumbel-max, the noise drawn from the
        decision ``keys`` ``uint64 (B,)``, or from the agent's generator without them). With a
        ``caution``, the prior agent's best actions (prior feature 1) get that many logits more first;
        after a self-check that found no caution better than the prior agent, the prior agent acts.
        A row without a legal action (a finished game) gets action 0."""
        masks = np.asarray(masks, bool)
        if self.as_prior:
            return act(self.inputs.prior_agent, observations, masks, view, keys)
        inputs = self.inputs(observations, masks)
        logits = masked_logits(self.policy, inputs, self.inputs.family_masks(masks))
        if self.caution:
            logits += self.caution * (inputs[:, -logits.shape[1]:] == 1)
        if not self.deterministic:
            logits = logits + self.gumbel(keys, logits.shape).astype(np.float32)
        legal = masks.any(axis=1)
        chosen = np.where(legal, logits.argmax(axis=1), 0)
        if self.agreement is not None and self.inputs.prior is not None:  # the prior's best: feature 1
            best = inputs[np.flatnonzero(legal), inputs.shape[1] - logits.shape[1] + chosen[legal]] == 1
            self.agreement[0] += int(legal.sum())
            self.agreement[1] += int(best.sum())
        return np.where(legal, self.inputs.variant_actions(chosen), 0)


#: Self-checks done in this process: (model file, its mtime, rules, deals, deterministic, key) -> outcome.
_CHECKS: dict[tuple, dict] = {}


def _checked(agent: PPOAgent, path: Path, deals: int) -> dict:
    """The outcome of ``agent``'s self-check of ``deals`` deals (:func:`aerodeck.agents.self_check.self_check`),
    done once per model file, rules, deals and sampling in a process."""
    from aerodeck.agents.declared import make_declared
    from aerodeck.agents.self_check import self_check

    game = game_of(agent.rules)
    cache = (str(path.resolve()), path.stat().st_mtime_ns, repr(agent.rules), deals, agent.deterministic,
             None if agent.deterministic else agent.key)
    if cache not in _CHECKS:
        opponent = make_declared(game.id, game.opponent, agent.rules, seed=1) if not game.solo else None
        _CHECKS[cache] = self_check(agent, game, opponent, deals)
    return _CHECKS[cache]


def sidecar_check(path, sidecar: dict) -> int:
    """The self-check a model plays with by default: its sidecar's ``check.deals`` (0 without one);
    ``ValueError`` naming the sidecar if it is not an integer in 0..100000."""
    entry = sidecar.get("check", {"deals": 0})
    value = entry.get("deals") if isinstance(entry, dict) else None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100_000:
        raise ValueError(f"the sidecar of {path}: check must be {{\"deals\": an integer in 0..100000, ...}}, got {entry!r}")
    return value


def sidecar_caution(path, sidecar: dict) -> float:
    """The caution a model plays with by default: its sidecar's ``caution.value`` (0 without one);
    ``ValueError`` naming the sidecar if it is not a number in 0..1000."""
    entry = sidecar.get("caution", {"value": 0.0})
    value = entry.get("value") if isinstance(entry, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1000:
        raise ValueError(f"the sidecar of {path}: caution must be {{\"value\": a number in 0..1000, ...}}, got {entry!r}")
    return float(value)


class TrainedModel:
    """A loaded model: ``policy`` (the torch module), ``sidecar`` (dict, empty without one), ``game``
    (``GameSpec``), ``rules`` (the rules it plays under) and ``inputs`` (:class:`Inputs`)."""

    def __init__(self, policy, sidecar: dict, game, rules, inputs: Inputs) -> None:
        self.policy, self.sidecar, self.game, self.rules, self.inputs = policy, sidecar, game, rules, inputs


def load_model(path, rules=None) -> TrainedModel:
    """Load the model zip ``path`` to play under ``rules`` (default: the rules in its sidecar).

    Raises ``FileNotFoundError`` for a missing file, ``ValueError`` for a file that is not a
    stable-baselines3 model (truncated, another format) or a sidecar that cannot be read, and
    ``ValueError`` naming both layouts when the model's layout differs from that of ``rules``; warns
    (``UserWarning``) naming the differing options when the layout matches but the rules do not."""
    from aerodeck import envs

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no model file {path}" + (" (it is a folder)" if path.is_dir() else ""))
    if not zipfile.is_zipfile(path):
        raise ValueError(f"{path} is not a stable-baselines3 model: not a zip archive (truncated, or another kind of file)")
    sidecar = read_sidecar(path)
    if rules is None:
        game = envs.spec(sidecar["game"]) if sidecar.get("game") in envs.games() else None
        if game is None:
            raise ValueError(f"{path} has no sidecar naming a known game: give the rules to play under")
        rules = game.rules_class().from_options(sidecar.get("rules", {}))
    game = game_of(rules)
    if sidecar.get("game", game.id) != game.id:
        raise ValueError(f"{path} is a {sidecar['game']} model; these rules are {game.id}'s")
    policy = _load_policy(path)
    spec = sidecar.get("inputs", {})
    if spec.get("variants"):
        return _load_general(path, policy, sidecar, game, rules)
    layout = layout_of(game.make_core(rules))
    O, A = layout["observation_size"], layout["n_actions"]
    n_in, n_out = policy.observation_space.shape[0], policy.action_space.n
    if "inputs" in sidecar:
        inputs = Inputs.make(game.id, rules, spec.get("mask", False), spec.get("prior"), spec.get("prior_units", 4.0),
                             spec.get("prior_ties", "even"), spec.get("prior_ranks", 0))
    else:  # a model saved from Python: it reads the observation, perhaps followed by the mask
        inputs = Inputs(mask=n_in == O + A)
    trained = sidecar.get("layout") or {"observation_size": n_in - (inputs.size(O, A) - O), "n_actions": int(n_out)}
    if trained != {k: layout[k] for k in trained} or n_in != inputs.size(O, A) or n_out != A:
        raise ValueError(
            f"{path} was trained for another layout: {_describe_layout(trained)}"
            + (f" (rules: {rules_text(sidecar['rules'])})" if "rules" in sidecar else "")
            + f"; the rules in use ({rules.label()}) have {_describe_layout(layout)}")
    if "rules" in sidecar:
        differ = _differing_options(sidecar["rules"], rules.to_dict())
        if differ:
            warnings.warn(f"{path} was trained under other rules with the same layout; it plays under "
                          f"{rules.label()} and differs in {differ}", UserWarning, stacklevel=3)
    return TrainedModel(policy, sidecar, game, rules, inputs)


def _load_general(path: Path, policy, sidecar: dict, game, rules) -> TrainedModel:
    """A rule-general model (its sidecar's inputs name a variant space) to play under ``rules``: refused
    when their layout does not fit the model's family layout; a warning names the options outside the
    ranges it was trained on."""
    from aerodeck.agents.variants import VariantSpace

    spec = sidecar["inputs"]
    try:
        space = VariantSpace.from_dict(game, spec["variants"])
        inputs = Inputs.make(game.id, rules, spec.get("mask", False), spec.get("prior"), spec.get("prior_units", 4.0),
                             spec.get("prior_ties", "even"), spec.get("prior_ranks", 0), variants=space)
    except ValueError as err:
        raise ValueError(f"{path} (rule-general over {sidecar['inputs']['variants'].get('ranges')}) cannot play "
                         f"under {rules.label()}: {err}") from None
    family = layout_of(game.make_core(space.family))
    n_in, n_out = policy.observation_space.shape[0], policy.action_space.n
    if sidecar.get("layout", family) != family or n_in != inputs.size(0, 0) or n_out != family["n_actions"]:
        raise ValueError(f"{path} does not match its sidecar: its family layout is {_describe_layout(family)}, the "
                         f"network reads {n_in} inputs and has {n_out} actions")
    outside = space.outside(rules)
    if outside:
        warnings.warn(f"{path} was trained on the variants {space.describe()}; it plays under {rules.label()}, "
                      f"outside them in {', '.join(outside)}", UserWarning, stacklevel=3)
    return TrainedModel(policy, sidecar, game, rules, inputs)


def read_sidecar(path: Path) -> dict:
    """The sidecar of model ``path`` as a dict (empty if there is none); ``ValueError`` if unreadable."""
    side = sidecar_path(path)
    if not side.exists():
        return {}
    try:
        data = json.loads(side.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"the sidecar {side} of {path.name} cannot be read: {err}") from None
    if not isinstance(data, dict):
        raise ValueError(f"the sidecar {side} of {path.name} is not a JSON object")
    return data


def _load_policy(path: Path):
    """The policy of a MaskablePPO zip on the CPU, in evaluation mode."""
    from sb3_contrib import MaskablePPO

    # schedules are pickled closures; inference needs none of them
    constant = {"learning_rate": 0.0, "lr_schedule": lambda _: 0.0, "clip_range": lambda _: 0.0}
    try:
        constant.update(_renamed_objects(path))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = MaskablePPO.load(path, device="cpu", custom_objects=constant)
    except Exception as err:  # SB3 reports a bad archive in many ways (KeyError, pickle, zip, torch errors)
        raise ValueError(f"{path} is not a loadable MaskablePPO model ({type(err).__name__}: {err})") from None
    policy = model.policy
    if not hasattr(policy, "action_net") or getattr(policy.action_space, "n", None) is None:
        raise ValueError(f"{path} is not a MaskablePPO model with a discrete action space")
    policy.set_training_mode(False)
    return policy


#: The import names of models saved before the suite became one package, ``aerodeck``.
_BARE_PACKAGES = ("envs", "agents", "train")


class _RenamingUnpickler(pickle.Unpickler):
    """Reads a class pickled under a bare package name (``agents.airport_scramble.local``) from its
    ``aerodeck`` home (``aerodeck.agents.airport_scramble.local``)."""

    def find_class(self, module: str, name: str):
        if module.split(".")[0] in _BARE_PACKAGES:
            module = f"aerodeck.{module}"
        return super().find_class(module, name)


def _renamed_objects(path: Path) -> dict:
    """The entries of model ``path``'s ``data`` that name classes under the bare package names, read from
    their ``aerodeck`` modules (SB3's ``custom_objects``); empty for a model saved under ``aerodeck``."""
    with zipfile.ZipFile(path) as archive:
        data = json.loads(archive.read("data"))
    found = {}
    for key, value in data.items():
        if isinstance(value, dict) and ":serialized:" in value and \
                str(value.get("__module__", "")).split(".")[0] in _BARE_PACKAGES:
            found[key] = _RenamingUnpickler(io.BytesIO(base64.b64decode(value[":serialized:"]))).load()
    return found


def _describe_layout(layout: dict) -> str:
    text = f"observation size {layout['observation_size']}, {layout['n_actions']} actions"
    return text + (f", fingerprint {layout['fingerprint']}" if "fingerprint" in layout else "")


def rules_text(rules: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in rules.items())


def _differing_options(trained: dict, used: dict) -> str:
    keys = sorted(set(trained) | set(used))
    return ", ".join(f"{k} (trained {trained.get(k)!r}, now {used.get(k)!r})" for k in keys if trained.get(k) != used.get(k))

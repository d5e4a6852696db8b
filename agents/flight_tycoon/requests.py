"""The ``requests`` policy network of Flight Tycoon (``[policy] network = "requests"``, issue 20).

Where the search agent beats the MLP policy is in its requests (FT-8): allowed to search the requests
alone, with the MLP on every other decision, it plays as well as the whole search
(``research/search_gain_by_decision.py``). The MLP's output layer learns each of the (n − 1)·24
requests on its own row. This network adds to the prior policy's logits (:class:`aerodeck.agents.ppo.PriorPolicy`:
the MLP over the whole input, plus the heuristic's preferences) one small network, the same for every
request, that scores each of the heuristic's k best legal requests from what the heuristic weighs and
what it leaves out (:class:`RequestFeatures`): the chance of a landing and its VP, the target's
standing and hand, the square's tokens and how many of its months I hold.
Its last layer starts near 0, so the untrained policy is the prior policy. A plain
``MaskableActorCriticPolicy`` otherwise: cloning, PPO, saving, loading and ``ppo:path=`` play it unchanged.
"""

from __future__ import annotations

import numpy as np
import torch

from aerodeck.agents.flight_tycoon.facts import MONTHS_CARDS, Facts
from aerodeck.agents.flight_tycoon.heuristic import request_odds
from aerodeck.agents.ppo import PriorExtractor, PriorHead, PriorPolicy
from aerodeck.envs.flight_tycoon.observation import ObservationLayout
from aerodeck.envs.flight_tycoon.rules import N_CARDS, N_SQUARES, SQUARE_BITS, SQUARE_KIND, landing_vp_table

#: The heuristic's value of a landing beyond its VP (its default ``land_bonus``), in the VP at stake.
LAND_BONUS = 0.25


class RequestFeatures:
    """The heuristic's ``k`` best legal requests as the request network reads them: features ``float32
    (B, k, size)``, their action indices ``int64 (B, k)`` and ``valid`` ``bool (B, k)``, for observations
    ``float32 (B, O)`` and legal masks ``bool (B, A)`` (a row that is no request decision, or has fewer
    than k legal requests, has invalid candidates).

    Per request: the heuristic's P(landing), whether the target surely collides, the VP it would pay
    (÷ the most a square pays) and their product (the heuristic's score; the candidates are its k best);
    the square (one-hot) and its kind (one-hot), its tokens, the share of its months I hold, the cards
    meeting it that I cannot locate and those of them of my months (÷ 12), whether it has tokens; the
    target (offset one-hot), its VP and mine (÷ 10) and their difference, whether it leads, its hand
    and hidden cards (÷ 12), the cards I locate there — all, those meeting the square, and those of
    them of my months (÷ 12); the game's stock and deck (÷ their scales). Laid out as those 20 figures,
    then the square, square-kind and target one-hots."""

    def __init__(self, rules, candidates: int = 8) -> None:
        self.rules, self.layout, self.k = rules, ObservationLayout(rules), int(candidates)
        self.n = rules.n_players
        self.vp_table = landing_vp_table(rules).astype(np.float32)
        self.vp_top = max(1.0, float(self.vp_table.max()) + LAND_BONUS)
        self.square_eye = np.eye(N_SQUARES, dtype=np.float32)
        self.kind_eye = np.eye(int(SQUARE_KIND.max()) + 1, dtype=np.float32)[SQUARE_KIND]  # (24, 5)
        self.target_eye = np.eye(self.n - 1, dtype=np.float32)
        self.size = 20 + N_SQUARES + self.kind_eye.shape[1] + (self.n - 1)

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        facts = Facts.read(self.layout, np.asarray(observations, np.float32))
        B, T, Q = facts.batch_size, self.n - 1, N_SQUARES
        p_land, known_bad, value = request_odds(facts, self.rules, self.vp_table, LAND_BONUS)
        value = value / np.float32(self.vp_top)  # (B, 24)
        score = np.where(known_bad, 0.0, p_land * value[:, None, :]).reshape(B, T * Q)
        legal = np.asarray(masks, bool)[:, N_CARDS:]
        k = min(self.k, T * Q)
        pick = np.argsort(-np.where(legal, score, -np.inf), axis=1, kind="stable")[:, :k]  # (B, k)
        rows = np.arange(B)[:, None]
        valid = legal[rows, pick]
        t, q = pick // Q, pick % Q
        mine = facts.months
        bad = MONTHS_CARDS[mine]
        unknown = facts.unknown
        cards = SQUARE_BITS[q]  # (B, k)
        held = np.bitwise_count(cards & bad[:, None]) / np.bitwise_count(cards)  # = the share of its months I hold
        tokens = facts.tokens[rows, q]
        target = facts.located[:, 1:][rows, t]  # (B, k) what I can locate in the target's hand
        vp = facts.vp.astype(np.float64)
        t_vp, my_vp = vp[:, 1:][rows, t], np.repeat(vp[:, :1], k, 1)
        leads = (t_vp >= vp.max(1, keepdims=True)) & (t_vp > 0)
        columns = [
            p_land.reshape(B, T * Q)[rows, pick], known_bad.reshape(B, T * Q)[rows, pick], value[rows, q],
            score[rows, pick],
        ]
        columns += [tokens / max(1, self.rules.tokens), held, np.bitwise_count(unknown[:, None] & cards) / 12,
                    np.bitwise_count((unknown & bad)[:, None] & cards) / 12, tokens > 0]
        columns += [t_vp / 10, my_vp / 10, (t_vp - my_vp) / 10, leads, facts.hand_size[:, 1:][rows, t] / 12,
                    facts.hidden[:, 1:][rows, t] / 12, np.bitwise_count(target) / 12,
                    np.bitwise_count(target & cards) / 12, np.bitwise_count(target & cards & bad[:, None]) / 12,
                    np.repeat(facts.stock[:, None] / max(1, self.rules.tokens), k, 1),
                    np.repeat(facts.deck[:, None] / N_CARDS, k, 1)]
        out = np.concatenate([np.stack(columns, axis=2).astype(np.float32), self.square_eye[q], self.kind_eye[q],
                              self.target_eye[t]], axis=2)
        return out, pick + N_CARDS, valid


class RequestExtractor(PriorExtractor):
    """The prior policy's extractor whose actor output also carries the observation and the legal mask
    (the head reads them)."""

    def __init__(self, inner, prior_size: int, obs_size: int) -> None:
        super().__init__(inner, prior_size)
        self.obs_size = obs_size
        self.latent_dim_pi = inner.latent_dim_pi + obs_size + 2 * prior_size

    def forward_actor(self, features):  # the input: observation, legal mask (A entries), prior (A entries)
        return torch.cat([self.inner.forward_actor(features), features[:, :self.obs_size + self.prior_size],
                          features[:, -self.prior_size:]], dim=1)


class RequestHead(PriorHead):
    """Action logits ``(B, A)``: the prior head's (:class:`aerodeck.agents.ppo.PriorHead`, whose weights it keeps
    under the same names, so a prior policy's model can start it: ``[policy] init``) plus, on the
    heuristic's ``candidates`` best requests, one shared MLP (two layers of ``width``, ReLU) over their
    :class:`RequestFeatures`."""

    def __init__(self, rules, latent_dim: int, obs_size: int, n_actions: int, scale: float, learn_scale: bool,
                 width: int, candidates: int) -> None:
        super().__init__(latent_dim, n_actions, scale, learn_scale)
        self.features = RequestFeatures(rules, candidates)
        self.latent_dim, self.obs_size, self.n_actions = latent_dim, obs_size, n_actions
        self.score = torch.nn.Sequential(torch.nn.Linear(self.features.size, width), torch.nn.ReLU(),
                                         torch.nn.Linear(width, width), torch.nn.ReLU(), torch.nn.Linear(width, 1))

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        O, A = self.obs_size, self.n_actions
        hidden, rest = latent[:, :self.latent_dim], latent[:, self.latent_dim:]
        logits = super().forward(torch.cat([hidden, rest[:, O + A:]], dim=1))
        seen = rest[:, :O + A].detach().cpu().numpy()
        features, actions, valid = self.features(seen[:, :O], seen[:, O:] > 0.5)
        extra = self.score(torch.as_tensor(features, device=latent.device)).squeeze(-1)  # (B, k)
        extra = extra * torch.as_tensor(valid, device=latent.device)
        return logits.scatter_add(1, torch.as_tensor(actions, device=latent.device), extra)


class RequestPolicy(PriorPolicy):
    """The prior policy with the request network added to its request logits (module docstring).

    ``rules``: the rules' options (``rules.to_dict()``, kept in the model zip); ``obs_size``: where the
    observation ends in the input; ``width``: the request network's hidden width; ``candidates``: how many
    of the heuristic's best legal requests it scores."""

    def __init__(self, *args, rules: dict, obs_size: int, width: int = 64, candidates: int = 8, **kwargs) -> None:
        from aerodeck.envs.flight_tycoon.rules import FlightTycoonRules

        self.rules_options, self.obs_size, self.width = dict(rules), int(obs_size), int(width)
        self.candidates = int(candidates)
        self.rules = FlightTycoonRules.from_options(self.rules_options)
        super().__init__(*args, **kwargs)

    @classmethod
    def policy_kwargs(cls, config, rules, inputs) -> dict:
        """The keywords of a request policy for the ``[policy]`` section ``config`` under ``rules`` reading
        ``inputs`` (``aerodeck.agents.ppo.Inputs``); ``ValueError`` naming the knob when it cannot be built."""
        if not inputs.prior or not inputs.mask:
            raise ValueError("[policy] network = 'requests' adds to the prior policy and reads the legal mask: set "
                             "[policy] prior = 'heuristic' and sees_mask = true")
        if inputs.variants is not None:
            raise ValueError("[policy] network = 'requests' reads one rules set's observation: it cannot be "
                             "rule-general ([variants] ranges must be empty)")
        return {"rules": rules.to_dict(), "obs_size": ObservationLayout(rules).size, "width": config.local_width,
                "prior_scale": config.prior_scale, "learn_prior_scale": config.learn_prior_scale}

    def _build_mlp_extractor(self) -> None:
        super()._build_mlp_extractor()
        self.mlp_extractor = RequestExtractor(self.mlp_extractor.inner, self.action_space.n, self.obs_size)

    def _head(self) -> RequestHead:
        head = RequestHead(self.rules, self.mlp_extractor.inner.latent_dim_pi, self.obs_size, self.action_space.n,
                           self.prior_scale, self.learn_prior_scale, self.width, self.candidates)
        if self.ortho_init:
            head.score[-1].apply(lambda m: self.init_weights(m, gain=0.01))  # starts as the prior policy
        return head

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "rules": self.rules_options, "obs_size": self.obs_size,
                "width": self.width, "candidates": self.candidates}

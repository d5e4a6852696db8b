"""The ``local`` policy network of Airport Scramble (``[policy] network = "local"``, issue 20).

An MLP over the whole observation learns the search's departures from the heuristic slowly: which
card goes where shows in a few cells around the play, in a 528-wide input. The local network instead
scores each of the prior agent's k best actions (the policy's rank features, ``prior_ranks = k``) with
one small network, the same for every candidate, that reads what the heuristic's planner reads
around it (:class:`LocalFeatures`): the grid around the cell the action acts on, the card it plays,
its kind and rank, and the game's counts. The policy's logits are those k scores plus
``prior_scale`` × the rank features (as :class:`aerodeck.agents.ppo.PriorPolicy`: the untrained policy plays
the prior agent's choice, 2 logits per rank with the defaults); every other action gets
:data:`OUTSIDE` (legal, but in practice never chosen). The value network is the usual
MLP over the whole input. A plain ``MaskableActorCriticPolicy`` otherwise: cloning, PPO, saving,
loading and ``ppo:path=`` play it unchanged.
"""

from __future__ import annotations

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from aerodeck.agents.airport_scramble.heuristic import UNIT, plan_scores
from aerodeck.agents.airport_scramble.planning import Geometry, Table
from aerodeck.envs.airport_scramble.actions import KINDS

#: The logit of an action outside the prior agent's k best (the candidates' scores are near 0).
OUTSIDE = -30.0

#: The heuristic's plan as each candidate reads it with ``plan`` (:meth:`LocalFeatures.plan_figures`).
PLAN_FIGURES = 6


class LocalFeatures:
    """Each candidate action as the local network reads it: ``float32 (n, k, size)`` for observations
    ``float32 (n, O)`` and candidate actions ``int64 (n, k)``.

    Per candidate: the ``(2·radius + 1)²`` cells around its cell — the play's or the line's cell, the
    flight's landing, else the plane's cell — each as [off the grid, a card, its H colour one-hot, its V
    colour one-hot, the plane, the ticket's origin, its destination]; the played card's H and V colours
    (one-hot with "none"); the game's counts (die / 8, points / 4, aboard, a ticket is current, the
    AS-15 line choice, deck / 48, the share of cells with a card) and the cards of each colour pair
    still to come / 5; the action's kind (one-hot). With ``plan``, then the heuristic's plan
    (:meth:`plan_figures`, which needs the legal masks)."""

    def __init__(self, rules, radius: int = 3, plan: bool = False) -> None:
        if not 1 <= radius <= 8:
            raise ValueError(f"the local network's radius must be in 1..8, got {radius}")
        self.geo, self.radius, self.plan = Geometry(rules), radius, bool(plan)
        self.kinds = np.eye(len(KINDS), dtype=np.float32)[self.geo.actions.index_kinds()]
        side = 2 * radius + 1
        self.channels = 5 + 2 * self.geo.n_colors
        self.size = side * side * self.channels + 2 * (self.geo.n_colors + 1) + 7 + self.geo.n_colors**2 + len(KINDS)
        self.size += PLAN_FIGURES if self.plan else 0
        codes = np.arange(1 << self.channels)  # (2**13 with 4 colours; 2**17, 8.9 MB, with 6)
        self.bits = ((codes[:, None] >> np.arange(self.channels)) & 1).astype(np.float32)  # a code's channels

    def cells(self, table: Table, actions: np.ndarray) -> np.ndarray:
        """``int64 (n, k)``: the cell each candidate acts on (see the class docstring)."""
        geo, lay = self.geo, self.geo.actions
        cell = np.repeat(table.plane[:, None], actions.shape[1], axis=1)
        play = (actions >= lay.play_offset) & (actions < lay.replace_offset)
        line = (actions >= lay.line_offset) & (actions < lay.wait)
        cell = np.where(play, (actions - lay.play_offset) % geo.G2, cell)
        cell = np.where(line, (actions - lay.line_offset) % geo.G2, cell)
        landing = geo.landing(table.plane[:, None], actions)
        return np.where(landing >= 0, landing, cell)

    def around(self, values: np.ndarray, cells: np.ndarray, fill) -> np.ndarray:
        """``(n, k, (2·radius + 1)²)``, the dtype of ``values``: the per-cell ``values`` ``(n, G²)`` of the
        cells around each of ``cells`` ``int64 (n, k)``, row-major, ``fill`` off the grid."""
        G, R, n = self.geo.G, self.radius, len(values)
        padded = np.full((n, G + 2 * R, G + 2 * R), fill, values.dtype)
        padded[:, R:R + G, R:R + G] = values.reshape(n, G, G)
        offsets = np.arange(-R, R + 1)
        r = (cells // G)[:, :, None, None] + R + offsets[None, None, :, None]
        c = (cells % G)[:, :, None, None] + R + offsets[None, None, None, :]
        return padded[np.arange(n)[:, None, None, None], r, c].reshape(n, cells.shape[1], -1)

    def plan_figures(self, table: Table, masks: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """``float32 (n, k, 6)``: what the heuristic's plan (:func:`heuristic.plan_scores`, in action points,
        lower is better) says of each candidate ``actions`` ``int64 (n, k)`` given the legal ``masks``
        ``bool (n, A)``: its score and the best one (each as sign · log(1 + |points|) / 4: the plan's
        modes shift scores by hundreds of points), its gap to the best (log(1 + gap) / 4, and the gap
        itself capped at 4 points, / 4), whether it is within one point of the best, and whether it
        is within one point of the next candidate (a near tie the heuristic's order broke)."""
        plan = plan_scores(self.geo, table, masks).all
        score = np.take_along_axis(plan, actions, axis=1).astype(np.float64) / UNIT  # (n, k)
        best = plan.min(axis=1, keepdims=True).astype(np.float64) / UNIT
        gap = np.maximum(score - best, 0.0)
        after = np.concatenate([score[:, 1:], score[:, -1:] + 2.0], axis=1)

        def signed_log(points):
            return np.sign(points) * np.log1p(np.abs(points)) / 4

        return np.stack([signed_log(score), np.broadcast_to(signed_log(best), score.shape), np.log1p(gap) / 4,
                         np.minimum(gap, 4.0) / 4, gap < 1.0, np.abs(after - score) < 1.0], axis=2).astype(np.float32)

    def cell_codes(self, t: Table) -> np.ndarray:
        """``uint32 (n, G²)``: each cell's channels (the class docstring's, less "off the grid", bit 0,
        which is 0 on the grid) as the bits of one code."""
        nc, n = self.geo.n_colors, len(t.plane)
        h, v = t.hcol.astype(np.int64), t.vcol.astype(np.int64)
        code = (np.where(h >= 0, (1 << 1) | (1 << (2 + h.clip(0))), 0)  # a card, its H colour
                | np.where(v >= 0, 1 << (2 + nc + v.clip(0)), 0)).astype(np.uint32)  # its V colour
        rows = np.arange(n)
        for channel, where in enumerate((t.plane, t.origin_cell, t.destination_cell), start=2 + 2 * nc):
            at = where >= 0
            code[rows[at], where[at]] |= np.uint32(1 << channel)
        return code

    @staticmethod
    def game_figures(t: Table) -> np.ndarray:
        """``float32 (n, 7 + nc²)``: the game's counts (die / 8, points / 4, aboard, a ticket is current,
        the AS-15 line choice, deck / 48, the share of cells with a card) and the cards of each colour
        pair still to come / 5."""
        counts = np.stack([t.die / 8, t.points / 4, t.aboard, t.active, t.choosing, t.deck_size / 48,
                           (t.hcol >= 0).mean(axis=1)], axis=1)
        return np.concatenate([counts, t.available / 5], axis=1).astype(np.float32)

    def __call__(self, observations: np.ndarray, actions: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
        """The features ``float32 (n, k, size)``; ``masks`` ``bool (n, A)``, the legal masks, are read
        with ``plan`` only (and needed then)."""
        return self.of_table(Table.from_observations(self.geo, np.asarray(observations, np.float32)), actions, masks)

    def of_table(self, t: Table, actions: np.ndarray, masks: np.ndarray | None = None) -> np.ndarray:
        """:meth:`__call__` for the observations decoded as ``t`` (a :class:`Table`)."""
        geo, nc = self.geo, self.geo.n_colors
        actions = np.asarray(actions, np.int64)
        n, k = actions.shape
        lay = geo.actions
        # Each cell's channels as the bits of one code (off-grid = bit 0), the patches gathered as codes,
        # then one lookup of the codes' bits: a single pass over the output.
        patch = self.bits[self.around(self.cell_codes(t), self.cells(t, actions), 1)].reshape(n, k, -1)
        play = (actions >= lay.play_offset) & (actions < lay.replace_offset)
        slot = np.where(play, (actions - lay.play_offset) // geo.G2, 0)
        card_h = np.where(play, np.take_along_axis(t.slot_h, slot, axis=1), -1)
        card_v = np.where(play, np.take_along_axis(t.slot_v, slot, axis=1), -1)
        one_hot = np.eye(nc + 1, dtype=np.float32)
        card = np.concatenate([one_hot[card_h + 1], one_hot[card_v + 1]], axis=2)
        parts = [patch, card, np.repeat(self.game_figures(t)[:, None], k, axis=1), self.kinds[actions]]
        if self.plan:
            if masks is None:
                raise ValueError("the local network's plan figures need the legal masks")
            parts.append(self.plan_figures(t, np.asarray(masks, bool), actions))
        return np.concatenate(parts, axis=2)


class LocalHead(torch.nn.Module):
    """Action logits ``(B, A)`` from the policy's input ``(B, O + … + A)`` (the observation first, the
    prior agent's rank features last): each of the k ranked candidates scored by one shared MLP (two
    layers of ``width``, ReLU) over its :class:`LocalFeatures` and its rank (one-hot), plus
    ``prior_scale`` × its rank feature; :data:`OUTSIDE` for every other action. With ``plan`` the
    features read the legal mask, which the input holds right after the observation."""

    def __init__(self, rules, obs_size: int, n_actions: int, candidates: int, radius: int, width: int,
                 prior_scale: float, plan: bool = False) -> None:
        super().__init__()
        self.features = LocalFeatures(rules, radius, plan)
        self.obs_size, self.n_actions, self.k, self.prior_scale = obs_size, n_actions, candidates, prior_scale
        self.score = torch.nn.Sequential(torch.nn.Linear(self.features.size + candidates, width), torch.nn.ReLU(),
                                         torch.nn.Linear(width, width), torch.nn.ReLU(), torch.nn.Linear(width, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        ranks = x[:, -self.n_actions:]
        value, cand = torch.topk(ranks, self.k, dim=1, sorted=True)  # rank features: 1, 1 − 1/16, …; 0 outside
        observations = x[:, :self.obs_size].detach().cpu().numpy()
        masks = None
        if self.features.plan:  # the legal mask, right after the observation
            masks = x[:, self.obs_size:self.obs_size + self.n_actions].detach().cpu().numpy() > 0.5
        local = torch.as_tensor(self.features(observations, cand.cpu().numpy(), masks), device=x.device)
        rank = torch.eye(self.k, device=x.device).expand(len(x), self.k, self.k)
        scores = self.score(torch.cat([local, rank], dim=2)).squeeze(-1) + self.prior_scale * value
        scores = torch.where(value > 0, scores, torch.full_like(scores, OUTSIDE))
        return torch.full((len(x), self.n_actions), OUTSIDE, device=x.device).scatter(1, cand, scores)


class ActorInput(torch.nn.Module):
    """The policy's MLP extractor with the actor's latent = the input itself (:class:`LocalHead` reads it)."""

    def __init__(self, inner, size: int) -> None:
        super().__init__()
        self.inner = inner
        self.latent_dim_pi, self.latent_dim_vf = size, inner.latent_dim_vf

    def forward(self, features):
        return features, self.inner.forward_critic(features)

    def forward_actor(self, features):
        return features

    def forward_critic(self, features):
        return self.inner.forward_critic(features)


class LocalPolicy(MaskableActorCriticPolicy):
    """sb3-contrib's MaskableActorCriticPolicy with the local network as its actor (module docstring).

    ``rules``: the rules' options (``rules.to_dict()``, kept in the model zip); ``obs_size``: where the
    observation ends in the input; ``candidates``: k, the prior agent's ranked actions in the input's
    last A entries; ``radius``, ``width``: the local network's view and hidden width; ``prior_scale``:
    logits per unit of rank feature; ``plan``: each candidate also reads the heuristic's plan of it
    (:meth:`LocalFeatures.plan_figures`; the input must hold the legal mask). ``net_arch`` shapes the
    value network only."""

    def __init__(self, *args, rules: dict, obs_size: int, candidates: int = 4, radius: int = 3, width: int = 256,
                 prior_scale: float = 32.0, plan: bool = False, **kwargs) -> None:
        from aerodeck.envs.airport_scramble.rules import AirportScrambleRules

        self.rules_options, self.obs_size, self.candidates = dict(rules), int(obs_size), int(candidates)
        self.radius, self.width, self.prior_scale, self.plan = int(radius), int(width), float(prior_scale), bool(plan)
        self.rules = AirportScrambleRules.from_options(self.rules_options)
        super().__init__(*args, **kwargs)

    @classmethod
    def policy_kwargs(cls, config, rules, inputs) -> dict:
        """The keywords of a local policy (its ``net_arch``: the value network's only) for the ``[policy]``
        section ``config`` under ``rules`` reading ``inputs`` (``aerodeck.agents.ppo.Inputs``); ``ValueError``
        naming the knob when it cannot be built (the prior agent's ranks are its candidates:
        ``prior_ranks`` must be at least 1)."""
        if not inputs.prior or not inputs.prior_ranks:
            raise ValueError("[policy] network = 'local' scores the prior agent's k best actions: set [policy] prior "
                             "(e.g. 'heuristic') and prior_ranks = k (e.g. 4)")
        if inputs.variants is not None:
            raise ValueError("[policy] network = 'local' reads one rules set's grid: it cannot be rule-general "
                             "([variants] ranges must be empty)")
        if config.local_plan and not inputs.mask:
            raise ValueError("[policy] local_plan = true reads the legal mask: set [policy] sees_mask = true")
        from aerodeck.envs.airport_scramble.observation import ObservationLayout

        return {"net_arch": {"pi": [], "vf": list(config.net_arch)},  # the actor is the local network
                "rules": rules.to_dict(), "obs_size": ObservationLayout(rules).size, "candidates": inputs.prior_ranks,
                "radius": config.local_radius, "width": config.local_width, "prior_scale": config.prior_scale,
                "plan": config.local_plan}

    def _build_mlp_extractor(self) -> None:
        super()._build_mlp_extractor()
        self.mlp_extractor = ActorInput(self.mlp_extractor, self.features_dim)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = LocalHead(self.rules, self.obs_size, self.action_space.n, self.candidates, self.radius,
                                    self.width, self.prior_scale, self.plan).to(self.device)
        if self.ortho_init:
            self.action_net.score[-1].apply(lambda m: self.init_weights(m, gain=0.01))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        return {**super()._get_constructor_parameters(), "rules": self.rules_options, "obs_size": self.obs_size,
                "candidates": self.candidates, "radius": self.radius, "width": self.width,
                "prior_scale": self.prior_scale, "plan": self.plan}

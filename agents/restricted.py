"""Restricted play (after Jaffe et al., "Evaluating competitive game balance with restricted play"):
any agent with some kinds of action taken away, so that a mechanic's worth is the score lost without it.

``restricted:base=heuristic,forbid=replace`` plays the heuristic with every ``replace`` action masked
out; ``forbid`` names one or more of the game's action kinds (``ActionLayout.kinds``, joined by
``+``: ``forbid=replace+stop_early``) and every other parameter goes to the base agent
(``restricted:base=search,forbid=wait,rollouts=8``). The kinds of a decision's actions are public
(``Core.action_kinds``: every determinization has the same); the agent reads them from its look-ahead
view (``View.action_kinds``). When the restriction leaves a live game with no
legal action, that decision falls back to the full mask; :attr:`RestrictedAgent.fallbacks` counts how
often, out of :attr:`RestrictedAgent.decisions`.
"""

from __future__ import annotations

import numpy as np

from aerodeck.agents.base import Agent

#: The agent-spec name of restricted play.
NAME = "restricted"
#: The separator of several forbidden kinds in ``forbid=`` (a comma separates spec parameters).
KIND_SEPARATOR = "+"


def parse_forbid(text: str, kinds: tuple[str, ...]) -> tuple[str, ...]:
    """The forbidden kinds named by ``text`` (``"replace+wait"``); ``ValueError`` naming the game's kinds
    for an unknown one or an empty list."""
    names = tuple(dict.fromkeys(k.strip() for k in str(text).split(KIND_SEPARATOR) if k.strip()))
    if not names:
        raise ValueError(f"agent 'restricted': forbid names no action kind; kinds: {', '.join(kinds)}")
    for name in names:
        if name not in kinds:
            raise ValueError(f"agent 'restricted': forbid={name!r} is not an action kind of this game; "
                             f"kinds: {', '.join(kinds)} (several joined by '{KIND_SEPARATOR}')")
    return names


class RestrictedAgent(Agent):
    """``base`` (an :class:`Agent`) playing with the action kinds ``forbid`` masked out.

    ``forbid``: kind names among ``kinds``, the game's kind names (``core.actions.kinds``) in the order
    ``Core.action_kinds`` indexes them (:func:`parse_forbid` checks a spec's text).
    """

    needs_view = True

    def __init__(self, base: Agent, forbid: tuple[str, ...], kinds: tuple[str, ...], seed: int | None = 0,
                 rules=None) -> None:
        super().__init__(seed, rules)
        self.base = base
        self.forbid = tuple(forbid)
        self.forbidden = np.array([kinds.index(k) for k in self.forbid], np.int8)
        self.name = f"{NAME}({base.name} without {'+'.join(self.forbid)})"
        #: Decisions taken, and those where the restriction left nothing legal (full mask used).
        self.decisions = 0
        self.fallbacks = 0

    def act(self, observations: np.ndarray, masks: np.ndarray, view=None, keys: np.ndarray | None = None) -> np.ndarray:
        """Actions ``int64 (B,)``: the base agent's choice among the legal actions of an allowed kind
        (``masks`` ``bool (B, A)``; ``view`` the look-ahead view of the same B games, required; ``keys``
        the decision keys ``uint64 (B,)``, passed on to the base agent)."""
        return self.act_with_policy(observations, masks, view, keys)[0]

    def act_with_policy(self, observations: np.ndarray, masks: np.ndarray, view=None,
                        keys: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`act`, with the base agent's policy among the allowed actions (``Agent.act_with_policy``)."""
        if view is None:
            raise ValueError("restricted play needs the games' view to tell the kinds of their actions")
        masks = np.asarray(masks, bool)
        kinds = view.action_kinds()
        allowed = masks & ~np.isin(kinds, self.forbidden)
        empty = ~allowed.any(axis=1) & masks.any(axis=1)
        allowed[empty] = masks[empty]
        self.decisions += int(masks.any(axis=1).sum())
        self.fallbacks += int(empty.sum())
        return self.base.act_with_policy(observations, allowed, view if self.base.needs_view else None, keys)


def split_spec(params: dict[str, str]) -> tuple[str, str, dict[str, str]]:
    """The base agent's name, the ``forbid`` text and the base agent's own parameters of the spec
    ``restricted:base=NAME,forbid=KIND[+KIND...],<base knobs>`` (``params``: its parameters as text);
    ``ValueError`` when ``base`` or ``forbid`` is missing or the base is itself restricted. The registry
    builds the base agent from them and wraps it (``aerodeck.agents.registry.make_agent``)."""
    params = dict(params)
    base, forbid = params.pop("base", None), params.pop("forbid", None)
    if not base or forbid is None:
        raise ValueError("agent 'restricted' needs base=AGENT and forbid=KIND, e.g. "
                         "restricted:base=heuristic,forbid=replace")
    if base == NAME:
        raise ValueError("agent 'restricted': the base agent cannot itself be restricted; "
                         f"forbid several kinds at once instead (joined by '{KIND_SEPARATOR}')")
    return base, forbid, params

"""Policies that act on batches of games: random, heuristic, search and trained agents."""

from aerodeck.agents.base import Agent
from aerodeck.agents.random import RandomAgent

__all__ = ["Agent", "RandomAgent"]

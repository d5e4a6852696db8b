"""Policies that act on batches of games: random, heuristic, search and trained agents."""

from agents.base import Agent
from agents.random import RandomAgent

__all__ = ["Agent", "RandomAgent"]

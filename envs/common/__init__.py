"""Plumbing shared by both games: counter-based randomness, rule options, batch helpers."""

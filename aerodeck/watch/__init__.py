"""Watching games: ``aerodeck play`` (a person plays in the terminal) and ``aerodeck replay`` (recorded games, GIFs)."""

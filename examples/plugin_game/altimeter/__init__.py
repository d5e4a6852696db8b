"""Altimeter: a tiny solo card game (rules AL-1 … AL-8 in ``rules.md``) that plugs into aerodeck.

Guess whether the next altitude card climbs or descends; every right guess adds a point to the pot,
a wrong one crashes it; land to bank the pot. The package declares the whole game in
:data:`altimeter.spec.SPEC`, registered through the entry point ``aerodeck.games``.
"""

"""A frozen copy of the Airport Scramble heuristic as it was before the speed-up (issue 21): the oracle of
``tests/agents/test_airport_scramble_heuristic_same_decisions.py`` (and of the before/after figures of
``benchmarks/airport_scramble_heuristic.py``) only. Never import it from the package, never change it:
the compiled planner must score every action exactly as this one does."""

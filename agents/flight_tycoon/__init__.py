"""Flight Tycoon agents: ``heuristic`` (reads its observation) and ``search`` (information-set rollouts)."""

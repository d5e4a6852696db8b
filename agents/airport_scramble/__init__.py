"""Airport Scramble agents: heuristic and search (random is game-agnostic: ``aerodeck.agents.random``)."""

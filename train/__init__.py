"""Training: MaskablePPO on the batched core (``aerodeck train``), warm starts, leagues, rule-general models, RLlib."""

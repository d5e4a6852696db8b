"""Learning: MaskablePPO on the batched core (``aerodeck train``), the self-play league, the default configs."""

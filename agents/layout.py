"""What a trained policy depends on in a game's layout (read by model sidecars and rule-general models)."""

from __future__ import annotations

import hashlib
import json


def layout_of(core) -> dict:
    """The layouts a policy depends on: ``{"observation_size", "n_actions", "fingerprint"}``.

    The fingerprint (16 hex digits) hashes the observation blocks (name, start, size) and every
    action's description, so two rule sets with the same sizes but a different meaning of an index
    (another edition's cards, say) differ."""
    blocks = [[b.name, b.start, b.size] for b in core.observation.blocks.values()]
    actions = [core.actions.describe(a) for a in range(core.n_actions)]
    text = json.dumps({"observation": blocks, "actions": actions}, separators=(",", ":"))
    return {"observation_size": int(core.obs_size), "n_actions": int(core.n_actions),
            "fingerprint": hashlib.sha256(text.encode()).hexdigest()[:16]}

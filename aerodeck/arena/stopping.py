"""How a run is stopped: Ctrl-C raises ``KeyboardInterrupt``; SIGTERM raises :class:`Terminated`, a
``KeyboardInterrupt`` too, so that a run cleans up the same way (output folders are left whole or not
at all). The ``aerodeck`` command installs :func:`terminate` as the SIGTERM handler and exits 130 after
a Ctrl-C, 143 after a SIGTERM; a tool that runs its own process (training on Ray) does the same."""

from __future__ import annotations


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that a run cleans up the same way."""


def terminate(signum, frame):
    """The SIGTERM handler: raise :class:`Terminated`."""
    raise Terminated

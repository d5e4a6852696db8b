"""``aerodeck serve``: the local web app — play either game against the agents, watch replay files, read
the tools' output folders (:mod:`aerodeck.serve.cli` the command, :mod:`aerodeck.serve.app` the app)."""

"""``python -m aerodeck``: the ``aerodeck`` command line."""

from aerodeck.train.cli import main

if __name__ == "__main__":
    raise SystemExit(main())

"""``python -m aerodeck``: the ``aerodeck`` command line."""

from aerodeck.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())

"""The command line: ``aerodeck`` and its sub-commands, the arguments every tool shares, ``aerodeck run``."""

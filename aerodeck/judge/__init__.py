"""Judging rule changes by agent play: ``aerodeck compare / sweep / tune``, the analysis, the designer's report."""

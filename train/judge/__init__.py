"""Judging rule changes by agent play: ``aerodeck compare / sweep / tune``, significance, the designer's report, backends."""

"""Evaluating policies: the batched play loop, ``aerodeck bench``, seat-rotated tournaments, statistics, report files."""

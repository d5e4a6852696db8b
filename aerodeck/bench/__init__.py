"""``aerodeck bench``: agents played over many games, seat-rotated tournaments, ratings, report files."""

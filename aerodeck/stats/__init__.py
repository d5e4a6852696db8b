"""Statistics every report shares: estimates with intervals, significance tests."""

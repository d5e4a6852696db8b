"""Training, benchmarking, tournaments, rule evaluation and the ``aerodeck`` command line."""

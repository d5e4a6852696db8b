"""Where every tool plays its games: the batched play loop, the local and Ray backends, seat rotation, output folders."""

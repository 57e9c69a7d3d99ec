"""Benchmarks are not part of the test command; run them with --benchmark-only."""

"""Benchmarks: each figure is measured next to a reference in the same run and reported as a ratio."""

"""PERF: configurations that cost time on every request."""

"""Benchmarks of issue 7: a turn costs only its model calls, and the app stays instant with long chats.

Run `python -m bench` (see bench/README.md). Every row is measured against a baseline taken in
the same run, so the figures mean something on a noisy two-core machine. These are reports,
not tests: nothing here fails a build.
"""

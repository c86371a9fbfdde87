"""``make bench``: every benchmark, each next to its reference, in one run; then every target and
whether it was met."""

from __future__ import annotations

import sys
from collections.abc import Callable

from bench import cold_start, compaction, cost, messaging, push


def _named(result: object, name: str) -> dict[str, bool]:
    """A benchmark's verdicts: ``{target: met}``, or a bare bool under ``name``; None has none."""
    if isinstance(result, dict):
        return {str(k): bool(v) for k, v in result.items()}
    return {} if result is None else {name: bool(result)}


def _compaction() -> object:
    run: Callable[[], object] = compaction.run
    return run()


def main() -> int:
    verdicts = {
        "cold start <= 1.5x import boto3": cold_start.report(cold_start.measure()),
        **_named(messaging.run(), "publish calls <= calls(1) + N/10 (PUSH rooms)"),
        **push.run(),
        **cost.run(),
        **_named(_compaction(), "compaction >= 1/3 of DuckDB's records/s"),
    }
    print("\n## Targets\n")
    for name, met in verdicts.items():
        print(f"{'met   ' if met else 'MISSED'}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

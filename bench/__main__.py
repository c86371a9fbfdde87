"""``make bench``: every benchmark, each next to its reference, in one run; then every target and
whether it was met."""

from __future__ import annotations

import sys

from bench import (
    cold_start,
    compaction,
    cost,
    deliver_at,
    filters,
    guards,
    latency,
    messaging,
    ordering,
    publish_waits,
    pull_throughput,
    push,
    rule_budget,
    transformations,
)

# Figures that measured the emulator or the JVM rather than roomcast's code: still printed, no
# longer targets (decided with issue 52; docs/benchmarks.md).
RETIRED = ("cold start", "PULL pull+ack through", "PULL pull+ack over", "compaction: job's marginal")


def main() -> int:
    verdicts = {
        "cold start <= 1.5x import boto3": cold_start.report(cold_start.measure()),
        **messaging.run(),
        **pull_throughput.run(),
        **filters.run(),
        **rule_budget.run(),
        **push.run(),
        **latency.run(),
        **publish_waits.run(),
        **guards.run(),
        **cost.run(),
        **deliver_at.run(),
        **ordering.run(),
        **compaction.run(),
        **transformations.run(),
    }
    print("\n## Targets\n")
    for name, met in verdicts.items():
        if not name.startswith(RETIRED):
            print(f"{'met   ' if met else 'MISSED'}  {name}")
    print("\n## Retired: reported, no longer targets (they measured the emulator or the JVM; issue 52)\n")
    for name, met in verdicts.items():
        if name.startswith(RETIRED):
            print(f"{'within' if met else 'beyond'}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

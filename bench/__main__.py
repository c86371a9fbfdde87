"""``make bench``: every benchmark, each next to its reference, in one run."""

from __future__ import annotations

import sys

from bench import cold_start, compaction, messaging, push


def main() -> int:
    verdicts = {
        "cold start <= 1.5x import boto3": cold_start.report(cold_start.measure()),
        "publish calls <= calls(1) + N/10 (PUSH rooms)": messaging.run(),
        **push.run(),
    }
    compaction.run()  # a reference ratio, no target
    print("\n## Targets\n")
    for name, met in verdicts.items():
        print(f"{'met   ' if met else 'MISSED'}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

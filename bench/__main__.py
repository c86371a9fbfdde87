"""``make bench``: every benchmark, each next to its reference, in one run."""

from __future__ import annotations

import sys

from bench import cold_start, compaction, messaging, push


def main() -> int:
    all_ok = cold_start.report(cold_start.measure())
    messaging.run()
    push.run()
    compaction.run()
    print("\nall targets met" if all_ok else "\nsome targets missed (see above)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Soak: several rooms, PUSH endpoints that fail, throttle and stall, PULL consumers that nack
and drop, publishers retrying with an Idempotency-Key, and function workers SIGKILLed at random.
Nothing that got a 202 may be lost. ``make soak`` runs it for ``SOAK_SECONDS`` (300 by default)
and prints the figures; ``make test`` runs a short version."""

from __future__ import annotations

import os

import pytest

from roomcast_dev.stack import LocalStack
from tests.soak.workload import SoakSettings, run_soak, seconds_needed
from tests.support import PROJECT_ROOT

# make test: 25 s of publishing with kills, then the drain (20 s of push visibility at most).
SHORT_RUN_SECONDS = 25.0
SETTINGS = SoakSettings.from_environment(short_seconds=SHORT_RUN_SECONDS)
REPORT_FILE = PROJECT_ROOT / ".local" / "soak" / "report.txt"


@pytest.mark.timeout(seconds_needed(SETTINGS))
def test_nothing_accepted_is_lost_while_workers_are_killed(
    soak_stack: LocalStack, soak_api_key: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given / When: the workload for SETTINGS.publishing_seconds, then the drain
    report = run_soak(soak_stack, soak_api_key, SETTINGS)

    # Then
    seed = SETTINGS.seed
    text = f"soak seed {seed} (SOAK_SEED={seed} repeats its answers and kills)\n{report.text()}"
    REPORT_FILE.parent.mkdir(parents=True, exist_ok=True)
    REPORT_FILE.write_text(f"{text}\n{report.kill_timeline()}\n", encoding="utf-8")
    if "SOAK_SECONDS" in os.environ:
        with capsys.disabled():
            print(f"\n{text}\n(also in {REPORT_FILE})")
    assert report.published > 0, text
    assert report.scheduled > 0, text
    assert report.ordered_messages > 0, text
    assert sum(report.kills.values()) > 0, text
    assert report.lost == [], text
    assert report.problems == [], text

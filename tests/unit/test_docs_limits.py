"""docs/limits.md says what the code enforces: each bound below is rendered from the constant the
code uses, and must appear in the docs as written there. Change a limit without its docs and this
fails (issue 10 found the docs and the code disagreeing)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pull_api.models import MAX_RECEIPTS_PER_REQUEST
from roomcast.api.cursors import MAX_CURSOR_LENGTH
from roomcast.catalog.routing_cache import MAX_ROOMS, TTL_SECONDS
from roomcast.deliver_at.rules import DELIVER_AT_PAST_TOLERANCE_MS, MAX_DELIVER_AHEAD_MS
from roomcast.platform import limits
from roomcast.pull.receipts import MAX_RECEIPT_LENGTH

LIMITS_DOC = (Path(__file__).resolve().parents[2] / "docs" / "limits.md").read_text(encoding="utf-8")


def grouped(number: int) -> str:
    """1209600000 -> '1 209 600 000', as the docs write numbers."""
    return f"{number:,}".replace(",", " ")


@pytest.mark.parametrize(
    "phrase",
    [
        f"{grouped(limits.MAX_PAYLOAD_BYTES)} bytes (128 KiB)",
        f"{grouped(limits.MAX_PUBLISH_BODY_BYTES)} bytes (256 KiB)",
        f"1–{limits.MAX_PUBLISH_BATCH_MESSAGES} (`422 validation_error` outside",
        f"at most {grouped(limits.MAX_PUBLISH_BATCH_BODY_BYTES)} bytes (1 MiB)",
        f"at most {TTL_SECONDS:.0f} s old (`TTL_SECONDS`",
        f"at most {MAX_ROOMS} rooms per container",
        f"at most {limits.MAX_SUBSCRIPTIONS_PER_ROOM} subscription ids",
        f"1–{MAX_RECEIPTS_PER_REQUEST} receipts, each at most {grouped(MAX_RECEIPT_LENGTH)} characters",
        f"| `cursor` | at most {grouped(MAX_CURSOR_LENGTH)} characters;",
        f"0–{grouped(limits.MAX_MESSAGE_EXPIRATION_MS)} (14 days)",
        f"0–{grouped(limits.MAX_DELIVERY_DELAY_MS)} (1 day)",
        f"0–{limits.MAX_DELIVERY_ATTEMPTS} redeliveries",
        f"from {grouped(DELIVER_AT_PAST_TOLERANCE_MS)} ms in the past (delivered at once) to "
        f"{grouped(MAX_DELIVER_AHEAD_MS)} ms (365 days) ahead",
        f"| `deliverAfterMs` | `null`: at once | 0–{grouped(MAX_DELIVER_AHEAD_MS)} (365 days)",
        f"at most {limits.MAX_EVENT_TYPES} entries",
        f"at most {limits.MAX_VERSIONS_PER_EVENT_TYPE}, unique",
        f"1–{limits.MAX_CONCURRENCY}; `400 push_only`",
        f"0.000001–{grouped(limits.MAX_RATE_LIMIT_PER_SECOND)}",
        f"{grouped(limits.DEFAULT_DISABLE_AFTER_FAILING_MS)} (5 days)",
        f"{grouped(limits.MAX_DISABLE_AFTER_FAILING_MS)} (30 days)",
        'An empty list (`"destinations": []`) is refused',
        "`422 invalid_text`",
        f"An integer of more than {grouped(sys.get_int_max_str_digits())} digits",
        "without a body, or with `{}`: every dead letter",
    ],
)
def test_limits_doc_states_the_enforced_bound(phrase: str) -> None:
    assert phrase in LIMITS_DOC


def test_the_rate_limit_floor_is_the_one_documented() -> None:
    assert limits.MIN_RATE_LIMIT_PER_SECOND == 0.000001

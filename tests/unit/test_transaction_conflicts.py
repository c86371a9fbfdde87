"""Stores that write in transactions answer 409 when DynamoDB cancels one for another reason than a
condition (another transaction on the same items at that moment, throttling), rather than as if it
had been written: an API key created twice at once for one tenant (both move its key count), an
alert rule stored or deleted (roomcast.platform.table ``_transact_or_conflict``). DynamoDB's
answer is stubbed: the emulator never cancels that way."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from roomcast.alerts.model import AlertMetric, AlertRule, Condition, Notify
from roomcast.alerts.store import AlertTable
from roomcast.keys.store import ApiKeyEntry, ApiKeyTable
from roomcast.platform import Conflict, LimitExceeded
from tests.support import cancelled_transaction

TABLE = "roomcast-test-Table"
NOW = "2026-11-28T10:00:00.000Z"
ENTRY = ApiKeyEntry("acme", "key_1", "ci", NOW)
RULE = AlertRule(
    "alr_1",
    "acme",
    "rate",
    None,
    None,
    Condition(AlertMetric.SUCCESS_RATE, below=0.9, window_minutes=5, min_deliveries=10),
    Notify(webhook_url="https://x.example"),
    "whsec_x",
    NOW,
    NOW,
)


def _dynamodb() -> Any:
    return boto3.client("dynamodb", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")


def _no_rules(stub: Stubber) -> None:
    """The tenant's rules, read before a new one: none."""
    stub.add_response("query", {"Items": [], "Count": 0, "ScannedCount": 0})


WRITES: dict[str, tuple[Callable[[Any], None], Callable[[Stubber], None], tuple[str, ...]]] = {
    "an API key": (
        lambda client: ApiKeyTable(TABLE, client).put("hash", ENTRY),
        lambda _: None,
        ("None",) * 3,
    ),
    "an alert rule": (lambda client: AlertTable(TABLE, client).add_rule(RULE, 10), _no_rules, ("None",) * 2),
    "an alert rule's deletion": (
        lambda client: AlertTable(TABLE, client).delete_rule("acme", "alr_1"),
        lambda _: None,
        ("None",) * 2,
    ),
}


@pytest.mark.parametrize("write", list(WRITES))
def test_a_transaction_cancelled_by_another_at_the_same_moment_is_a_409_to_retry(write: str) -> None:
    run, before, passing = WRITES[write]
    dynamodb = _dynamodb()
    with Stubber(dynamodb) as stub:
        before(stub)
        cancelled_transaction(stub, *passing[:-1], "TransactionConflict")
        with pytest.raises(Conflict, match="at the same moment") as refused:
            run(dynamodb)
    assert refused.value.http_status == 409


def test_a_tenant_at_its_key_limit_is_still_told_so() -> None:
    dynamodb = _dynamodb()
    with Stubber(dynamodb) as stub:
        cancelled_transaction(stub, "None", "None", "ConditionalCheckFailed")
        with pytest.raises(LimitExceeded):
            ApiKeyTable(TABLE, dynamodb).put("hash", ENTRY)

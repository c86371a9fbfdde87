"""Keyed messages are stored in transactions (roomcast.messages.store): one DynamoDB cancels for
another reason than a condition — another transaction on the same items, throttling — stored
nothing, and the store says so for each message rather than reporting it stored (a publish would
otherwise answer for a message that is nowhere). The cancellation is DynamoDB's answer, stubbed:
the emulator does not produce conflicts."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

from roomcast.messages.model import Message
from roomcast.messages.ports import MessageExists, TransactionNotApplied
from roomcast.messages.store import MessageTable
from roomcast.ordering import waiting_items
from tests.support import cancelled_transaction

TABLE = "roomcast-test-Table"


def _keyed(n: int) -> Message:
    return Message(
        id=f"msg_{n:032x}",
        tenant_id="acme",
        room_id="room_1",
        event_type="e",
        event_version="1",
        correlation_id="c",
        payload={"n": n},
        published_at="2026-11-28T10:00:00.000Z",
        published_at_ms=1_795_860_000_000,
        expires_at_ms=None,
        destinations=("sub_1",),
        ordering_key=f"k{n}",
        ordering_number=1,
        ordered_to=("sub_1",),
    )


@pytest.mark.parametrize("if_new", [False, True])
def test_a_transaction_cancelled_by_a_conflict_stores_nothing_and_says_so(if_new: bool) -> None:
    dynamodb = boto3.client(
        "dynamodb", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    table = MessageTable(TABLE, dynamodb)
    messages = [_keyed(1), _keyed(2)]
    with Stubber(dynamodb) as stub:
        # Given: DynamoDB cancels every transaction: another one writes the same items
        calls = 1 if if_new else 3  # a batch's group, then each message on its own
        for _ in range(calls * (2 if if_new else 1)):
            cancelled_transaction(stub, "None", "TransactionConflict")

        # When
        failed = table.put_messages([(m, ()) for m in messages], if_new=if_new, places=waiting_items)

    # Then: neither message is reported stored, and neither as one stored before
    assert set(failed) == {m.id for m in messages}
    assert all(isinstance(error, TransactionNotApplied) for error in failed.values())


def test_a_message_stored_before_is_still_told_apart() -> None:
    dynamodb = boto3.client(
        "dynamodb", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x"
    )
    with Stubber(dynamodb) as stub:
        cancelled_transaction(stub, "ConditionalCheckFailed", "None")
        failed = MessageTable(TABLE, dynamodb).put_messages(
            [(_keyed(1), ())], if_new=True, places=waiting_items
        )
    assert isinstance(failed[_keyed(1).id], MessageExists)

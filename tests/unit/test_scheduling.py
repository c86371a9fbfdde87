"""Deliver-at's rules (roomcast.deliver_at.rules), its release task, and how a scheduled message is
stored: its index keys while it waits, and its destinations' first records through its life."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, strategies as st

from roomcast.catalog.model import SubscriptionType
from roomcast.deliver_at.rules import (
    HOP_MAX_MS,
    MAX_DELIVER_AHEAD_MS,
    SCHEDULER_ABOVE_MS,
    SCHEDULER_LEAD_MS,
    Carrier,
    carrier_for,
    hops_for,
    release_at_ms,
    schedule_fires_at_ms,
)
from roomcast.messages.items import embedded_deliveries, message_from_item, stored_message_item
from roomcast.messages.model import Delivery, DeliveryStatus, Message
from roomcast.outbox.tasks import Release, TaskError, task_from_json
from roomcast.platform.clock import DAY_MS, MINUTE_MS, SECOND_MS, iso_from_ms
from roomcast.platform.errors import InvalidRequest

NOW = 1_795_000_000_000


def test_no_time_asked_is_at_once_and_a_wait_or_a_time_is_then() -> None:
    assert release_at_ms(NOW, None, None) is None
    assert release_at_ms(NOW, None, 5_000) == NOW + 5_000
    assert release_at_ms(NOW, NOW + 7 * DAY_MS, None) == NOW + 7 * DAY_MS
    assert release_at_ms(NOW, None, MAX_DELIVER_AHEAD_MS) == NOW + MAX_DELIVER_AHEAD_MS


def test_a_time_just_past_is_at_once_but_further_back_or_past_a_year_is_refused() -> None:
    assert release_at_ms(NOW, NOW - 30 * SECOND_MS, None) is None
    assert release_at_ms(NOW, None, 0) is None
    for deliver_at, field in (
        (NOW - 2 * MINUTE_MS, "body.deliverAt"),
        (NOW + MAX_DELIVER_AHEAD_MS + 1, "body.deliverAt"),
    ):
        with pytest.raises(InvalidRequest) as refused:
            release_at_ms(NOW, deliver_at, None)
        assert refused.value.code == "deliver_at_out_of_range"
        assert refused.value.details[0]["field"] == field
        assert iso_from_ms(deliver_at) in refused.value.message


def test_a_time_and_a_wait_together_are_refused() -> None:
    with pytest.raises(InvalidRequest) as refused:
        release_at_ms(NOW, NOW + 1_000, 1_000)
    assert refused.value.code == "deliver_at_conflict"


def test_waits_past_the_crossover_take_the_scheduler_when_the_stack_has_one() -> None:
    assert carrier_for(SCHEDULER_ABOVE_MS, True) is Carrier.HOPS
    assert carrier_for(SCHEDULER_ABOVE_MS + 1, True) is Carrier.SCHEDULER
    assert carrier_for(30 * DAY_MS, False) is Carrier.HOPS


@given(st.integers(min_value=SCHEDULER_ABOVE_MS, max_value=MAX_DELIVER_AHEAD_MS))
def test_a_schedule_fires_on_a_whole_second_before_the_time_leaving_one_sqs_delay(wait_ms: int) -> None:
    due = NOW + wait_ms
    fires = schedule_fires_at_ms(due)
    assert fires % SECOND_MS == 0
    assert due - SCHEDULER_LEAD_MS - SECOND_MS < fires <= due - SCHEDULER_LEAD_MS
    assert due - fires <= HOP_MAX_MS  # the rest is one delayed send


def test_hops_are_one_per_fifteen_minutes_at_least_one() -> None:
    assert [hops_for(ms) for ms in (0, HOP_MAX_MS, HOP_MAX_MS + 1, 30 * DAY_MS)] == [1, 1, 2, 2880]


def test_a_release_task_reads_back_and_a_malformed_one_is_refused() -> None:
    task = Release("tenant-a", "room_1", "msg_1", NOW, "rel_1")
    assert task_from_json(task.to_json()) == task
    for bad in (
        '{"kind":"release","tenantId":"t","roomId":"r","messageId":"m","dueAtMs":"1","releaseId":"x"}',
        '{"kind":"release","tenantId":"t","roomId":"r","messageId":"m","dueAtMs":1}',
    ):
        with pytest.raises(TaskError):
            task_from_json(bad)


def _scheduled_message() -> Message:
    return Message(
        id="msg_" + "a" * 32,
        tenant_id="tenant-a",
        room_id="room_" + "1" * 32,
        event_type="invoice.reminder",
        event_version="1",
        correlation_id="c-1",
        payload={"invoiceId": 77},
        published_at=iso_from_ms(NOW),
        published_at_ms=NOW,
        expires_at_ms=NOW + DAY_MS + 3_600_000,
        destinations=("sub_a", "sub_b"),
        deliver_at_ms=NOW + DAY_MS,
    )


def _first_records(message: Message) -> list[Delivery]:
    due, at = iso_from_ms(NOW + DAY_MS), message.published_at
    return [
        Delivery(
            message.id,
            message.tenant_id,
            s,
            SubscriptionType.PUSH,
            DeliveryStatus.SCHEDULED,
            0,
            None,
            due,
            at,
        )
        for s in message.destinations
    ]


def test_a_scheduled_message_is_indexed_by_its_time_while_it_waits_and_kept_short() -> None:
    message = _scheduled_message()
    item = stored_message_item(message, _first_records(message))

    assert item["GSI2SK"] == f"{iso_from_ms(NOW + DAY_MS)}#{message.id}"
    assert item["GSI2PK"].startswith(f"TENANT#tenant-a#ROOM#{message.room_id}#SCHED#")
    assert "deliveries" not in item  # the usual first records: only their types are stored
    assert "releasedBy" not in item
    assert "cancelledAt" not in item
    assert message_from_item(item) == message
    assert [d.status for d in embedded_deliveries(item)] == [DeliveryStatus.SCHEDULED] * 2


def test_its_first_records_follow_its_release_or_cancellation() -> None:
    message = _scheduled_message()
    item = stored_message_item(message, _first_records(message))

    released = embedded_deliveries({**item, "releasedBy": "rel_1"})
    cancelled = embedded_deliveries({**item, "cancelledAt": "2026-11-22T10:05:00.000Z"})

    assert {(d.status, d.next_attempt_at) for d in released} == {
        (DeliveryStatus.PENDING, iso_from_ms(NOW + DAY_MS))
    }
    assert {(d.status, d.updated_at) for d in cancelled} == {
        (DeliveryStatus.CANCELLED, "2026-11-22T10:05:00.000Z")
    }
    assert not message_from_item({**item, "releasedBy": "rel_1"}).scheduled


def test_a_message_not_scheduled_is_stored_as_before() -> None:
    message = replace(_scheduled_message(), deliver_at_ms=None)
    at = message.published_at
    records = [
        Delivery(
            message.id, message.tenant_id, s, SubscriptionType.PUSH, DeliveryStatus.PENDING, 0, None, at, at
        )
        for s in message.destinations
    ]
    item = stored_message_item(message, records)

    assert not {"GSI2PK", "deliverAtMs", "deliveries"} & set(item)
    assert [d.status for d in embedded_deliveries(item)] == [DeliveryStatus.PENDING] * 2

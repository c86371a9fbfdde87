"""The metrics count what the records say, exactly once, whatever crashes (roomcast.metrics, ADR
0046): deliveries written through the message store, the table's real stream read back, and the
metrics function invoked window after window with crashes injected in the middle of its writes
and the invocation retried as Lambda retries it. The buckets then hold what the records hold."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from roomcast.catalog.model import SubscriptionType
from roomcast.messages.model import (
    Attempt,
    AttemptEvent,
    Delivery,
    DeliveryStatus,
    Message,
    first_record,
)
from roomcast.messages.store import MessageTable
from roomcast.metrics.facts import Fact
from roomcast.metrics.model import Count, Place, Resolution, Sample, Scope
from roomcast.metrics.series import series_of
from roomcast.metrics.sketch import is_bin
from roomcast.metrics.store import MetricsTable
from roomcast.metrics.tally import Tally
from roomcast.platform.clock import iso_from_ms
from roomcast_dev.local_aws import LOCAL_REGION
from roomcast_dev.stream_sources import matches, stream_record
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler, bare_client
from tests.support import FakeLambdaContext

TENANT, ROOM = "ten_metrics", "room_" + "e" * 32
SUB_A, SUB_B = "sub_" + "a" * 32, "sub_" + "b" * 32
PUBLISHED_MS = 1_795_435_200_000
MESSAGES = 8


def _message(number: int) -> Message:
    return Message(
        f"msg_{number:032x}", TENANT, ROOM, "order.created", "1", f"c-{number}", {"n": number},
        iso_from_ms(PUBLISHED_MS + number), PUBLISHED_MS + number, None, (SUB_A, SUB_B),
    )  # fmt: skip


def _tried(record: Delivery, attempt: int, at_ms: int, http_status: int, status: DeliveryStatus) -> Delivery:
    error = None if http_status < 300 else f"HTTP {http_status}"
    post = Attempt(attempt, AttemptEvent.POST, iso_from_ms(at_ms), 20 + attempt, http_status, error)
    return replace(
        record, status=status, attempts=attempt + 1, last_error=error, history=(post,),
        updated_at=iso_from_ms(at_ms + 25),
        next_attempt_at=iso_from_ms(at_ms + 1_000) if status is DeliveryStatus.RETRYING else None,
    )  # fmt: skip


def _write_deliveries(store: MessageTable) -> list[Message]:
    """Every message to both: A's first try delivered beside B's failed one (one FIRST item);
    B's retry delivered, except message 6's (dead) and 7's (still retrying)."""
    messages = [_message(n) for n in range(MESSAGES)]
    published = [(m, [first_record(m, s, SubscriptionType.PUSH) for s in m.destinations]) for m in messages]
    assert store.put_messages(published) == {}
    for m in messages:
        a, b = (first_record(m, s, SubscriptionType.PUSH) for s in (SUB_A, SUB_B))
        at = m.published_at_ms + 100
        store.record_first_tries(
            [_tried(a, 0, at, 204, DeliveryStatus.DELIVERED), _tried(b, 0, at, 503, DeliveryStatus.RETRYING)]
        )
        if m.published_at_ms - PUBLISHED_MS == 6:
            store.update_delivery(_tried(b, 1, at + 1_000, 500, DeliveryStatus.DEAD))
        elif m.published_at_ms - PUBLISHED_MS != 7:
            store.update_delivery(_tried(b, 1, at + 1_000, 200, DeliveryStatus.DELIVERED))
    return messages


def _stream(stack_model: StackModel, moto_endpoint: str) -> list[dict[str, Any]]:
    """The table's stream as Lambda gives it to the metrics function (its filter applied)."""
    table = stack_model.tables["Table"]["TableName"]
    arn = bare_client(moto_endpoint, "dynamodb").describe_table(TableName=table)["Table"]["LatestStreamArn"]
    streams = bare_client(moto_endpoint, "dynamodbstreams")
    trigger = next(t for t in stack_model.stream_triggers if t.function_id == "MetricsFunction")
    found = []
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        iterator = streams.get_shard_iterator(
            StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        while iterator:
            answer = streams.get_records(ShardIterator=iterator, Limit=1000)
            records = answer.get("Records", [])
            found += [
                stream_record(r, arn, LOCAL_REGION)
                for r in records
                if any(matches(r, p) for p in trigger.filter_patterns)
            ]
            iterator = answer.get("NextShardIterator") if records else None
    return found


def _expected(store: MessageTable, messages: list[Message], subscription_id: str) -> Counter[str]:
    """What the records say of one subscription's deliveries."""
    expected: Counter[str] = Counter()
    for m in messages:
        record = next(
            d for d in store.get_message(TENANT, m.id).deliveries if d.subscription_id == subscription_id
        )
        expected[record.status.value] += 1
        for attempt in record.history:
            expected["attempts"] += 1
            expected["failedAttempts"] += attempt.http_status is None or attempt.http_status >= 300
    return expected


def _answered(handler: Handler, batch: list[dict[str, Any]], state: dict[str, Any], *, final: bool) -> Any:
    """An invocation of a window, retried with the same records and state until it answers."""
    event = {"Records": batch, "state": state, "shardId": "shard-1", "isFinalInvokeForWindow": final}
    for _ in range(10):
        try:
            return handler(event, FakeLambdaContext())["state"]
        except RuntimeError:
            continue
    raise AssertionError("never answered")


@pytest.fixture
def crashing(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every third write of the metrics crashes its invocation, once for each item (a crash in the
    middle of a flush: the items before it written, those after it not)."""
    calls: Counter[str] = Counter()
    crashed: set[str] = set()
    original = MetricsTable._update_if

    def update_if(self: MetricsTable, item_key: Any, **request: Any) -> Any:
        calls["writes"] += 1
        written = repr(sorted(item_key.items()))
        if calls["writes"] % 3 == 0 and written not in crashed:
            crashed.add(written)
            calls["crashes"] += 1
            raise RuntimeError("injected crash")
        return original(self, item_key, **request)

    monkeypatch.setattr(MetricsTable, "_update_if", update_if)
    return calls


def test_the_metrics_equal_the_records_with_crashes_in_every_flush(
    stack_model: StackModel,
    moto_endpoint: str,
    function_handler: Callable[[str], Handler],
    crashing: Counter[str],
) -> None:
    # Given: the deliveries written, the stream they made
    handler = function_handler("MetricsFunction")
    store = MessageTable(stack_model.tables["Table"]["TableName"])
    messages = _write_deliveries(store)
    records = _stream(stack_model, moto_endpoint)
    assert len(records) == 3 * MESSAGES - 1  # each message, its FIRST item, B's own record but one

    # When: windows of 7 records, each invocation of 3, each retried until it answers (as Lambda)
    state: dict[str, Any] = {}
    for start in range(0, len(records), 7):
        window = records[start : start + 7]
        for first in range(0, len(window), 3):
            final = first + 3 >= len(window)
            state = _answered(handler, window[first : first + 3], state, final=final)
    # the first window again, whole, after its writes (a final invoke retried after a timeout)
    _answered(handler, records[:7], {}, final=True)

    # Then: every scope's hour equals the records
    metrics = MetricsTable(stack_model.tables["Table"]["TableName"])
    assert crashing["crashes"] > 3

    def totals(scope: Scope) -> dict[Count, int]:
        buckets = metrics.buckets(scope, Resolution.HOUR, PUBLISHED_MS, PUBLISHED_MS + 3_600_000)
        return series_of(
            Resolution.HOUR, PUBLISHED_MS, PUBLISHED_MS + 3_600_000, buckets, None, PUBLISHED_MS
        ).totals

    for subscription_id in (SUB_A, SUB_B):
        expected = _expected(store, messages, subscription_id)
        got = totals(Scope.subscription(TENANT, subscription_id))
        assert got[Count.DELIVERED] == expected["delivered"]
        assert got[Count.DEAD] == expected["dead"]
        assert got[Count.ATTEMPTS] == expected["attempts"]
        assert got[Count.FAILED_ATTEMPTS] == expected["failedAttempts"]
        assert metrics.backlog(Scope.subscription(TENANT, subscription_id)).open == expected["retrying"]
    room, tenant = totals(Scope.room(TENANT, ROOM)), totals(Scope.tenant(TENANT))
    assert room == tenant
    assert room[Count.DELIVERED] == 2 * MESSAGES - 2
    assert metrics.backlog(Scope.room(TENANT, ROOM)).open == 1


def test_a_bucket_of_many_bins_is_written_in_parts_each_once(
    stack_model: StackModel, function_handler: Callable[[str], Handler], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given: a tally of 200 latencies and 200 delays in ~290 bins for one subscription (one
    # expression of them all is past what DynamoDB takes, and past the emulator's parser), and a
    # crash after the first part of a bucket is written
    function_handler("MetricsFunction")
    metrics = MetricsTable(stack_model.tables["Table"]["TableName"])
    place = Place(TENANT, ROOM, SUB_A)
    tally = Tally()
    latencies = [round(1.041**n) + n for n in range(200)]
    tally.add([Fact(place, PUBLISHED_MS, sample=s, value_ms=v) for v in latencies for s in Sample], "1")
    original, writes = MetricsTable._update_if, Counter[str]()

    def crash_once(self: MetricsTable, item_key: Any, **request: Any) -> Any:
        writes["calls"] += 1
        if writes["calls"] == 2:
            raise RuntimeError("injected crash between two parts")
        return original(self, item_key, **request)

    monkeypatch.setattr(MetricsTable, "_update_if", crash_once)

    # When: the flush crashes, is retried, and is retried again
    with pytest.raises(RuntimeError):
        metrics.flush(tally, "shard-1")
    metrics.flush(tally, "shard-1")
    metrics.flush(tally, "shard-1")

    # Then: every bin once, in the subscription's, room's and tenant's buckets
    for scope in (Scope.subscription(TENANT, SUB_A), Scope.room(TENANT, ROOM), Scope.tenant(TENANT)):
        [bucket] = metrics.buckets(scope, Resolution.MINUTE, PUBLISHED_MS, PUBLISHED_MS + 60_000)
        for sample in Sample:
            bins = {name: int(v) for name, v in bucket.items() if is_bin(sample, name)}
            assert sum(bins.values()) == 200
            assert len(bins) > 120  # more than one part's worth

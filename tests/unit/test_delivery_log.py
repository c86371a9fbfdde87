"""The delivery log's writer: NDJSON lines packed into few Firehose records, each a gzip member,
one PutRecordBatch per flush within Firehose's limits, bounded retries of refused records, and the
function log as the fallback (a failing log never raises)."""

from __future__ import annotations

import gzip
import itertools
import json
import random
import threading
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, strategies as st

from roomcast.catalog.model import SubscriptionType
from roomcast.log.delivery_log import (
    MAX_BYTES_PER_CALL,
    MAX_RECORD_BYTES,
    MAX_RECORDS_PER_CALL,
    RETRY_DELAYS_SECONDS,
    DeliveryLog,
    call_batches,
    pack_lines,
)
from roomcast.log.records import LogEvent, LogRecord
from roomcast.platform import observability

STREAM = "roomcast-test-DeliveryLogStream"


def _noise(size: int, seed: int = 0) -> str:
    """Text that does not compress (as much as printable ASCII can): sizes survive the gzip."""
    rng = random.Random(seed)
    return "".join(rng.choices("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", k=size))


def _record(n: int, error: str | None = None) -> LogRecord:
    return LogRecord(
        event=LogEvent.ATTEMPT,
        message_id=f"msg-{n}",
        correlation_id="corr",
        tenant_id="tenant-a",
        room_id="room-1",
        subscription_id="sub-1",
        subscription_type=SubscriptionType.PUSH,
        attempt=0,
        error=error,
    )


@dataclass
class FakeFirehose:
    """Records every PutRecordBatch; ``refuse[i]`` = how many record positions call i reports
    failed (from the start), ``raise_on`` = calls that raise."""

    refuse: dict[int, int] = field(default_factory=dict)
    raise_on: set[int] = field(default_factory=set)
    calls: list[list[bytes]] = field(default_factory=list)

    def put_record_batch(self, DeliveryStreamName: str, Records: list[dict[str, bytes]]) -> dict[str, Any]:
        assert DeliveryStreamName == STREAM
        number = len(self.calls)
        self.calls.append([record["Data"] for record in Records])
        if number in self.raise_on:
            raise ConnectionError("endpoint unreachable")
        failed = min(self.refuse.get(number, 0), len(Records))
        answers = [
            {"ErrorCode": "ServiceUnavailableException", "ErrorMessage": "slow down"}
            if index < failed
            else {"RecordId": f"r{index}"}
            for index in range(len(Records))
        ]
        return {"FailedPutCount": failed, "Encrypted": True, "RequestResponses": answers}

    @property
    def lines(self) -> list[dict[str, Any]]:
        """Every line sent, in order: the records' gzip members concatenated are one gzip file."""
        data = b"".join(data for call in self.calls for data in call)
        return [json.loads(line) for line in gzip.decompress(data).splitlines()] if data else []


@dataclass
class Fallback:
    counted: list[tuple[str, float]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    logged: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture
def fallback(monkeypatch: pytest.MonkeyPatch) -> Fallback:
    seen = Fallback()
    monkeypatch.setattr(
        observability.metrics, "add_metric", lambda name, unit, value: seen.counted.append((name, value))
    )
    monkeypatch.setattr(observability.logger, "error", lambda message, **kw: seen.errors.append(message))
    monkeypatch.setattr(
        observability.logger, "info", lambda message, **kw: seen.logged.append(kw["extra"]["deliveryLog"])
    )
    return seen


def _log(client: FakeFirehose, slept: list[float] | None = None) -> DeliveryLog:
    pauses = slept if slept is not None else []
    return DeliveryLog(STREAM, "push", client=client, sleep=pauses.append)  # type: ignore[arg-type]


# -- packing --------------------------------------------------------------------------------------


@given(st.lists(st.integers(min_value=1, max_value=3_000), max_size=60), st.integers(10, 10_000))
def test_packed_records_keep_every_line_in_order_and_fit_the_record_limit(
    sizes: list[int], limit: int
) -> None:
    # When
    packed = pack_lines(sizes, limit)

    # Then: every line once, in order; a record over the limit is a single line that is
    assert [index for span in packed for index in span] == list(range(len(sizes)))
    for span in packed:
        assert len(span) >= 1
        assert sum(sizes[i] for i in span) <= limit or len(span) == 1


@given(
    st.lists(st.integers(min_value=1, max_value=3_000), min_size=1, max_size=60), st.integers(3_000, 10_000)
)
def test_no_two_neighbouring_records_would_fit_in_one(sizes: list[int], limit: int) -> None:
    # When
    packed = pack_lines(sizes, limit)

    # Then: as few records as the order allows (each was closed by a line that did not fit)
    for first, second in itertools.pairwise(packed):
        assert sum(sizes[i] for i in first) + sizes[second[0]] > limit


def test_lines_of_one_invocation_are_one_record() -> None:
    # When: 20 lines of ~400 bytes, as a push batch of ten deliveries writes
    packed = pack_lines([400] * 20)

    # Then: one record, so one partial 5 KB increment at most
    assert packed == [range(20)]


@given(st.lists(st.integers(min_value=1, max_value=MAX_RECORD_BYTES), max_size=1_200))
def test_calls_stay_within_firehose_limits_and_are_as_few_as_allowed(sizes: list[int]) -> None:
    # When
    calls = call_batches(sizes)

    # Then
    assert [index for call in calls for index in call] == list(range(len(sizes)))
    for call in calls:
        assert 1 <= len(call) <= MAX_RECORDS_PER_CALL
        assert sum(sizes[i] for i in call) <= MAX_BYTES_PER_CALL
    for first, second in itertools.pairwise(calls):
        assert len(first) == MAX_RECORDS_PER_CALL or (
            sum(sizes[i] for i in first) + sizes[second[0]] > MAX_BYTES_PER_CALL
        )


# -- flush ----------------------------------------------------------------------------------------


def test_a_flush_is_one_put_record_batch_of_ndjson_lines(fallback: Fallback) -> None:
    # Given
    client = FakeFirehose()
    log = _log(client)
    records = [_record(n) for n in range(25)]
    for record in records:
        log.add(record)

    # When
    accepted = log.flush("inv-1")

    # Then: one call, one record, a gzip member of every line newline-terminated, in order
    assert accepted == 25
    assert len(client.calls) == 1
    assert len(client.calls[0]) == 1
    data = client.calls[0][0]
    lines = gzip.decompress(data)
    assert lines.endswith(b"\n")
    assert len(data) * 4 < len(lines)  # ids and keys repeated from line to line
    assert [line["recordId"] for line in client.lines] == [r.record_id for r in records]
    assert log.pending == []
    assert fallback.counted == []


def test_an_empty_buffer_sends_nothing() -> None:
    # Given
    client = FakeFirehose()

    # When
    accepted = _log(client).flush("inv-1")

    # Then
    assert (accepted, client.calls) == (0, [])


def test_more_than_four_mib_takes_more_calls_each_within_the_limits(fallback: Fallback) -> None:
    # Given: lines of ~300 KB that barely compress (about 225 KB): 3 to a record, and 4 MiB is 6
    # such records
    client = FakeFirehose()
    log = _log(client)
    for n in range(30):
        log.add(_record(n, error=_noise(300_000, seed=n)))

    # When
    accepted = log.flush()

    # Then
    assert accepted == 30
    assert [len(call) for call in client.calls] == [6, 4]
    for call in client.calls:
        assert sum(len(data) for data in call) <= MAX_BYTES_PER_CALL
        assert all(len(data) <= MAX_RECORD_BYTES and gzip.decompress(data).endswith(b"\n") for data in call)
    assert len(client.lines) == 30


def test_refused_records_are_sent_again_after_a_pause(fallback: Fallback) -> None:
    # Given: the first call refuses the first of its 2 records, the retry takes it
    client = FakeFirehose(refuse={0: 1})
    slept: list[float] = []
    log = _log(client, slept)
    for n in range(6):
        log.add(_record(n, error="x" * 400_000))  # two to a record: 3 records

    # When
    accepted = log.flush()

    # Then: only the refused record went again
    assert accepted == 6
    assert [len(call) for call in client.calls] == [3, 1]
    assert client.calls[1] == client.calls[0][:1]
    assert slept == [RETRY_DELAYS_SECONDS[0]]
    assert fallback.counted == []


def test_records_still_refused_after_the_retries_go_to_the_function_log(fallback: Fallback) -> None:
    # Given: Firehose refuses one record on every call
    attempts = len(RETRY_DELAYS_SECONDS) + 1
    client = FakeFirehose(refuse=dict.fromkeys(range(attempts), 1))
    slept: list[float] = []
    log = _log(client, slept)
    records = [_record(n, error="x" * 400_000) for n in range(4)]  # two records of two lines
    for record in records:
        log.add(record)

    # When
    accepted = log.flush("inv-1")

    # Then: a bounded number of tries, then the refused record's two lines are logged and counted
    assert len(client.calls) == attempts
    assert slept == list(RETRY_DELAYS_SECONDS)
    assert accepted == 2
    assert fallback.counted == [("DeliveryLogWriteFailed", 2)]
    assert [line["recordId"] for line in fallback.logged] == [r.record_id for r in records[:2]]
    assert fallback.errors == ["delivery log not written to Firehose; records follow in this log"]


def test_a_failing_call_never_raises_and_its_records_are_logged(fallback: Fallback) -> None:
    # Given
    client = FakeFirehose(raise_on={0})
    log = _log(client)
    log.add(_record(1))
    log.add(_record(2))

    # When
    accepted = log.flush()

    # Then
    assert accepted == 0
    assert fallback.counted == [("DeliveryLogWriteFailed", 2)]
    assert len(fallback.logged) == 2


def test_a_line_over_the_record_limit_is_logged_and_the_others_are_sent(fallback: Fallback) -> None:
    # Given
    client = FakeFirehose()
    log = _log(client)
    huge, small = _record(1, error=_noise(MAX_RECORD_BYTES * 2)), _record(2)
    log.add(huge)
    log.add(small)

    # When
    accepted = log.flush()

    # Then
    assert accepted == 1
    assert [line["recordId"] for line in client.lines] == [small.record_id]
    assert [line["recordId"] for line in fallback.logged] == [huge.record_id]
    assert fallback.counted == [("DeliveryLogWriteFailed", 1)]


def test_without_a_stream_the_records_are_logged(fallback: Fallback) -> None:
    # Given
    log = DeliveryLog("", "push", client=FakeFirehose())  # type: ignore[arg-type]
    log.add(_record(1))

    # When
    accepted = log.flush()

    # Then
    assert accepted == 0
    assert fallback.counted == [("DeliveryLogWriteFailed", 1)]


def test_a_call_beside_the_flush_is_in_flight_with_its_put_and_done_when_it_returns(
    fallback: Fallback,
) -> None:
    # Given: a call to make beside the log's own (a publish's sends-done mark); each of the two
    # waits until the other has begun, so they can only finish if they run at once
    began = {"put": threading.Event(), "beside": threading.Event()}

    class MeetingFirehose(FakeFirehose):
        def put_record_batch(
            self, DeliveryStreamName: str, Records: list[dict[str, bytes]]
        ) -> dict[str, Any]:
            began["put"].set()
            assert began["beside"].wait(30), "the call beside never began while the put was in flight"
            return super().put_record_batch(DeliveryStreamName, Records)

    def beside() -> None:
        began["beside"].set()
        assert began["put"].wait(30), "the put never began while the call beside was in flight"

    client = MeetingFirehose()
    log = _log(client)
    for n in range(3):
        log.add(_record(n))

    # When
    accepted = log.flush("inv-1", beside=beside)

    # Then
    assert (accepted, len(client.calls)) == (3, 1)
    assert all(event.is_set() for event in began.values())


def test_a_call_beside_a_flush_with_nothing_to_send_still_runs() -> None:
    seen: list[str] = []
    assert _log(FakeFirehose()).flush("inv-1", beside=lambda: seen.append("marked")) == 0
    failing = FakeFirehose(raise_on={0})
    log = _log(failing)
    log.add(_record(1))
    log.flush("inv-2", beside=lambda: seen.append("marked again"))
    assert seen == ["marked", "marked again"]

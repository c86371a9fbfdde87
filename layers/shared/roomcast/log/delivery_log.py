"""The delivery log's writer: a function buffers its records (roomcast.log.records) and,
after its work, sends them to the delivery-log Firehose stream (``DELIVERY_STREAM``) in ONE
``PutRecordBatch`` (more only when Firehose's per-call limits force it). Records are NDJSON lines
packed into as few Firehose records as fit, each record gzip-compressed here: Firehose's quota
counts (and it bills) the bytes it ingests, per record in 5 KB increments, and a delivery's log
lines (ids and keys repeated) compress several times over. The stream therefore does not compress
again (``CompressionFormat: UNCOMPRESSED``); an object it writes is its records' gzip members one
after another, which is itself a gzip file, named ``.ndjson.gz`` under ``raw/dt=YYYY-MM-DD/hour=HH/``
(template.yaml, ``DeliveryLogStream``; docs/decisions/0014-delivery-log-files.md).

Writing never delays a delivery beyond a bounded retry, and never fails one: records Firehose
refuses are retried a few times, then they go to the function's log instead (CloudWatch keeps
them) and the ``DeliveryLogWriteFailed`` metric counts the loss from the bucket.
"""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from roomcast.log.records import LogRecord
from roomcast.platform import firehose_client, logger, metrics

if TYPE_CHECKING:
    from mypy_boto3_firehose import FirehoseClient

# Amazon Data Firehose's PutRecordBatch limits (data before base64 encoding).
MAX_RECORDS_PER_CALL: Final = 500
MAX_BYTES_PER_CALL: Final = 4 * 1024 * 1024  # 4 MiB
MAX_RECORD_BYTES: Final = 1_000 * 1024  # 1,000 KiB
# Pauses before re-sending the records Firehose reported failed (throttling, internal errors): the
# flush runs before an API function answers, so the whole retry stays well under a second.
RETRY_DELAYS_SECONDS: Final = (0.05, 0.15)


def _consecutive_groups(sizes: Sequence[int], max_count: int, max_bytes: int) -> list[range]:
    """Consecutive items grouped greedily, in order: a group ends before the item that would take it
    over ``max_count`` items or ``max_bytes`` (an item over ``max_bytes`` is a group of its own).
    When the order is kept, no grouping has fewer groups."""
    groups: list[range] = []
    start, size = 0, 0
    for index, item_size in enumerate(sizes):
        if index > start and (index - start == max_count or size + item_size > max_bytes):
            groups.append(range(start, index))
            start, size = index, 0
        size += item_size
    if sizes:
        groups.append(range(start, len(sizes)))
    return groups


def pack_lines(line_sizes: Sequence[int], max_record_bytes: int = MAX_RECORD_BYTES) -> list[range]:
    """Consecutive lines packed into as few Firehose records as fit: each range is one record's
    lines. A line longer than ``max_record_bytes`` is a record of its own (too large to send)."""
    return _consecutive_groups(line_sizes, max(len(line_sizes), 1), max_record_bytes)


def gzip_member(data: bytes) -> bytes:
    """One record's lines as a gzip member (no timestamp: the same lines give the same bytes).
    Concatenated members are one gzip file, whose content is the lines in order."""
    return gzip.compress(data, compresslevel=6, mtime=0)


def call_batches(
    record_sizes: Sequence[int],
    max_records: int = MAX_RECORDS_PER_CALL,
    max_bytes: int = MAX_BYTES_PER_CALL,
) -> list[range]:
    """Consecutive records grouped into as few PutRecordBatch calls as Firehose's limits allow."""
    return _consecutive_groups(record_sizes, max_records, max_bytes)


@dataclass(frozen=True)
class _FirehoseRecord:
    """One Firehose record: whole NDJSON lines (each ending in a newline) and the log records they are."""

    data: bytes
    records: tuple[LogRecord, ...]


class DeliveryLog:
    """Buffers one invocation's records; ``flush`` sends them to the Firehose stream (or logs them)."""

    def __init__(
        self,
        stream_name: str,
        function_name: str,
        client: FirehoseClient | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._stream_name = stream_name
        self._function_name = function_name
        self._explicit_client = client
        self._sleep = sleep
        self._records: list[LogRecord] = []
        # A pull that acks too adds records from two threads while one of them flushes: no record
        # may land in a list already handed to the send.
        self._lock = threading.Lock()

    def add(self, record: LogRecord) -> None:
        with self._lock:
            self._records.append(record)

    @property
    def pending(self) -> list[LogRecord]:
        with self._lock:
            return list(self._records)

    def flush(self, invocation_id: str | None = None, beside: Callable[[], object] | None = None) -> int:
        """Send the buffer; returns how many log records Firehose accepted (the others were logged).
        ``beside``: a call to make while the log's own is in flight — started once the lines are
        packed (CPU, which would otherwise come between the two), and waited for before this
        returns."""
        other = _Beside(beside)
        try:
            with self._lock:
                records, self._records = self._records, []
            if not records:
                return 0
            if not self._stream_name:
                self._fall_back(records, "no DELIVERY_STREAM configured", invocation_id)
                return 0
            try:
                lost, reason = self._send(records, other.start)
            except Exception as error:  # never let the log endanger a delivery
                lost, reason = records, f"{type(error).__name__}: {error}"
            if lost:
                self._fall_back(lost, reason, invocation_id)
            return len(records) - len(lost)
        finally:
            other.wait()

    def _send(self, records: list[LogRecord], packed_then: Callable[[], None]) -> tuple[list[LogRecord], str]:
        """The records Firehose did not take, and why; ``packed_then`` runs once they are packed."""
        lines = [(record.to_json() + "\n").encode("utf-8") for record in records]
        packed = [
            _FirehoseRecord(gzip_member(b"".join(lines[i] for i in span)), tuple(records[i] for i in span))
            for span in pack_lines([len(line) for line in lines])
        ]
        packed_then()
        unsent = [record for record in packed if len(record.data) > MAX_RECORD_BYTES]
        reasons = (
            [f"a line of {len(unsent[0].data)} bytes compressed is over Firehose's record limit"]
            if unsent
            else []
        )
        sendable = [record for record in packed if len(record.data) <= MAX_RECORD_BYTES]
        for call in call_batches([len(record.data) for record in sendable]):
            failed, reason = self._put([sendable[i] for i in call])
            unsent += failed
            if reason:
                reasons.append(reason)
        lost = [record for firehose_record in unsent for record in firehose_record.records]
        return lost, "; ".join(reasons)

    def _put(self, batch: list[_FirehoseRecord]) -> tuple[list[_FirehoseRecord], str | None]:
        """One PutRecordBatch, then again the records it reports failed, after a pause, a bounded
        number of times; returns those still not taken and why (never raises)."""
        pending, codes = batch, ""
        for delay in (*RETRY_DELAYS_SECONDS, None):
            try:
                client = self._explicit_client or firehose_client()
                response = client.put_record_batch(
                    DeliveryStreamName=self._stream_name,
                    Records=[{"Data": record.data} for record in pending],
                )
            except Exception as error:  # boto3 has already retried what it retries
                return pending, f"{type(error).__name__}: {error}"
            if not response["FailedPutCount"]:
                return [], None
            refused = [
                (record, answer)
                for record, answer in zip(pending, response["RequestResponses"], strict=True)
                if answer.get("ErrorCode")
            ]
            pending = [record for record, _ in refused]
            if not pending:  # a count without a failed record: nothing left to send
                return [], None
            codes = ", ".join(sorted({str(answer.get("ErrorCode")) for _, answer in refused}))
            if delay is not None:
                self._sleep(delay)
        return (
            pending,
            f"Firehose refused {len(pending)} record(s) {len(RETRY_DELAYS_SECONDS) + 1} times: {codes}",
        )

    def _fall_back(self, records: list[LogRecord], reason: str, invocation_id: str | None) -> None:
        from aws_lambda_powertools.metrics import MetricUnit

        metrics.add_metric(name="DeliveryLogWriteFailed", unit=MetricUnit.Count, value=len(records))
        logger.error(
            "delivery log not written to Firehose; records follow in this log",
            extra={"reason": reason, "writer": self._function_name, "invocationId": invocation_id},
        )
        for record in records:
            logger.info("delivery-log", extra={"deliveryLog": json.loads(record.to_json())})


_BESIDE = ThreadPoolExecutor(max_workers=2, thread_name_prefix="log-beside")


class _Beside:
    """A call made beside the log's send: started at most once, in a thread; run in this one when
    the send never started it; waited for either way."""

    def __init__(self, call: Callable[[], object] | None) -> None:
        self._call = call
        self._started: Future[object] | None = None

    def start(self) -> None:
        if self._call is not None and self._started is None:
            self._started = _BESIDE.submit(self._call)

    def wait(self) -> None:
        if self._started is not None:
            self._started.result()
        elif self._call is not None:
            self._call()

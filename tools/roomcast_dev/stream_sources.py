"""Lambda's DynamoDB stream event source mapping, locally: read the table's stream, filter,
batch, invoke, and retry what failed.

Honours the template's BatchSize, FilterCriteria (exact values and ``exists``), ReportBatchItemFailures,
MaximumRetryAttempts, MaximumBatchingWindowInSeconds and TumblingWindowInSeconds. As on AWS, a shard
is read in order: a failed batch is retried (from the first reported failure with
ReportBatchItemFailures) before anything after it, and a batch given up on after MaximumRetryAttempts
is skipped with a line in the console (AWS would report it to the OnFailure destination).

With a tumbling window (``roomcast_dev.stream_windows``), each shard's records read while a window is
open belong to it; once the wall clock passes its end, the next round over the shards makes its final
invocation (its records not yet delivered, maybe none, and its state) before reading anything more.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from roomcast_dev.event_sources import failed_message_ids
from roomcast_dev.functions import FunctionError
from roomcast_dev.pollers import Poller
from roomcast_dev.stream_windows import Window, answer_state, batch_ready
from roomcast_dev.template import StreamTrigger

# Diagnostics of the local stack's background threads: logged, not printed, so that they reach
# `make run`'s terminal (logging is set up there) and pytest's log capture, never a test's stdout.
_log = logging.getLogger(__name__)

Invoke = Callable[[str, dict[str, Any]], Any]
ClientFactory = Callable[[str], Any]
# Lambda polls each shard of a DynamoDB stream four times a second; so does this poller when a
# poll found nothing (every GetRecords also keeps the one-process emulator busy).
IDLE_SECONDS = 0.25
RETRY_SECONDS = 0.5


def matches(value: Any, pattern: Any) -> bool:
    """Whether a value matches an event filter pattern (the subset templates use: nested objects,
    lists of exact values, and ``{"exists": true|false}``)."""
    if isinstance(pattern, dict):
        if not isinstance(value, dict):
            return False
        return all(_matches_field(value.get(name), expected) for name, expected in pattern.items())
    return bool(value == pattern)


def _matches_field(value: Any, expected: Any) -> bool:
    if isinstance(expected, dict):
        return matches(value, expected)
    for option in expected:
        if isinstance(option, dict) and "exists" in option:
            if (value is not None) == bool(option["exists"]):
                return True
        elif value == option:
            return True
    return False


def stream_record(record: dict[str, Any], stream_arn: str, region: str) -> dict[str, Any]:
    """One record of a DynamoDB stream event, shaped as Lambda delivers it (JSON only)."""
    change = dict(record["dynamodb"])
    created = change.get("ApproximateCreationDateTime")
    if isinstance(created, datetime):
        change["ApproximateCreationDateTime"] = created.timestamp()
    return {
        "eventID": record.get("eventID", ""),
        "eventName": record.get("eventName", ""),
        "eventVersion": record.get("eventVersion", "1.1"),
        "eventSource": "aws:dynamodb",
        "awsRegion": region,
        "dynamodb": change,
        "eventSourceARN": stream_arn,
    }


def first_failed_index(result: Any, records: list[dict[str, Any]]) -> int | None:
    """Where a ReportBatchItemFailures answer says to resume (a sequence number of the batch);
    None: every record succeeded; 0: the whole batch failed (a malformed answer, as on AWS)."""
    sequence_numbers = [r["dynamodb"]["SequenceNumber"] for r in records]
    failed = failed_message_ids(result, set(sequence_numbers))  # the same answer as for SQS
    if failed is None:
        return 0
    return min((sequence_numbers.index(f) for f in failed), default=None)


@dataclass
class _Shard:
    iterator: str | None
    last_sequence_number: str | None = None
    pending: list[dict[str, Any]] = field(default_factory=list)  # filtered records not yet done
    read_at: list[float] = field(default_factory=list)  # when each pending record was read
    attempts: int = 0
    window: Window | None = None  # the open tumbling window, if the trigger has them

    def drop(self, count: int) -> None:
        """Forget the first ``count`` pending records (done, or given up on)."""
        del self.pending[:count], self.read_at[:count]


class StreamPoller(Poller):
    """Reads one table's stream for one function, one shard after the other, in order."""

    kind = "stream"
    retry_seconds = RETRY_SECONDS

    def __init__(
        self,
        trigger: StreamTrigger,
        table_name: str,
        region: str,
        client_factory: ClientFactory,
        invoke: Invoke,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """``clock`` (epoch seconds: windows follow the wall clock) and ``sleep`` (the backoff after a
        failed batch) are a test's to replace."""
        super().__init__(trigger.function_id, threads=1, join_seconds=25)
        self.trigger = trigger
        self._table_name = table_name
        self._region = region
        self._client_factory = client_factory
        self._invoke = invoke
        self._clock = clock
        self._sleep = sleep
        self._stream_arn: str | None = None  # None: look the stream up again
        self._shards_arn: str | None = None  # the stream ``_shards`` are positions in
        self._shards: dict[str, _Shard] = {}
        self.last_invoked_at = 0.0  # epoch seconds

    def state(self) -> str:
        """Where it is, in a line (a report on a stream that stopped moving)."""
        pending = sum(len(shard.pending) for shard in self._shards.values())
        attempts = max((shard.attempts for shard in self._shards.values()), default=0)
        last = (
            time.strftime("%H:%M:%S", time.localtime(self.last_invoked_at))
            if self.last_invoked_at
            else "never"
        )
        return (
            f"[stream] {self.function_id}: {'running' if self.running else 'STOPPED'}, "
            f"{self.invocations} invocations (last {last}), {pending} records pending, "
            f"failed attempts of the current batch {attempts}, last error {self.last_error or 'none'}; "
            f"now in {self.where()}"
        )

    def resume(self) -> None:
        self._stream_arn = None  # a reset makes the table, and its stream, again
        super().resume()

    def _open(self) -> tuple[Any, Any]:
        return self._client_factory("dynamodb"), self._client_factory("dynamodbstreams")

    def _step(self, clients: tuple[Any, Any]) -> None:
        dynamodb, streams = clients
        if self._stream_arn is None:
            self._discover(dynamodb, streams)
        if not self._poll(streams):
            time.sleep(IDLE_SECONDS)

    def _after_error(self) -> None:
        self._stream_arn = None

    def poll_once(self, dynamodb: Any, streams: Any) -> bool:
        """One round over the shards from where the last one left off, without waiting: whether
        anything was invoked (a test or a benchmark drives the poller itself, without its thread)."""
        if self._stream_arn is None:
            self._discover(dynamodb, streams)
        return self._poll(streams)

    def _discover(self, dynamodb: Any, streams: Any) -> None:
        """Find the table's stream and an iterator per shard: where this poller left off when it
        is the same stream (after an error), from the start of a new one (after a reset)."""
        stream_arn = dynamodb.describe_table(TableName=self._table_name)["Table"]["LatestStreamArn"]
        known = self._shards if stream_arn == self._shards_arn else {}
        shards: dict[str, _Shard] = {}
        for shard in streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"]:
            shard_id = shard["ShardId"]
            state = known.get(shard_id) or _Shard(iterator=None)
            position: dict[str, str] = {"ShardIteratorType": "TRIM_HORIZON"}
            if state.last_sequence_number:
                position = {
                    "ShardIteratorType": "AFTER_SEQUENCE_NUMBER",
                    "SequenceNumber": state.last_sequence_number,
                }
            found = streams.get_shard_iterator(StreamArn=stream_arn, ShardId=shard_id, **position)
            state.iterator = found["ShardIterator"]
            shards[shard_id] = state
        self._shards, self._shards_arn, self._stream_arn = shards, stream_arn, stream_arn

    def _poll(self, streams: Any) -> bool:
        """One round over the shards; whether anything was read or invoked. A shard whose tumbling
        window has ended is not read: first its window is closed (``_close``)."""
        progressed = False
        trigger = self.trigger
        for shard_id, shard in self._shards.items():
            now = self._clock()
            if shard.window is not None and shard.window.ended(now):
                progressed = self._close(shard_id, shard) or progressed
                continue
            gathering = trigger.batching_window_seconds > 0 and len(shard.pending) < trigger.batch_size
            if shard.iterator is not None and (not shard.pending or (gathering and not shard.attempts)):
                progressed = self._read(streams, shard, now) or progressed
            # A failed batch is retried at once: the batching window is for gathering a new one.
            if shard.pending and (
                shard.attempts
                or batch_ready(shard.read_at, trigger.batch_size, trigger.batching_window_seconds, now)
            ):
                self._deliver(shard_id, shard)
                progressed = True
        return progressed

    def _read(self, streams: Any, shard: _Shard, now: float) -> bool:
        """Read the shard on; whether it gave records to deliver (they belong to the open window)."""
        answer = streams.get_records(ShardIterator=shard.iterator, Limit=1000)
        shard.iterator = answer.get("NextShardIterator")
        before = len(shard.pending)
        for record in answer.get("Records", []):
            shard.last_sequence_number = record["dynamodb"]["SequenceNumber"]
            if self._wanted(record):
                shard.pending.append(stream_record(record, self._stream_arn or "", self._region))
                shard.read_at.append(now)
        if shard.pending and shard.window is None and self.trigger.tumbling_window_seconds > 0:
            shard.window = Window.around(now, self.trigger.tumbling_window_seconds)
        return len(shard.pending) > before

    def _close(self, shard_id: str, shard: _Shard) -> bool:
        """A window that has ended: its records not yet delivered, whole batches first, then the final
        invocation (never delayed by the batching window); nothing for a window where nothing
        happened. Whether anything was invoked."""
        window = shard.window
        if len(shard.pending) > self.trigger.batch_size:
            self._deliver(shard_id, shard)
        elif shard.pending or (window is not None and window.eventful()):
            self._deliver(shard_id, shard, final=True)
        else:
            shard.window = None
            return False
        return True

    def _wanted(self, record: dict[str, Any]) -> bool:
        patterns = self.trigger.filter_patterns
        return not patterns or any(matches(record, pattern) for pattern in patterns)

    def _deliver(self, shard_id: str, shard: _Shard, final: bool = False) -> None:
        """Invoke the function with the shard's next batch (in its window, if any, with the window's
        state); on a failure, keep what is to be retried, with the state as it was before."""
        batch = shard.pending[: self.trigger.batch_size]
        window = shard.window
        event: dict[str, Any] = {"Records": batch}
        if window is not None:
            event = window.event(batch, shard_id, self._stream_arn or "", final)
            window.delivered = window.delivered or bool(batch)
        self.invocations += 1
        self.last_invoked_at = self._clock()
        state: dict[str, Any] | None = None
        try:
            result = self._invoke(self.trigger.function_id, event)
            resume_at = first_failed_index(result, batch) if self.trigger.report_batch_item_failures else None
            if window is not None and (state := answer_state(result)) is None:
                raise FunctionError("NoState", "an answer in a tumbling window must hold a state object")
        except FunctionError as error:
            _log.warning(f"[stream] {self.trigger.function_id} failed, batch retried: {error}")
            self.last_error = f"{time.strftime('%H:%M:%S')} {error}"
            resume_at = 0
        if resume_at is None:
            shard.drop(len(batch))
            shard.attempts = 0
            if window is not None and state is not None:
                window.state = state
            if final:
                shard.window = None  # the window is done: the next records open a new one
            return
        shard.drop(resume_at)
        shard.attempts += 1
        limit = self.trigger.maximum_retry_attempts
        if 0 <= limit < shard.attempts:
            _log.warning(f"[stream] {self.trigger.function_id}: gave up on {len(batch) - resume_at} records")
            shard.drop(len(batch) - resume_at)
            shard.attempts = 0
            if final:
                shard.window = None
            return
        self._sleep(min(RETRY_SECONDS * shard.attempts, 5))

"""The local stream event source's account of itself (roomcast_dev.stream_sources): what the soak
prints when ordering keys stop moving, so that a stream stuck on a failing batch shows."""

from __future__ import annotations

import threading
import time
from typing import Any

from roomcast_dev.functions import FunctionError
from roomcast_dev.stream_sources import StreamPoller
from roomcast_dev.template import StreamTrigger

TRIGGER = StreamTrigger("OutboxFunction", "Table", 10, (), True, 1000)


class _Tables:
    def describe_table(self, TableName: str) -> dict[str, Any]:
        return {"Table": {"LatestStreamArn": "arn:stream"}}


class _Stream:
    """One shard holding three records, read once."""

    def describe_stream(self, StreamArn: str) -> dict[str, Any]:
        return {"StreamDescription": {"Shards": [{"ShardId": "shard-1"}]}}

    def get_shard_iterator(self, **_: Any) -> dict[str, Any]:
        return {"ShardIterator": "it-1"}

    def get_records(self, ShardIterator: str, Limit: int) -> dict[str, Any]:
        if ShardIterator != "it-1":
            return {"Records": [], "NextShardIterator": ShardIterator}
        records = [{"eventName": "INSERT", "dynamodb": {"SequenceNumber": str(n)}} for n in range(3)]
        return {"Records": records, "NextShardIterator": "it-2"}


def test_a_poller_failing_on_a_batch_says_how_many_records_wait_behind_it() -> None:
    # Given: a poller whose function fails every invocation
    def failing(function_id: str, event: dict[str, Any]) -> Any:
        raise FunctionError("Crashed", "worker died")

    poller = StreamPoller(TRIGGER, "table", "us-east-1", lambda name: None, failing)
    assert "never" in poller.state()
    assert "0 records pending" in poller.state()

    # When: it polls twice
    poller.poll_once(_Tables(), _Stream())
    poller.poll_once(_Tables(), _Stream())

    # Then: the batch is still pending after two failed attempts, and the error is named
    state = poller.state()
    assert "2 invocations" in state
    assert "3 records pending" in state
    assert "failed attempts of the current batch 2" in state
    assert "Crashed: worker died" in state
    assert "STOPPED" in state  # (driven by the test, not by its threads)


def test_a_poller_blocked_in_an_invocation_says_where_it_waits() -> None:
    # Given: a poller running its thread, whose function does not answer
    answered = threading.Event()

    def hanging(function_id: str, event: dict[str, Any]) -> Any:
        answered.wait(10)
        return None

    clients = {"dynamodb": _Tables(), "dynamodbstreams": _Stream()}
    poller = StreamPoller(TRIGGER, "table", "us-east-1", clients.__getitem__, hanging)
    poller.start()
    try:
        deadline = time.monotonic() + 5
        while poller.invocations == 0 and time.monotonic() < deadline:
            time.sleep(0.01)

        # When / Then: its state names the call it waits in
        assert "running" in poller.state()
        assert "hanging" in poller.where()
        assert "_deliver" in poller.where()
    finally:
        answered.set()
        poller.stop()

"""DynamoDB's atomicity for moto: one DynamoDB request at a time.

On AWS every DynamoDB request is atomic: a read sees an item before or after a write, and a
transaction that fails changes nothing. moto in server mode runs requests on threads with no lock;
it applies an UpdateItem of a new item as a put of the bare key followed by each SET (a
BatchGetItem in another thread can read the key alone), and a transaction that fails puts back a
copy of the table taken when it began, undoing what other requests wrote meanwhile. Racing
requests would then test moto, not roomcast. Every moto this project runs in-process (the local
stack, the integration tests) takes its DynamoDB requests one at a time.

That table copy also copied every stream record the table ever had (moto keeps them all): with
the outbox's stream on, each transaction got slower with every write (113 ms after 3 000 writes,
7 ms without), and a long soak or `make run` ground to a halt. Stream records never change once
written, so a copy of the stream shares them.

Putting that copy back also put back a copy of the table's stream shard: every shard iterator
handed out before (the stream poller's) went on reading the old shard, which nothing was written
to any more, so the outbox stopped hearing of new messages after the first transaction whose
condition failed (a retried invocation's), with no error anywhere; and the records the cancelled
transaction's first writes had made stayed on the old shard, visible to its readers. After a
cancelled transaction the table keeps its own shard, cut back to where it was when the
transaction began: on AWS a cancelled transaction writes no stream record. And the streams'
requests wait their turn like the table's: a stream read between a transaction's first write and
its cancellation saw a record that was then taken back, and its sequence number given to the next
record, which a reader past it never read.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import Any

_installed = threading.Lock()
_state = {"done": False}


def make_dynamodb_atomic() -> None:
    """Serialise moto's DynamoDB request handling in this process, and make its transaction
    backups cheap (idempotent)."""
    from moto.dynamodb.models.table import StreamShard
    from moto.dynamodb.responses import DynamoHandler
    from moto.dynamodbstreams.responses import DynamoDBStreamsHandler

    with _installed:
        if _state["done"]:
            return

        def share_records(shard: StreamShard, memo: dict[int, Any]) -> StreamShard:
            copied = copy.copy(shard)  # the same table reference, as the records' own
            copied.items = list(shard.items)
            return copied

        StreamShard.__deepcopy__ = share_records  # type: ignore[attr-defined]
        _keep_streams_through_cancelled_transactions()
        lock = threading.RLock()
        # The streams' requests too: a reader never sees the writes of a transaction that is
        # still running (and may yet be cancelled, its records taken back).
        for handler in (DynamoHandler, DynamoDBStreamsHandler):
            handler.call_action = _one_at_a_time(lock, handler.call_action)  # type: ignore[method-assign]
        _state["done"] = True


def _one_at_a_time(lock: threading.RLock, call_action: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def locked(handler: Any) -> Any:
        with lock:
            return call_action(handler)

    return locked


def _keep_streams_through_cancelled_transactions() -> None:
    from moto.dynamodb.models import DynamoDBBackend

    original = DynamoDBBackend.transact_write_items

    def keeping_streams(backend: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
        shards = {
            name: (table.stream_shard, len(table.stream_shard.items))
            for name, table in backend.tables.items()
            if table.stream_shard is not None
        }
        try:
            original(backend, transact_items)
        except Exception:
            for name, (shard, length) in shards.items():
                table = backend.tables.get(name)
                if table is not None and table.stream_shard is not shard:
                    del shard.items[length:]  # the cancelled transaction's records
                    shard.table = table
                    table.stream_shard = shard
            raise

    DynamoDBBackend.transact_write_items = keeping_streams  # type: ignore[method-assign,assignment]

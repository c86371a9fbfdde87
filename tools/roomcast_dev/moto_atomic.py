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
"""

from __future__ import annotations

import copy
import threading
from typing import Any

_installed = threading.Lock()
_state = {"done": False}


def make_dynamodb_atomic() -> None:
    """Serialise moto's DynamoDB request handling in this process, and make its transaction
    backups cheap (idempotent)."""
    from moto.dynamodb.models.table import StreamShard
    from moto.dynamodb.responses import DynamoHandler

    with _installed:
        if _state["done"]:
            return

        def share_records(shard: StreamShard, memo: dict[int, Any]) -> StreamShard:
            copied = copy.copy(shard)  # the same table reference, as the records' own
            copied.items = list(shard.items)
            return copied

        StreamShard.__deepcopy__ = share_records  # type: ignore[attr-defined]
        original = DynamoHandler.call_action
        lock = threading.RLock()

        def one_at_a_time(handler: DynamoHandler) -> Any:
            with lock:
                return original(handler)

        DynamoHandler.call_action = one_at_a_time  # type: ignore[method-assign]
        _state["done"] = True

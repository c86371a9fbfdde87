"""DynamoDB's atomicity for moto: one DynamoDB request at a time.

On AWS every DynamoDB request is atomic: a read sees an item before or after a write, and a
transaction that fails changes nothing. moto in server mode runs requests on threads with no lock;
it applies an UpdateItem of a new item as a put of the bare key followed by each SET (a
BatchGetItem in another thread can read the key alone), and a transaction that fails puts back a
copy of the table taken when it began, undoing what other requests wrote meanwhile. Racing
requests would then test moto, not roomcast. Every moto this project runs in-process (the local
stack, the integration tests) takes its DynamoDB requests one at a time.

A transaction backs up the items it names, not its tables. moto deep-copied the table once per
item a transaction wrote (and with it every stream record the table ever had), so each transaction
got slower with every write; a cancelled one then put back a copy of the table with a copy of its
stream shard, which every shard iterator handed out before (the stream poller's) no longer read:
the outbox stopped hearing of new messages, with no error anywhere. Here a cancelled transaction
puts back the items it changed and takes back the stream records its first writes made (on AWS a
cancelled transaction writes no stream record); the table and its shard stay the same objects.
And the streams' requests wait their turn like the table's: a stream read between a transaction's
first write and its cancellation would see a record that is then taken back.
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
    """A transaction backs up the items it writes, not its tables; a cancelled one puts them back
    and takes back the stream records its first writes made.

    moto backs a transaction up by deep-copying the table once per item it writes: a transaction
    of three items on a table of 10 000 copied 30 000 items, and every transaction got slower as
    the table grew (a batch of 100 keyed messages, one transaction each, took seconds). Requests
    run one at a time here, so a copy of the items the transaction names is a whole backup."""
    from moto.dynamodb.models import DynamoDBBackend
    from moto.dynamodb.models.dynamo_type import DynamoType
    from moto.dynamodb.models.table import Table

    original = DynamoDBBackend.transact_write_items

    def backing_up_items(backend: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
        shards = {
            name: (table.stream_shard, len(table.stream_shard.items))
            for name, table in backend.tables.items()
            if table.stream_shard is not None
        }
        backups = [_item_backup(backend, entry, DynamoType) for entry in transact_items]
        Table.__deepcopy__ = lambda table, memo: table  # type: ignore[attr-defined]
        try:
            original(backend, transact_items)
        except Exception:
            for backup in reversed(backups):
                if backup is not None:
                    _put_back(*backup)
            for name, (shard, length) in shards.items():
                table = backend.tables.get(name)
                if table is not None:
                    del shard.items[length:]  # the cancelled transaction's records
                    shard.table = table
                    table.stream_shard = shard
            raise
        finally:
            del Table.__deepcopy__  # type: ignore[attr-defined]

    DynamoDBBackend.transact_write_items = backing_up_items  # type: ignore[method-assign,assignment]


_Backup = tuple[Any, Any, Any, Any]  # the table, the item's hash and range keys, a copy of it or None


def _item_backup(backend: Any, entry: dict[str, Any], dynamo_type: Any) -> _Backup | None:
    """The item one operation of a transaction names, copied as it is now (None: nothing to back up
    — the operation is malformed, and moto refuses it before writing)."""
    operation = next(iter(entry.values()), None)
    if not isinstance(operation, dict):
        return None
    table = backend.tables.get(operation.get("TableName"))
    attributes = operation.get("Item") or operation.get("Key") or {}
    if table is None or table.hash_key_attr not in attributes:
        return None
    hash_key = dynamo_type(attributes[table.hash_key_attr])
    range_key = None
    if table.range_key_attr is not None:
        if table.range_key_attr not in attributes:
            return None
        range_key = dynamo_type(attributes[table.range_key_attr])
    return table, hash_key, range_key, copy.deepcopy(table.get_item(hash_key, range_key))


def _put_back(table: Any, hash_key: Any, range_key: Any, item: Any) -> None:
    """Put an item back as it was (or take it out: it was not there), writing no stream record."""
    if range_key is None:
        if item is None:
            table.items.pop(hash_key, None)
        else:
            table.items[hash_key] = item
    elif item is None:
        table.items.get(hash_key, {}).pop(range_key, None)
    else:
        table.items[hash_key][range_key] = item

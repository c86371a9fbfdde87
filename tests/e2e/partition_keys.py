"""Every DynamoDB partition the end-to-end suite writes, recorded at the emulator (moto runs in the
test process, so the functions' writes from their worker processes all pass through it), and the
rule they must keep: each partition belongs to one tenant (issue 24: no key is written by more
than one tenant's requests, so no busy tenant can make a hot key for everyone)."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from typing import Any

from moto.dynamodb.responses import DynamoHandler

_WRITES = ("put_item", "update_item", "delete_item", "batch_write_item", "transact_write_items")
# Partition-key attributes: the table's and its index's (an index partition is written too).
_KEY_ATTRIBUTES = ("PK", "GSI1PK")
# roomcast's table in any stack (`<stack>-Table`, template.yaml's Table); a test fixture's own
# stack (tests/fixtures/sqs_stack: `esm-test-Seen`) is not roomcast's.
ROOMCAST_TABLE_SUFFIX = "-Table"


class PartitionRecorder:
    def __init__(self) -> None:
        self.partitions: set[str] = set()
        self._lock = threading.Lock()

    def install(self) -> None:
        for name in _WRITES:
            original = getattr(DynamoHandler, name)
            if getattr(original, "_records_partitions", False):
                continue
            setattr(DynamoHandler, name, self._recording(original))

    def _recording(self, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def write(handler: DynamoHandler) -> Any:
            found = set(partitions_of(handler.body)) if roomcast_table(handler.body) else set()
            with self._lock:
                self.partitions |= found
            return original(handler)

        write._records_partitions = True  # type: ignore[attr-defined]
        return write


def roomcast_table(body: Any) -> bool:
    """Whether a write request is to roomcast's table (a batch or a transaction names it inside)."""
    return any(name.endswith(ROOMCAST_TABLE_SUFFIX) for name in _table_names(body))


def _table_names(body: Any) -> Iterator[str]:
    if isinstance(body, dict):
        for name, value in body.items():
            if name == "TableName" and isinstance(value, str):
                yield value
            elif name == "RequestItems" and isinstance(value, dict):
                yield from (str(table) for table in value)
            elif isinstance(value, dict | list):
                yield from _table_names(value)
    elif isinstance(body, list):
        for part in body:
            yield from _table_names(part)


def partitions_of(body: Any) -> Iterator[str]:
    """The partition keys a write request names: its Key or Item, in each part of a batch or a
    transaction."""
    if isinstance(body, dict):
        for name in ("Key", "Item"):
            shape = body.get(name)
            if isinstance(shape, dict):
                for attribute in _KEY_ATTRIBUTES:
                    value = shape.get(attribute)
                    if isinstance(value, dict) and isinstance(value.get("S"), str):
                        yield value["S"]
        for nested in body.values():
            if isinstance(nested, dict | list):
                yield from partitions_of(nested)
    elif isinstance(body, list):
        for part in body:
            yield from partitions_of(part)


def owner(partition: str) -> str | None:
    """The tenant a partition belongs to (an API key's own item belongs to the key's one tenant);
    None: a partition no tenant owns, which every tenant's requests could write."""
    if partition.startswith("TENANT#"):
        return partition.removeprefix("TENANT#").split("#", 1)[0] or None
    if partition.startswith("APIKEY#"):
        return partition
    return None


def shared(partitions: set[str]) -> list[str]:
    return sorted(p for p in partitions if owner(p) is None)

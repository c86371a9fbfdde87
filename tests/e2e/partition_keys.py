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


def _objects(body: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object of a request, itself and nested (the parts of a batch or transaction)."""
    if isinstance(body, dict):
        yield body
        parts: Any = body.values()
    elif isinstance(body, list):
        parts = body
    else:
        return
    for part in parts:
        yield from _objects(part)


def roomcast_table(body: Any) -> bool:
    """Whether a write request is to roomcast's table (a batch or a transaction names it inside)."""
    names = [
        str(name)
        for found in _objects(body)
        for name in ([found["TableName"]] if "TableName" in found else [])
        + list(found.get("RequestItems") or {})
    ]
    return any(name.endswith(ROOMCAST_TABLE_SUFFIX) for name in names)


def partitions_of(body: Any) -> Iterator[str]:
    """The partition keys a write request names: its Key or Item, in each part of a batch or a
    transaction."""
    for found in _objects(body):
        for shape in (found.get("Key"), found.get("Item")):
            if not isinstance(shape, dict):
                continue
            for attribute in _KEY_ATTRIBUTES:
                value = shape.get(attribute)
                if isinstance(value, dict) and isinstance(value.get("S"), str):
                    yield value["S"]


def owner(partition: str) -> str | None:
    """The tenant a partition belongs to (an API key's own item belongs to the key's one tenant, a
    portal session's and its token's to the session's one tenant: each a random id of its own);
    None: a partition no tenant owns, which every tenant's requests could write."""
    if partition.startswith("TENANT#"):
        return partition.removeprefix("TENANT#").split("#", 1)[0] or None
    if partition.startswith(("APIKEY#", "PORTALSESSION#", "PORTALTOKEN#")):
        return partition
    return None


# The alert rules' pointers (roomcast.alerts.store, docs/decisions/0047-alerts.md): written only
# when a rule is made or deleted (a request that counts 20 in its tenant's rate), never on the
# delivery path; read by the evaluator each minute. The one partition all tenants write, by design.
SHARED_BY_DESIGN = frozenset({"ALERTRULES"})


def shared(partitions: set[str]) -> list[str]:
    return sorted(p for p in partitions if owner(p) is None and p not in SHARED_BY_DESIGN)

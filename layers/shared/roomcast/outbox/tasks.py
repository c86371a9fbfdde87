"""Work the outbox function does later, carried by its own queue (OutboxQueue), so that every
delivery a stored message owes ends, whatever crashed and whatever order things ran in
(docs/decisions/0028-every-delivery-ends.md):

- ``PublishCheck``: sent (delayed) before a publish stores anything; when it comes back, a
  publish that did not record its first sends done (it died between storing and sending) has
  its stored messages sent by the outbox.
- ``Sweep``: sent when subscriptions (or a room) are deleted, at once and again after the settle
  time; it ends every open delivery of the deleted subscriptions ``cleared``. It walks the room's
  messages a page at a time and sends itself on with the position it reached.
- ``RunJob``: go on with a bulk action (roomcast.jobs.model); the job's own record holds where
  it is, so the task names the job only.
- ``Probe``: probe a subscription disabled automatically (roomcast.catalog.recovery): one probe of
  one chain (the disable's), re-sent while it comes back early.
- ``Release``: a scheduled message's time has come (roomcast.deliver_at.rules): send its first
  envelopes. Sent again while it comes back early; ``release_id`` names this release, so that a
  second task for the same message (a publish check re-arming it) cannot release it twice.

Pure: the tasks and their JSON form. The body comes from our own queue, but it is parsed strictly
all the same (a malformed body is refused, never half-trusted).
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from functools import cache
from typing import Any, ClassVar, Final

from roomcast.catalog import SubscriptionType
from roomcast.platform import camel, camel_fields

SUBSCRIPTION_DELETED: Final = "the subscription was deleted"
ROOM_DELETED: Final = "the room was deleted"
_MAX_IDS: Final = 1_000
_MAX_TEXT: Final = 256


class TaskError(ValueError):
    """A body on the outbox queue that is not an outbox task."""


# Each task's type by its kind (filled as the tasks are declared).
_KINDS: Final[dict[str, type[_Task]]] = {}


@dataclass(frozen=True)
class _Task:
    """What every task is: a tenant's, and in JSON its ``kind`` (given where the task is declared)
    and its fields in camelCase, read back field by field (``task_from_json``: each field's type
    says how it is checked)."""

    kind: ClassVar[str]
    tenant_id: str

    def __init_subclass__(cls, kind: str | None = None, **options: Any) -> None:
        super().__init_subclass__(**options)
        if kind is not None:
            cls.kind = kind
            _KINDS[kind] = cls

    def to_json(self) -> str:
        return json.dumps({"kind": self.kind, **self._fields()}, separators=(",", ":"))

    def _fields(self) -> dict[str, Any]:
        return camel_fields(self)


@dataclass(frozen=True)
class _RoomTask(_Task):
    """A task about one room of the tenant."""

    room_id: str


@dataclass(frozen=True)
class PublishCheck(_RoomTask, kind="publish-check"):
    """Did publish request ``request_id`` (which may have stored ``message_ids``) finish its sends?"""

    request_id: str
    message_ids: tuple[str, ...]


@dataclass(frozen=True)
class Sweep(_RoomTask, kind="sweep"):
    """End the open deliveries of ``subscriptions`` (deleted, with ``reason``; id -> type) in a
    room; ``position`` is where the walk through the room's messages goes on (None: the newest)."""

    subscriptions: tuple[tuple[str, SubscriptionType], ...]
    reason: str
    position: str | None = None

    def _fields(self) -> dict[str, Any]:
        return super()._fields() | {
            "subscriptions": [{"id": i, "type": t.value} for i, t in self.subscriptions]
        }

    def resumed_at(self, position: str) -> Sweep:
        return replace(self, position=position)


@dataclass(frozen=True)
class RunJob(_Task, kind="job"):
    """Go on with job ``job_id`` of ``tenant_id`` from where its record says it is."""

    job_id: str


@dataclass(frozen=True)
class Release(_RoomTask, kind="release"):
    """Release scheduled message ``message_id`` of ``tenant_id`` at ``due_at_ms``."""

    message_id: str
    due_at_ms: int
    release_id: str


@dataclass(frozen=True)
class Probe(_RoomTask, kind="probe"):
    """Probe ``attempt`` of subscription ``subscription_id``'s recovery that began ``chain_ms``."""

    subscription_id: str
    chain_ms: int
    attempt: int
    due_at_ms: int


OutboxTask = PublishCheck | Sweep | RunJob | Release | Probe


def task_from_json(body: str) -> OutboxTask:
    try:
        raw = json.loads(body)
    except (ValueError, RecursionError) as error:
        raise TaskError(f"not an outbox task: {error}") from error
    if not isinstance(raw, dict):
        raise TaskError("not an outbox task: not an object")
    kind = raw.get("kind")
    task = _KINDS.get(kind) if isinstance(kind, str) else None
    if task is None:
        raise TaskError(f"not an outbox task: kind {str(kind)[:40]!r}")
    read = {name: _READERS[hint](raw, camel(name)) for name, hint in _hints(kind).items()}
    return typing.cast(OutboxTask, task(**read))


@cache
def _hints(kind: str) -> dict[str, Any]:
    """Each field of a kind of task and its type, in order."""
    hints = typing.get_type_hints(_KINDS[kind])
    return {f.name: hints[f.name] for f in fields(_KINDS[kind])}


def _text(raw: dict[str, Any], name: str) -> str:
    value = raw.get(name)
    if not isinstance(value, str) or not 0 < len(value) <= _MAX_TEXT:
        raise TaskError(f"not an outbox task: {name}")
    return value


def _count(raw: dict[str, Any], name: str) -> int:
    """A whole number of at least 0 (milliseconds, attempts), never a bool or a float."""
    value = raw.get(name)
    if type(value) is not int or value < 0:
        raise TaskError(f"not an outbox task: {name}")
    return value


def _optional_text(raw: dict[str, Any], name: str) -> str | None:
    return None if raw.get(name) is None else _text(raw, name)


def _subscriptions(raw: dict[str, Any], name: str) -> tuple[tuple[str, SubscriptionType], ...]:
    value = raw.get(name)
    if not isinstance(value, list) or not 0 < len(value) <= _MAX_IDS:
        raise TaskError(f"not an outbox task: {name}")
    found = []
    for entry in value:
        if not isinstance(entry, dict) or entry.get("type") not in ("PUSH", "PULL"):
            raise TaskError(f"not an outbox task: {name}")
        found.append((_text(entry, "id"), SubscriptionType(entry["type"])))
    return tuple(found)


def _ids(raw: dict[str, Any], name: str) -> tuple[str, ...]:
    value = raw.get(name)
    if not isinstance(value, list) or len(value) > _MAX_IDS:
        raise TaskError(f"not an outbox task: {name}")
    if not all(isinstance(item, str) and 0 < len(item) <= _MAX_TEXT for item in value):
        raise TaskError(f"not an outbox task: {name}")
    return tuple(value)


# How each field is read back, by its type.
_READERS: Final[dict[Any, Callable[[dict[str, Any], str], Any]]] = {
    str: _text,
    int: _count,
    str | None: _optional_text,
    tuple[str, ...]: _ids,
    tuple[tuple[str, SubscriptionType], ...]: _subscriptions,
}

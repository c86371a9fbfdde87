"""Work the outbox function does later, carried by its own queue (OutboxQueue), so that every
delivery a stored message owes ends, whatever crashed and whatever order things ran in
(docs/decisions/0028-every-delivery-ends.md):

- ``PublishCheck``: sent (delayed) before a publish stores anything; when it comes back, a
  publish that did not record its first sends done (it died between storing and sending) has
  its stored messages sent by the outbox.
- ``Sweep``: sent when subscriptions (or a room) are deleted, at once and again after the settle
  time; it ends every open delivery of the deleted subscriptions ``cleared``. It walks the room's
  messages a page at a time and sends itself on with the position it reached.
- ``RunJob``: go on with a bulk action (roomcast.domain.jobs); the job's own record holds where
  it is, so the task names the job only.
- ``Probe``: probe a subscription disabled automatically (roomcast.domain.recovery): one probe of
  one chain (the disable's), re-sent while it comes back early.
- ``Release``: a scheduled message's time has come (roomcast.domain.scheduling): send its first
  envelopes. Sent again while it comes back early; ``release_id`` names this release, so that a
  second task for the same message (a publish check re-arming it) cannot release it twice.

Pure: the tasks and their JSON form. The body comes from our own queue, but it is parsed strictly
all the same (a malformed body is refused, never half-trusted).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any, Final

from roomcast.domain.models import SubscriptionType

SUBSCRIPTION_DELETED: Final = "the subscription was deleted"
ROOM_DELETED: Final = "the room was deleted"
_MAX_IDS: Final = 1_000
_MAX_TEXT: Final = 256


class TaskError(ValueError):
    """A body on the outbox queue that is not an outbox task."""


@dataclass(frozen=True)
class PublishCheck:
    """Did publish request ``request_id`` (which may have stored ``message_ids``) finish its sends?"""

    tenant_id: str
    room_id: str
    request_id: str
    message_ids: tuple[str, ...]

    def to_json(self) -> str:
        return _dumps(
            {
                "kind": "publish-check",
                "tenantId": self.tenant_id,
                "roomId": self.room_id,
                "requestId": self.request_id,
                "messageIds": list(self.message_ids),
            }
        )


@dataclass(frozen=True)
class Sweep:
    """End the open deliveries of ``subscriptions`` (deleted, with ``reason``; id -> type) in a
    room; ``position`` is where the walk through the room's messages goes on (None: the newest)."""

    tenant_id: str
    room_id: str
    subscriptions: tuple[tuple[str, SubscriptionType], ...]
    reason: str
    position: str | None = None

    def to_json(self) -> str:
        return _dumps(
            {
                "kind": "sweep",
                "tenantId": self.tenant_id,
                "roomId": self.room_id,
                "subscriptions": [{"id": i, "type": t.value} for i, t in self.subscriptions],
                "reason": self.reason,
                "position": self.position,
            }
        )

    def resumed_at(self, position: str) -> Sweep:
        return replace(self, position=position)


@dataclass(frozen=True)
class RunJob:
    """Go on with job ``job_id`` of ``tenant_id`` from where its record says it is."""

    tenant_id: str
    job_id: str

    def to_json(self) -> str:
        return _dumps({"kind": "job", "tenantId": self.tenant_id, "jobId": self.job_id})


@dataclass(frozen=True)
class Release:
    """Release scheduled message ``message_id`` of ``tenant_id`` at ``due_at_ms``."""

    tenant_id: str
    room_id: str
    message_id: str
    due_at_ms: int
    release_id: str

    def to_json(self) -> str:
        return _dumps(
            {
                "kind": "release",
                "tenantId": self.tenant_id,
                "roomId": self.room_id,
                "messageId": self.message_id,
                "dueAtMs": self.due_at_ms,
                "releaseId": self.release_id,
            }
        )


@dataclass(frozen=True)
class Probe:
    """Probe ``attempt`` of subscription ``subscription_id``'s recovery that began ``chain_ms``."""

    tenant_id: str
    room_id: str
    subscription_id: str
    chain_ms: int
    attempt: int
    due_at_ms: int

    def to_json(self) -> str:
        return _dumps(
            {
                "kind": "probe",
                "tenantId": self.tenant_id,
                "roomId": self.room_id,
                "subscriptionId": self.subscription_id,
                "chainMs": self.chain_ms,
                "attempt": self.attempt,
                "dueAtMs": self.due_at_ms,
            }
        )


OutboxTask = PublishCheck | Sweep | RunJob | Release | Probe


def task_from_json(body: str) -> OutboxTask:
    try:
        raw = json.loads(body)
    except (ValueError, RecursionError) as error:
        raise TaskError(f"not an outbox task: {error}") from error
    if not isinstance(raw, dict):
        raise TaskError("not an outbox task: not an object")
    kind = raw.get("kind")
    if kind == "publish-check":
        return PublishCheck(
            _text(raw, "tenantId"), _text(raw, "roomId"), _text(raw, "requestId"), _ids(raw, "messageIds")
        )
    if kind == "sweep":
        position = raw.get("position")
        if position is not None and not (isinstance(position, str) and 0 < len(position) <= _MAX_TEXT):
            raise TaskError("not an outbox task: position")
        return Sweep(
            _text(raw, "tenantId"), _text(raw, "roomId"), _subscriptions(raw), _text(raw, "reason"), position
        )
    if kind == "job":
        return RunJob(_text(raw, "tenantId"), _text(raw, "jobId"))
    if kind == "probe":
        ids = (_text(raw, "tenantId"), _text(raw, "roomId"), _text(raw, "subscriptionId"))
        return Probe(*ids, _count(raw, "chainMs"), _count(raw, "attempt"), _count(raw, "dueAtMs"))
    if kind == "release":
        ids = (_text(raw, "tenantId"), _text(raw, "roomId"), _text(raw, "messageId"))
        return Release(*ids, _count(raw, "dueAtMs"), _text(raw, "releaseId"))
    raise TaskError(f"not an outbox task: kind {str(kind)[:40]!r}")


def _dumps(raw: dict[str, Any]) -> str:
    return json.dumps(raw, separators=(",", ":"))


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


def _subscriptions(raw: dict[str, Any]) -> tuple[tuple[str, SubscriptionType], ...]:
    value = raw.get("subscriptions")
    if not isinstance(value, list) or not 0 < len(value) <= _MAX_IDS:
        raise TaskError("not an outbox task: subscriptions")
    found = []
    for entry in value:
        if not isinstance(entry, dict) or entry.get("type") not in ("PUSH", "PULL"):
            raise TaskError("not an outbox task: subscriptions")
        found.append((_text(entry, "id"), SubscriptionType(entry["type"])))
    return tuple(found)


def _ids(raw: dict[str, Any], name: str) -> tuple[str, ...]:
    value = raw.get(name)
    if not isinstance(value, list) or len(value) > _MAX_IDS:
        raise TaskError(f"not an outbox task: {name}")
    if not all(isinstance(item, str) and 0 < len(item) <= _MAX_TEXT for item in value):
        raise TaskError(f"not an outbox task: {name}")
    return tuple(value)

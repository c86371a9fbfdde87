"""Ending open deliveries ``cleared``: Clear All's job and the sweeps after a subscription's or a
room's deletion end them the same way (a conditional write each: one that ended meanwhile is left
as it is and not counted), and log each one they ended."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Final

from roomcast.log import LogEvent, LogRecord, LogSink
from roomcast.messages import Delivery, DeliveryStatus, Message, MessageRecords, first_envelope
from roomcast.platform import now_iso

# Conditional writes made at once (each is a round trip of its own).
_PARALLEL_WRITES: Final = 8


def messages_of(
    messages: MessageRecords,
    tenant_id: str,
    found: Sequence[tuple[str, Delivery]],
    known: Mapping[str, Message] | None = None,
) -> dict[str, Message]:
    """The messages of these deliveries (message id, record): ``known`` ones, the others read."""
    stored = dict(known or {})
    if missing := [m for m in dict.fromkeys(m for m, _ in found) if m not in stored]:
        stored |= messages.get_messages(tenant_id, missing)
    return stored


def end_cleared(
    messages: MessageRecords,
    log: LogSink,
    tenant_id: str,
    found: Sequence[tuple[str, Delivery]],
    reason: str,
    known: Mapping[str, Message] | None = None,
) -> int:
    """End these open deliveries (message id, record) ``cleared`` with ``reason``; how many this
    call ended. ``known``: the messages already read (the others are read here), for the log.
    The conditional writes run a few at once."""
    if not found:
        return 0
    stored = messages_of(messages, tenant_id, found, known)

    def end(record: Delivery) -> bool:
        # As read, ended: an ordered delivery keeps its key, so that its end reaches the key.
        closed = replace(
            record,
            status=DeliveryStatus.CLEARED,
            last_error=reason,
            next_attempt_at=None,
            updated_at=now_iso(),
            history=(),
        )
        return messages.update_delivery(closed)  # False: it ended meanwhile

    with ThreadPoolExecutor(max_workers=_PARALLEL_WRITES) as pool:
        ended = list(pool.map(end, [record for _, record in found]))
    for (message_id, record), done in zip(found, ended, strict=True):
        message = stored.get(message_id)
        if done and message is not None:
            envelope = first_envelope(message, record.subscription_id)
            kind = record.subscription_type
            log.add(LogRecord.about(envelope, LogEvent.CLEARED, kind, attempt=record.attempts, error=reason))
    return sum(ended)

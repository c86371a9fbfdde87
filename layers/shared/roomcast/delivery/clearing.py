"""Ending open deliveries ``cleared``: Clear All's job and the sweeps after a subscription's or a
room's deletion end them the same way (a conditional write each: one that ended meanwhile is left
as it is and not counted), and log each one they ended."""

from __future__ import annotations

from collections.abc import Sequence

from roomcast.dal.ports import LogSink, MessageRecords
from roomcast.domain.envelope import first_envelope
from roomcast.domain.log_records import LogEvent, LogRecord
from roomcast.domain.messages import Delivery, DeliveryStatus


def end_cleared(
    messages: MessageRecords, log: LogSink, tenant_id: str, found: Sequence[tuple[str, Delivery]], reason: str
) -> int:
    """End these open deliveries (message id, record) ``cleared`` with ``reason``; how many this
    call ended."""
    if not found:
        return 0
    stored = messages.get_messages(tenant_id, list(dict.fromkeys(m for m, _ in found)))
    ended = 0
    for message_id, record in found:
        closed = Delivery(
            record.message_id,
            record.tenant_id,
            record.subscription_id,
            record.subscription_type,
            DeliveryStatus.CLEARED,
            record.attempts,
            reason,
        )
        if not messages.update_delivery(closed):
            continue  # it ended meanwhile
        ended += 1
        message = stored.get(message_id)
        if message is not None:
            envelope = first_envelope(message, record.subscription_id)
            kind = record.subscription_type
            log.add(LogRecord.about(envelope, LogEvent.CLEARED, kind, attempt=record.attempts, error=reason))
    return ended

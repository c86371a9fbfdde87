"""Ack, nack and extend: what a consumer says about messages it pulled, by their receipts.

Every receipt is verified (signature, tenant, room, subscription) before anything changes: 400 at
the first bad one. Then each side effect comes in an order where a failure leaves the message
deliverable: an ack records the delivery before it deletes the message from SQS (a failed delete
means a duplicate, never a message gone with no record); a nack first hides the message, which
also proves its handle current, and only then records, re-sends or ends it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pull_api.work import Plan, PullSubscription, PullWork
from roomcast.catalog import FailureOutcome
from roomcast.log import LogEvent
from roomcast.messages import (
    SQS_MAX_VISIBILITY_SECONDS,
    AttemptEvent,
    DeliveryStatus,
    Outgoing,
    delay_seconds,
    first_envelope,
)
from roomcast.platform import iso_from_ms
from roomcast.pull import Receipt, visibility_seconds

NACKED = "nacked by the consumer"
ALREADY_ENDED = "the message had already ended"


@dataclass(frozen=True)
class RefusedReceipt:
    receipt: str
    message_id: str
    error: str


@dataclass(frozen=True)
class Nacked:
    message_id: str
    outcome: FailureOutcome
    next_attempt_at: str | None = None


@dataclass
class AckResult:
    acked: list[str] = field(default_factory=list)
    failed: list[RefusedReceipt] = field(default_factory=list)


@dataclass
class NackResult:
    nacked: list[Nacked] = field(default_factory=list)
    failed: list[RefusedReceipt] = field(default_factory=list)


@dataclass
class ExtendResult:
    extended: list[str] = field(default_factory=list)
    failed: list[RefusedReceipt] = field(default_factory=list)


def verified(
    work: PullWork,
    tenant_id: str,
    room_id: str,
    subscription_id: str,
    tokens: list[str],
    field: str = "receipts",
) -> dict[str, Receipt]:
    """Every token verified (400 at the first bad one, before anything changes); receipts of one
    SQS handle merged (the first one kept): SQS refuses a batch that names a handle twice."""
    receipts: dict[str, Receipt] = {}
    handles: set[str] = set()
    for index, token in enumerate(tokens):
        receipt = work.signer.decode(token, tenant_id, room_id, subscription_id, index, field)
        if receipt.handle not in handles:
            handles.add(receipt.handle)
            receipts[token] = receipt
    return receipts


def _refused(receipts: dict[str, Receipt], failed: dict[str, str]) -> list[RefusedReceipt]:
    return [
        RefusedReceipt(t, r.message_id, failed[r.handle]) for t, r in receipts.items() if r.handle in failed
    ]


def ack(work: PullWork, tenant_id: str, room_id: str, subscription_id: str, tokens: list[str]) -> AckResult:
    destination = work.destination(tenant_id, room_id, subscription_id)
    return acknowledge(
        work, destination, tenant_id, verified(work, tenant_id, room_id, subscription_id, tokens)
    )


def acknowledge(
    work: PullWork, destination: PullSubscription, tenant_id: str, receipts: dict[str, Receipt]
) -> AckResult:
    """The ack of ``receipts`` (verified) of ``destination`` (read): records, then the queue's delete."""
    # Recorded first, deleted second: if the delete fails the message comes back (a duplicate the
    # consumer may see again), never gone from the queue while its record still says pending.
    # Conditional writes: an ack that comes after the message ended dead, expired or cleared
    # changes nothing, and says so (SQS hands a message out twice at times: the other hand-out's
    # nack may have ended it dead; SQS would still take this handle's delete).
    now = work.clock()
    records = [
        r.record(tenant_id, DeliveryStatus.DELIVERED, answered=(AttemptEvent.ACK, now))
        for r in receipts.values()
    ]
    ended = work.messages.update_deliveries(records)
    too_late = {
        r.handle: f"{ALREADY_ENDED} {ended[r.message_id].value}: not delivered"
        for r in receipts.values()
        if ended.get(r.message_id, DeliveryStatus.DELIVERED) is not DeliveryStatus.DELIVERED
    }
    # The records say 'delivered' now: logged while the messages are deleted (a handle SQS refuses
    # brings its message back, which is then delivered, recorded and logged again). A message
    # that ended otherwise is deleted too (this copy of it is not owed to anyone), not logged.
    for receipt in receipts.values():
        if receipt.handle not in too_late:
            work.log_receipt(LogEvent.DELIVERED, tenant_id, receipt)
    failed = work.delete_while_logging(destination.queue_url, [r.handle for r in receipts.values()])
    failed = too_late | failed
    acked = [r for r in receipts.values() if r.handle not in failed]
    return AckResult([r.message_id for r in acked], _refused(receipts, failed))


def nack(work: PullWork, tenant_id: str, room_id: str, subscription_id: str, tokens: list[str]) -> NackResult:
    destination = work.destination(tenant_id, room_id, subscription_id)
    receipts = verified(work, tenant_id, room_id, subscription_id, tokens)
    now = work.clock()
    steps = {token: work.next_step(destination.policy, r, now) for token, r in receipts.items()}
    # Within SQS's visibility limit a nack just hides the message for the delay; longer waits and
    # dead letters need the whole envelope, rebuilt from the stored message (expiries too: they are
    # reported to the room's operations room with it).
    hide = {
        t
        for t, s in steps.items()
        if s.outcome is FailureOutcome.RETRY and s.delay_ms <= SQS_MAX_VISIBILITY_SECONDS * 1000
    }
    needs_envelope = [t for t, s in steps.items() if s.outcome is not FailureOutcome.RETRY or t not in hide]
    stored = work.messages.get_messages(tenant_id, [receipts[t].message_id for t in needs_envelope])
    # Hiding also proves a handle is current: one SQS refuses is reported and nothing else
    # happens to it (no dead-letter copy, no record). Messages about to end dead or expired
    # are hidden for their ack wait, which changes nothing but proves the same.
    ack_wait_seconds = visibility_seconds(destination.subscription.ack_wait_ms or 0)
    failed = work.queues.hide(
        destination.queue_url,
        [
            (receipts[t].handle, -(-s.delay_ms // 1000) if t in hide else ack_wait_seconds)
            for t, s in steps.items()
            if t in hide or s.outcome is not FailureOutcome.RETRY
        ],
    )
    plan = Plan(destination)
    result = NackResult()
    for token, step in steps.items():
        receipt = receipts[token]
        if receipt.handle in failed:
            continue
        message = stored.get(receipt.message_id)
        if token in needs_envelope and message is None and step.outcome is not FailureOutcome.EXPIRED:
            failed[receipt.handle] = "message record no longer exists"
            continue
        envelope = first_envelope(message, subscription_id) if message else None
        if step.outcome is FailureOutcome.RETRY:
            due = step.due_at_ms or now
            if token not in hide and envelope is not None:
                resent = envelope.next_attempt(step.next_attempt, step.delay_ms, due)
                plan.outgoing.append(Outgoing(destination.queue_url, resent, delay_seconds(due, now)))
                plan.delete.append(receipt.handle)
            plan.records.append(
                receipt.record(
                    tenant_id,
                    DeliveryStatus.RETRYING,
                    NACKED,
                    iso_from_ms(due),
                    answered=(AttemptEvent.NACK, now),
                )
            )
            work.log_receipt(
                LogEvent.RETRY_SCHEDULED, tenant_id, receipt, error=NACKED, next_delay_ms=step.delay_ms
            )
            result.nacked.append(Nacked(receipt.message_id, step.outcome, iso_from_ms(due)))
        elif step.outcome is FailureOutcome.DEAD:
            assert envelope is not None
            dead = envelope.next_attempt(receipt.attempt, 0, now)
            plan.endings.append((dead, f"{NACKED}; attempts exhausted", receipt.attempt + 1))
            plan.delete.append(receipt.handle)
            result.nacked.append(Nacked(receipt.message_id, step.outcome))
        else:
            plan.delete.append(receipt.handle)
            plan.records.append(
                receipt.record(
                    tenant_id,
                    DeliveryStatus.EXPIRED,
                    "next attempt past expiry",
                    answered=(AttemptEvent.NACK, now),
                )
            )
            work.log_receipt(LogEvent.EXPIRED, tenant_id, receipt, error=NACKED)
            if envelope is not None:
                work.endings.expired(envelope, f"{NACKED}; next attempt past expiry")
            result.nacked.append(Nacked(receipt.message_id, step.outcome))
    work.apply(plan)
    result.failed = _refused(receipts, failed)
    return result


def extend(
    work: PullWork, tenant_id: str, room_id: str, subscription_id: str, tokens: list[str], ack_wait_ms: int
) -> ExtendResult:
    """Keep the pulled messages hidden ``ack_wait_ms`` longer from now (their ack wait starts again).

    Not a delivery state change: nothing is written to DynamoDB, the attempt stays. A receipt SQS
    refuses (its ack wait ran out and the message was handed out again, it was acked, or the
    message would stay hidden past SQS's 12 hours from its receive) is reported, the others extended.
    """
    destination = work.destination(tenant_id, room_id, subscription_id)
    receipts = verified(work, tenant_id, room_id, subscription_id, tokens)
    seconds = visibility_seconds(ack_wait_ms)
    failed = work.queues.hide(destination.queue_url, [(r.handle, seconds) for r in receipts.values()])
    extended = [r for r in receipts.values() if r.handle not in failed]
    for receipt in extended:
        work.log_receipt(LogEvent.EXTENDED, tenant_id, receipt, next_delay_ms=ack_wait_ms)
    return ExtendResult([r.message_id for r in extended], _refused(receipts, failed))

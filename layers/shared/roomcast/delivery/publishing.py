"""Publishing a message into a room: route, store the message and its first delivery records in
one write, then enqueue one envelope per destination. Used by the publish function (one message,
or a batch of them), and by every function that reports operational events
(roomcast.delivery.operational).

A publish request that dies between storing and sending cannot leave a message unsent: before it
stores anything it sends the outbox a delayed check naming the messages it may store, and once
every first envelope is sent (or left to the outbox) it records the request done. A check that
finds no such record sends what was stored (docs/decisions/0028-every-delivery-ends.md)."""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Final

from roomcast.dal.messages import MessageExists
from roomcast.dal.outbox_queue import OutboxQueue
from roomcast.dal.ports import Catalog, MessageRecords, Sender
from roomcast.dal.sender import Destinations, Unsent
from roomcast.dal.stores import Stores
from roomcast.delivery.log import LogRecord, LogSink
from roomcast.domain import ids, limits
from roomcast.domain.clock import iso_from_ms, now_ms
from roomcast.domain.envelope import Envelope, first_envelope
from roomcast.domain.messages import Delivery, DeliveryStatus, Message
from roomcast.domain.models import Room, Subscription
from roomcast.domain.outbox_tasks import PublishCheck
from roomcast.domain.payloads import JsonValue
from roomcast.domain.policy import expires_at
from roomcast.domain.routing import resolve_destinations
from roomcast.errors import Conflict, InvalidRequest, RoomcastError
from roomcast.observability import logger

# A keyed message of a batch found stored without its first sends recorded done belongs to a
# publish still running while it is younger than this (the publish function's 29 s timeout,
# rounded up): 409, as a single publish answers; older, that publish died and this one finishes it.
PUBLISH_IN_PROGRESS_MS: Final = 30_000
# The publish check is sent while the room is read (both before anything is stored).
_CHECKS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="publish-check")


def _same_publish(stored: Message, retried: Message, correlation_id: str | None, now_ms: int) -> bool:
    """Whether a stored message is what a retried publish under the same key asked for, within
    the key's window (after it, the key may name a new message)."""
    return (
        (stored.event_type, stored.event_version, stored.payload)
        == (retried.event_type, retried.event_version, retried.payload)
        and (correlation_id is None or stored.correlation_id == correlation_id)
        and now_ms - stored.published_at_ms < limits.IDEMPOTENCY_WINDOW_MS
    )


def unsent_destinations(unsent: Sequence[Unsent]) -> list[str]:
    """The subscriptions whose envelopes were not sent, each once, in order."""
    return list(dict.fromkeys(u.subscription_id for u in unsent if u.subscription_id))


@dataclass(frozen=True)
class Publication:
    """One message of a batch publish, as asked (``explicit``: the named destinations)."""

    event_type: str
    event_version: str
    payload: JsonValue
    correlation_id: str | None = None
    explicit: Sequence[str] | None = None
    idempotency_key: str | None = None


@dataclass(frozen=True)
class _Planned:
    """A message of a batch on its way: where it is in the batch, and where it goes."""

    index: int
    message: Message
    targets: list[Subscription]
    keyed: bool


def internal_error() -> RoomcastError:
    """What a message of a batch answers when AWS failed it (the request as a whole went on)."""
    return RoomcastError(
        "internal error; this message may be retried", code="internal_error", http_status=500
    )


def key_reused() -> InvalidRequest:
    return InvalidRequest(
        "this idempotency key was used with a different message in the last 24 hours",
        code="idempotency_key_reused",
    )


@dataclass
class Publisher:
    catalog: Catalog
    messages: MessageRecords
    sender: Sender
    destinations: Destinations
    log: LogSink
    outbox: OutboxQueue
    clock: Callable[[], int] = now_ms

    @classmethod
    def of(cls, stores: Stores) -> Publisher:
        st = stores
        return cls(st.catalog, st.messages, st.sender, st.destinations, st.log, st.outbox)

    def _routing_with_check(
        self, tenant_id: str, room_id: str, request_id: str, message_ids: Sequence[str]
    ) -> tuple[Room, list[Subscription], bool]:
        """The room's routing view, read while the publish check naming ``message_ids`` is sent
        (both before anything is stored), and whether the check was sent. Without it (SQS is
        failing) nothing is sent directly: the messages are stored marked for the outbox, which
        the table's stream triggers from their insertion, so a crash cannot lose them either."""
        check = PublishCheck(tenant_id, room_id, request_id, tuple(message_ids))
        sent: Future[None] = _CHECKS.submit(self.outbox.after_settling, check)
        try:
            room, subscriptions = self.catalog.routing_view(tenant_id, room_id)
        finally:
            try:
                sent.result()
                checked = True
            except Exception:
                logger.warning(
                    "the publish check could not be sent; the outbox sends this publish", exc_info=True
                )
                checked = False
        return room, subscriptions, checked

    def _record_sent(self, tenant_id: str, units: Sequence[str]) -> None:
        """These publish units' first sends are done (the request, and each stored message it
        finished for a dead earlier try). If this write fails the check sends them again:
        duplicates, never a loss, and the publish is still answered."""
        try:
            self.messages.mark_sends_done(tenant_id, units)
        except Exception:
            logger.exception("recording a publish's sends done failed", extra={"units": list(units)})

    def publish_message(
        self,
        tenant_id: str,
        room_id: str,
        event_type: str,
        event_version: str,
        payload: JsonValue,
        correlation_id: str | None = None,
        explicit: Sequence[str] | None = None,
        idempotency_key: str | None = None,
    ) -> Message:
        """Route, store (message and first records in one write), then send one envelope per
        destination; a message routed nowhere is stored and logged all the same.

        With an ``idempotency_key`` the message id comes from it: a retry whose first try stored
        the message and died before answering finds that message and finishes its sends (at
        worst sending an envelope twice) instead of storing a second message."""
        request_id = ids.new_publish_request_id()
        message_id = _message_id(tenant_id, room_id, idempotency_key)
        room, subscriptions, direct = self._routing_with_check(tenant_id, room_id, request_id, [message_id])
        targets = resolve_destinations(room, subscriptions, event_type, event_version, explicit)
        publication = Publication(
            event_type, event_version, payload, correlation_id, explicit, idempotency_key
        )
        message = self._new_message(message_id, request_id, room, publication, targets, self.clock())
        # Stored first: a message is never on a queue without its record.
        try:
            self.messages.put_message(
                message,
                _first_records(message, targets),
                if_new=idempotency_key is not None,
                left_to_outbox=not direct,
            )
        except MessageExists as exists:
            stored = exists.stored or self.messages.get_messages(tenant_id, [message.id]).get(message.id)
            if stored is None or not _same_publish(stored, message, correlation_id, message.published_at_ms):
                # The key's message is another one (the key reused after its window): a new id.
                return self.publish_message(
                    tenant_id, room_id, event_type, event_version, payload, correlation_id, explicit
                )
            resumed = _still_there(stored, subscriptions)
            if direct:
                self._send(stored, resumed, stored.destinations)
                self._record_sent(tenant_id, [request_id, stored.id])
            else:
                self._leave_to_outbox(stored, stored.destinations)
            self._log(stored, resumed)
            return stored
        if direct:
            self._send(message, targets, message.destinations)
            self._record_sent(tenant_id, [request_id])
        self._log(message, targets)
        return message

    def publish_batch(
        self, tenant_id: str, room_id: str, publications: Sequence[Publication]
    ) -> list[Message | RoomcastError]:
        """Publish several messages to one room, each routed and answered on its own (a message or
        why it was refused, in order), with the work of one: the room and its subscriptions read
        once, keyless messages stored 25 per BatchWriteItem, keyed ones each with a conditional
        PutItem (as ``publish_message``), and all envelopes sent together (10 per SQS call, the
        calls in parallel). A keyed message already stored by an earlier try is answered as it was,
        and its sends are finished if that try died before recording them done."""
        request_id = ids.new_publish_request_id()
        message_ids = [_message_id(tenant_id, room_id, p.idempotency_key) for p in publications]
        room, subscriptions, direct = self._routing_with_check(
            tenant_id, room_id, request_id, list(dict.fromkeys(message_ids))
        )
        published_at_ms = self.clock()
        results: list[Message | RoomcastError | None] = [None] * len(publications)
        planned: list[_Planned] = []
        first_with_key: dict[str, int] = {}
        repeats: list[tuple[int, int]] = []  # a key met again in the batch: (index, its first index)
        for index, publication in enumerate(publications):
            try:
                targets = resolve_destinations(
                    room,
                    subscriptions,
                    publication.event_type,
                    publication.event_version,
                    publication.explicit,
                )
            except RoomcastError as refused:
                results[index] = refused
                continue
            key = publication.idempotency_key
            if key is not None and key in first_with_key:
                repeats.append((index, first_with_key[key]))
                continue
            if key is not None:
                first_with_key[key] = index
            message = self._new_message(
                message_ids[index], request_id, room, publication, targets, published_at_ms
            )
            planned.append(_Planned(index, message, targets, key is not None))

        # Stored first: a message is never on a queue without its record.
        failed = self.messages.put_messages(
            [(p.message, _first_records(p.message, p.targets)) for p in planned if not p.keyed],
            left_to_outbox=not direct,
        )
        failed |= self.messages.put_messages(
            [(p.message, _first_records(p.message, p.targets)) for p in planned if p.keyed],
            if_new=True,
            left_to_outbox=not direct,
        )
        to_send: list[_Planned] = []
        found: list[tuple[_Planned, MessageExists]] = []
        # Whether every message is stored and sent (or left to the outbox): a write that failed
        # may still have stored part of a batch, and only the check can find that.
        complete = True
        for plan in planned:
            error = failed.get(plan.message.id)
            if error is None:
                to_send.append(plan)
            elif isinstance(error, MessageExists):
                found.append((plan, error))
            else:
                logger.error("storing a message of a batch failed", exc_info=error)
                results[plan.index] = internal_error()
                complete = False
        for plan, outcome in self._already_stored(
            tenant_id, found, publications, subscriptions, published_at_ms
        ):
            if isinstance(outcome, _Planned):
                to_send.append(outcome)
            else:
                results[plan.index] = outcome

        answered = self._send_all(to_send, results, request_id, direct)
        if direct and complete and len(answered) == len(to_send):
            resumed = [p.message.id for p in answered if p.message.request_id != request_id]
            self._record_sent(tenant_id, [request_id, *resumed])
        for index, first in repeats:
            same = publications[index] == publications[first]
            results[index] = results[first] if same else key_reused()
        return [result if result is not None else internal_error() for result in results]

    def _already_stored(
        self,
        tenant_id: str,
        found: Sequence[tuple[_Planned, MessageExists]],
        publications: Sequence[Publication],
        subscriptions: Sequence[Subscription],
        now: int,
    ) -> list[tuple[_Planned, Message | RoomcastError | _Planned]]:
        """What keyed messages of a batch whose id was taken answer: the stored message (its sends
        done), a resumed plan (sends to finish), or a refusal; a key past its window publishes anew."""
        if not found:
            return []
        missing = [plan.message.id for plan, exists in found if exists.stored is None]
        reread = self.messages.get_messages(tenant_id, missing) if missing else {}
        stored_of = {plan.message.id: exists.stored or reread.get(plan.message.id) for plan, exists in found}
        # A stored message's sends are done when its request recorded them, or a retry did.
        units = {u for m in stored_of.values() if m is not None for u in (m.request_id, m.id) if u}
        done_units = self.messages.sends_done(tenant_id, sorted(units))
        done = {
            i
            for i, m in stored_of.items()
            if m is not None and (m.id in done_units or m.request_id in done_units)
        }
        answers: list[tuple[_Planned, Message | RoomcastError | _Planned]] = []
        for plan, _exists in found:
            stored = stored_of[plan.message.id]
            publication = publications[plan.index]
            if stored is None or now - stored.published_at_ms >= limits.IDEMPOTENCY_WINDOW_MS:
                answers.append((plan, self._publish_anew(tenant_id, plan.message.room_id, publication)))
            elif not _same_publish(stored, plan.message, publication.correlation_id, now):
                answers.append((plan, key_reused()))
            elif stored.id in done:
                answers.append((plan, stored))
            elif now - stored.published_at_ms < PUBLISH_IN_PROGRESS_MS:
                answers.append(
                    (plan, Conflict("a publish with this idempotency key is in progress; retry shortly"))
                )
            else:
                answers.append(
                    (plan, _Planned(plan.index, stored, _still_there(stored, subscriptions), True))
                )
        return answers

    def _publish_anew(
        self, tenant_id: str, room_id: str, publication: Publication
    ) -> Message | RoomcastError:
        """A message whose key named a message past the key's window: a new message, new id."""
        try:
            return self.publish_message(
                tenant_id,
                room_id,
                publication.event_type,
                publication.event_version,
                publication.payload,
                publication.correlation_id,
                publication.explicit,
            )
        except RoomcastError as refused:
            return refused

    def _new_message(
        self,
        message_id: str,
        request_id: str,
        room: Room,
        publication: Publication,
        targets: Sequence[Subscription],
        at_ms: int,
    ) -> Message:
        return Message(
            id=message_id,
            tenant_id=room.tenant_id,
            room_id=room.id,
            event_type=publication.event_type,
            event_version=publication.event_version,
            correlation_id=publication.correlation_id or str(uuid.uuid4()),
            payload=publication.payload,
            published_at=iso_from_ms(at_ms),
            published_at_ms=at_ms,
            expires_at_ms=expires_at(at_ms, room.message_expiration_ms),
            destinations=tuple(s.id for s in targets),
            request_id=request_id,
        )

    def _send_all(
        self,
        plans: Sequence[_Planned],
        results: list[Message | RoomcastError | None],
        request_id: str,
        direct: bool,
    ) -> list[_Planned]:
        """Every planned message's envelopes in one ``try_send`` (SQS batches per queue, in
        parallel); what SQS refused is left to the outbox, per message. Not ``direct`` (the check
        could not be sent): nothing is sent here, the outbox sends it all (new messages were stored
        marked; one an earlier try stored is marked now). Returns the plans answered with their
        message (``results`` filled in)."""
        unsent: dict[str, list[str]] = defaultdict(list)
        if direct:
            outgoing = [
                self.destinations.outgoing_for(s, first_envelope(plan.message, s.id))
                for plan in plans
                for s in plan.targets
            ]
            for refused in self.sender.try_send(outgoing):
                if isinstance(refused.outgoing.envelope, Envelope) and refused.subscription_id:
                    unsent[refused.outgoing.envelope.message_id].append(refused.subscription_id)
        answered = []
        for plan in plans:
            if direct:
                routed = {s.id for s in plan.targets}
                left = list(dict.fromkeys(unsent.get(plan.message.id, [])))
                left += [i for i in plan.message.destinations if i not in routed]
            else:
                resumed = plan.message.request_id != request_id
                left = list(plan.message.destinations) if resumed else []
            try:
                self._leave_to_outbox(plan.message, left)
            except Exception:
                logger.exception(
                    "marking a message's unsent envelopes failed", extra={"message_id": plan.message.id}
                )
                results[plan.index] = internal_error()
                continue
            results[plan.index] = plan.message
            self._log(plan.message, plan.targets)
            answered.append(plan)
        return answered

    def _send(self, message: Message, targets: Sequence[Subscription], destinations: Sequence[str]) -> None:
        """One envelope per destination. What cannot be sent now (an SQS outage, a PULL queue
        deleted since routing, a subscription gone) is left to the outbox: marked on the message
        item, sent (or ended cleared) by the outbox function from the table's stream. The publish
        is accepted either way: the message is stored and will be sent or end cleared."""
        outgoing = [self.destinations.outgoing_for(s, first_envelope(message, s.id)) for s in targets]
        unsent = unsent_destinations(self.sender.try_send(outgoing))
        routed = {s.id for s in targets}
        unsent += [i for i in destinations if i not in routed]
        self._leave_to_outbox(message, unsent)

    def _leave_to_outbox(self, message: Message, unsent: Sequence[str]) -> None:
        if unsent:
            self.messages.mark_unsent(message.tenant_id, message.id, unsent)
            logger.warning(
                "first envelopes left to the outbox", extra={"message_id": message.id, "unsent": list(unsent)}
            )

    def _log(self, message: Message, targets: Sequence[Subscription]) -> None:
        # One record per destination, or one without a subscription for a message routed nowhere.
        none: list[Subscription | None] = [None]
        for target in [*targets] or none:
            self.log.add(
                LogRecord(
                    event="published",
                    message_id=message.id,
                    correlation_id=message.correlation_id,
                    tenant_id=message.tenant_id,
                    room_id=message.room_id,
                    subscription_id=target.id if target else None,
                    subscription_type=target.type.value if target else None,
                    published_at=message.published_at,
                    timestamp=message.published_at,
                )
            )


def _message_id(tenant_id: str, room_id: str, idempotency_key: str | None) -> str:
    """A keyed message's id comes from its key (a retry finds what the first try stored)."""
    if idempotency_key:
        return ids.message_id_for(tenant_id, room_id, idempotency_key)
    return ids.new_message_id()


def _first_records(message: Message, targets: Sequence[Subscription]) -> list[Delivery]:
    at = message.published_at
    return [
        Delivery(message.id, message.tenant_id, s.id, s.type, DeliveryStatus.PENDING, 0, None, at, at)
        for s in targets
    ]


def _still_there(stored: Message, subscriptions: Sequence[Subscription]) -> list[Subscription]:
    """The stored message's destinations that are still subscriptions of the room."""
    by_id = {s.id: s for s in subscriptions}
    return [by_id[i] for i in stored.destinations if i in by_id]

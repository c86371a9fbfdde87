"""Publishing messages into a room: route, store each message with its first delivery records in
one write, then send one envelope per destination (roomcast.publishing.first_sends). A single
publish is a batch of one. Used by the publish function, and by every function that reports
operational events (roomcast.operations.events).

A publish request that dies between storing and sending cannot leave a message unsent: before it
stores anything it sends the outbox a delayed check naming the messages it may store, and once
every first envelope is sent (or left to the outbox) it records the request done. A check that
finds no such record sends what was stored (docs/decisions/0028-every-delivery-ends.md). Keyed
messages follow roomcast.publishing.keyed_messages."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import KW_ONLY, dataclass, replace
from functools import partial

from roomcast.catalog.model import Room, Subscription
from roomcast.catalog.policy import expires_at
from roomcast.deliver_at.rules import release_at_ms
from roomcast.event_types.gate import ADMITTED, Admission, SchemaGate
from roomcast.messages.model import Delivery, DeliveryStatus, Message, Publication
from roomcast.messages.ports import MessageExists
from roomcast.ordering.model import MAX_ORDERED_SUBSCRIPTIONS_PER_ROOM, number_in_lines
from roomcast.ordering.ports import KeyNumberRecords
from roomcast.ordering.store import waiting_items
from roomcast.outbox.tasks import PublishCheck
from roomcast.platform import ids
from roomcast.platform.clock import iso_from_ms, now_ms
from roomcast.platform.errors import RoomcastError
from roomcast.platform.observability import logger
from roomcast.publishing import keyed_messages
from roomcast.publishing.first_sends import MessageSending, Routed
from roomcast.publishing.keyed_messages import Anew, Resume, Taken
from roomcast.publishing.routing import Route, route_message

# The publish check is sent while the room is read (both before anything is stored).
_CHECKS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="publish-check")


@dataclass(frozen=True)
class _Planned:
    """A message of the request on its way: where it is in the request, and where it goes."""

    index: int
    routed: Routed
    keyed: bool


def internal_error() -> RoomcastError:
    """What a message of a batch answers when AWS failed it (the request as a whole went on)."""
    return RoomcastError(
        "internal error; this message may be retried", code="internal_error", http_status=500
    )


@dataclass
class Publisher(MessageSending):
    clock: Callable[[], int] = now_ms
    # The event-type catalog's checks: the publish API's messages only (not roomcast's own events).
    schemas: SchemaGate | None = None
    _: KW_ONLY
    numbers: KeyNumberRecords  # the ordering keys' numbers a keyed publish takes

    def publish_message(self, tenant_id: str, room_id: str, publication: Publication) -> Message:
        """One message, as a batch of one; raises what the batch answers for it."""
        (answer,) = self.publish_batch(tenant_id, room_id, [publication])
        if isinstance(answer, RoomcastError):
            raise answer
        return answer

    def publish_batch(
        self, tenant_id: str, room_id: str, publications: Sequence[Publication]
    ) -> list[Message | RoomcastError]:
        """Publish messages to one room, each routed and answered on its own (a message or why it
        was refused, in order), with the work of one: the room and its subscriptions read once,
        keyless messages stored 25 per BatchWriteItem, keyed ones each with a conditional PutItem,
        and all envelopes sent together (10 per SQS call, the calls in parallel)."""
        request_id = ids.new_publish_request_id()
        message_ids = [keyed_messages.message_id(tenant_id, room_id, p.idempotency_key) for p in publications]
        gate = self.schemas
        declared = _CHECKS.submit(gate.event_types, tenant_id, publications) if gate is not None else None
        room, subscriptions, direct = self._routing_with_check(
            tenant_id, room_id, request_id, list(dict.fromkeys(message_ids))
        )
        admissions = gate.admit(room, publications, declared.result()) if gate and declared else None
        now = self.clock()
        results: list[Message | RoomcastError | None] = [None] * len(publications)
        planned: list[_Planned] = []
        first_with_key: dict[str, int] = {}
        repeats: list[tuple[int, int]] = []  # a key met again in the request: (index, its first index)
        for index, publication in enumerate(publications):
            admission = admissions[index] if admissions is not None else ADMITTED
            if admission.refused is not None:
                results[index] = admission.refused
                continue
            try:
                route = route_message(room, subscriptions, publication)
                release_at = release_at_ms(now, publication.deliver_at_ms, publication.deliver_after_ms)
            except RoomcastError as refused:
                results[index] = refused
                continue
            key = publication.idempotency_key
            if key is not None and key in first_with_key:
                repeats.append((index, first_with_key[key]))
                continue
            if key is not None:
                first_with_key[key] = index
            message = _new_message(message_ids[index], request_id, room, publication, route, now, admission)
            if release_at is not None:
                message = scheduled(message, release_at, room)
            planned.append(_Planned(index, Routed(message, route.destinations), key is not None))
        numbered = number_in_lines(
            [p.routed.message for p in planned], partial(self._take, tenant_id, room_id)
        )
        planned = [
            replace(p, routed=replace(p.routed, message=m)) for p, m in zip(planned, numbered, strict=True)
        ]
        to_send, complete = self._store(tenant_id, planned, publications, subscriptions, results, direct, now)
        answered = self.first_sends().send([p.routed for p in to_send], direct, request_id, now)
        for plan, ok in zip(to_send, answered, strict=True):
            results[plan.index] = plan.routed.message if ok else internal_error()
        if direct and complete and all(answered):
            resumed = [p.routed.message.id for p in to_send if p.routed.message.request_id != request_id]
            self._record_sent(tenant_id, [request_id, *resumed])
        for index, first in repeats:
            same = publications[index] == publications[first]
            results[index] = results[first] if same else keyed_messages.key_reused()
        return [result if result is not None else internal_error() for result in results]

    def _store(
        self,
        tenant_id: str,
        planned: Sequence[_Planned],
        publications: Sequence[Publication],
        subscriptions: Sequence[Subscription],
        results: list[Message | RoomcastError | None],
        direct: bool,
        now: int,
    ) -> tuple[list[_Planned], bool]:
        """Store the planned messages (before anything is sent: a message is never on a queue
        without its record); those to send, and whether every one was stored or answered (a write
        that failed may still have stored part of a batch: only the check can find that)."""
        failed = self.messages.put_messages(
            [(p.routed.message, _first_records(p.routed)) for p in planned if not p.keyed],
            left_to_outbox=not direct,
            places=waiting_items,
        )
        failed |= self.messages.put_messages(
            [(p.routed.message, _first_records(p.routed)) for p in planned if p.keyed],
            if_new=True,
            left_to_outbox=not direct,
            places=waiting_items,
        )
        to_send, taken, complete = [], [], True
        for plan in planned:
            error = failed.get(plan.routed.message.id)
            if error is None:
                to_send.append(plan)
            elif isinstance(error, MessageExists):
                taken.append((plan, error.stored))
            else:
                logger.error("storing a message failed", exc_info=error)
                results[plan.index] = internal_error()
                complete = False
        missing = [plan.routed.message.id for plan, stored in taken if stored is None]
        reread = self.messages.get_messages(tenant_id, missing) if missing else {}
        asked = [
            Taken(
                plan.routed.message,
                publications[plan.index].correlation_id,
                stored or reread.get(plan.routed.message.id),
            )
            for plan, stored in taken
        ]
        for (plan, _), answer in zip(
            taken, keyed_messages.answer_taken(self.marks, tenant_id, asked, now), strict=True
        ):
            if isinstance(answer, Resume):
                to_send.append(
                    _Planned(
                        plan.index, Routed(answer.stored, _still_there(answer.stored, subscriptions)), True
                    )
                )
            elif isinstance(answer, Anew):
                results[plan.index] = self._publish_anew(
                    tenant_id, plan.routed.message.room_id, publications[plan.index]
                )
            else:
                results[plan.index] = answer
        return to_send, complete

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

    def _take(self, tenant_id: str, room_id: str, counts: Mapping[str, int]) -> dict[str, int]:
        """Each key's fresh numbers (the last of them), one counter write per key, side by side."""
        keys = list(counts)
        taken = _CHECKS.map(
            lambda key: self.numbers.take_ordering_numbers(tenant_id, room_id, key, counts[key]), keys
        )
        return dict(zip(keys, taken, strict=True))

    def _record_sent(self, tenant_id: str, units: Sequence[str]) -> None:
        """These publish units' first sends are done (the request, and each stored message it
        finished for a dead earlier try). If this write fails the check sends them again:
        duplicates, never a loss, and the publish is still answered."""
        try:
            self.marks.mark_sends_done(tenant_id, units)
        except Exception:
            logger.exception("recording a publish's sends done failed", extra={"units": list(units)})

    def _publish_anew(
        self, tenant_id: str, room_id: str, publication: Publication
    ) -> Message | RoomcastError:
        """A message whose key named a message past the key's window: a new message, new id."""
        keyless = replace(publication, idempotency_key=None)
        try:
            return self.publish_message(tenant_id, room_id, keyless)
        except RoomcastError as refused:
            return refused


def _new_message(
    message_id: str,
    request_id: str,
    room: Room,
    publication: Publication,
    route: Route,
    at_ms: int,
    admission: Admission,
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
        destinations=tuple(s.id for s in route.destinations),
        request_id=request_id,
        filtered_out=route.filtered_out,
        schema_errors=admission.warnings,
        ordering_key=publication.ordering_key,
        # An ordered destination gets it in its key's turn (docs/decisions/0041-ordering-keys.md).
        # (a room holds at most MAX_ORDERED_SUBSCRIPTIONS_PER_ROOM; more, by a race of two
        # creates, are sent unordered: the message and its places are one transaction)
        ordered_to=tuple(s.id for s in route.destinations if s.ordered)[:MAX_ORDERED_SUBSCRIPTIONS_PER_ROOM]
        if publication.ordering_key
        else (),
    )


def scheduled(message: Message, release_at_ms: int, room: Room) -> Message:
    """The message released at ``release_at_ms``: its expiry clock starts then."""
    expiry = expires_at(release_at_ms, room.message_expiration_ms)
    return replace(message, deliver_at_ms=release_at_ms, expires_at_ms=expiry)


def _first_records(routed: Routed) -> list[Delivery]:
    """Each destination's first record: pending (a scheduled message's: scheduled, due at its
    deliverAt; an ordered destination's: waiting for its key's turn), no attempt yet, as of the
    publishing."""
    message, at = routed.message, routed.message.published_at
    status = DeliveryStatus.SCHEDULED if message.scheduled else DeliveryStatus.PENDING
    due = iso_from_ms(message.sent_from_ms)
    records = []
    for s in routed.subscriptions:
        ordered = s.id in message.ordered_to
        first = DeliveryStatus.WAITING if ordered else status
        slot = message.key_slot if ordered else None
        records.append(
            Delivery(message.id, message.tenant_id, s.id, s.type, first, 0, None, due, at, ordering=slot)
        )
    return records


def _still_there(stored: Message, subscriptions: Sequence[Subscription]) -> list[Subscription]:
    """The stored message's destinations that are still subscriptions of the room."""
    by_id = {s.id: s for s in subscriptions}
    return [by_id[i] for i in stored.destinations if i in by_id]

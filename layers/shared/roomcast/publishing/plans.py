"""A publish request's plan, decided before anything is written (pure): each message admitted by
its schema, routed by its room's subscriptions and their filters, scheduled when it has a
deliverAt, a key met twice in one request answered as its first; and each destination's first
record. roomcast.publishing.publisher reads what the plan needs, then carries it out."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from roomcast.catalog import Room, Subscription, expires_at
from roomcast.deliver_at import release_at_ms
from roomcast.event_types import ADMITTED, Admission
from roomcast.messages import Delivery, DeliveryStatus, Message, Publication
from roomcast.ordering import MAX_ORDERED_SUBSCRIPTIONS_PER_ROOM
from roomcast.platform import RoomcastError, iso_from_ms
from roomcast.publishing.first_sends import Routed
from roomcast.publishing.routing import Route, route_message


@dataclass(frozen=True)
class Planned:
    """A message of the request on its way: where it is in the request, and where it goes."""

    index: int
    routed: Routed
    keyed: bool


@dataclass
class BatchPlan:
    """What a request comes to before anything is written: the messages to store (``planned``),
    each refused one's answer at its place (``results``), and each repeat of a key the request
    already named (its index, its first's)."""

    planned: list[Planned]
    results: list[Message | RoomcastError | None]
    repeats: list[tuple[int, int]] = field(default_factory=list)

    @property
    def messages(self) -> list[Message]:
        return [p.routed.message for p in self.planned]

    def with_messages(self, messages: Sequence[Message]) -> BatchPlan:
        """The same plan with its messages as given (numbered in their keys' lines)."""
        planned = [
            replace(p, routed=replace(p.routed, message=m))
            for p, m in zip(self.planned, messages, strict=True)
        ]
        return BatchPlan(planned, self.results, self.repeats)


def plan_batch(
    request_id: str,
    message_ids: Sequence[str],
    room: Room,
    subscriptions: Sequence[Subscription],
    publications: Sequence[Publication],
    admissions: Sequence[Admission] | None,
    now: int,
) -> BatchPlan:
    """Each message of the request admitted, routed and scheduled, or refused, in order."""
    plan = BatchPlan([], [None] * len(publications))
    first_with_key: dict[str, int] = {}
    for index, publication in enumerate(publications):
        admission = admissions[index] if admissions is not None else ADMITTED
        if admission.refused is not None:
            plan.results[index] = admission.refused
            continue
        try:
            route = route_message(room, subscriptions, publication)
            release_at = release_at_ms(now, publication.deliver_at_ms, publication.deliver_after_ms)
        except RoomcastError as refused:
            plan.results[index] = refused
            continue
        key = publication.idempotency_key
        if key is not None and key in first_with_key:
            plan.repeats.append((index, first_with_key[key]))
            continue
        if key is not None:
            first_with_key[key] = index
        message = new_message(message_ids[index], request_id, room, publication, route, now, admission)
        if release_at is not None:
            message = scheduled(message, release_at, room)
        plan.planned.append(Planned(index, Routed(message, route.destinations), key is not None))
    return plan


def new_message(
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
        traceparent=publication.traceparent,
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


def first_records(routed: Routed) -> list[Delivery]:
    """Each destination's first record: pending (a scheduled message's: scheduled, due at its
    deliverAt; an ordered destination's: waiting for its key's turn), no attempt yet, as of the
    publishing."""
    message, at = routed.message, routed.message.published_at
    status = DeliveryStatus.SCHEDULED if message.scheduled else DeliveryStatus.PENDING
    due = iso_from_ms(message.sent_from_ms)
    records = []
    for s in routed.destinations:
        ordered = s.id in message.ordered_to
        first = DeliveryStatus.WAITING if ordered else status
        slot = message.key_slot if ordered else None
        record = Delivery(message.id, message.tenant_id, s.id, s.type, first, 0, None, due, at, ordering=slot)
        records.append(replace(record, room_id=message.room_id, sent_from_ms=message.sent_from_ms))
    return records


def still_there(stored: Message, subscriptions: Sequence[Subscription]) -> list[Subscription]:
    """The stored message's destinations that are still subscriptions of the room."""
    by_id = {s.id: s for s in subscriptions}
    return [by_id[i] for i in stored.destinations if i in by_id]

"""Routing: which subscriptions of a room receive a message. Pure; raises InvalidRequest on bad input."""

from __future__ import annotations

from collections.abc import Sequence

from roomcast.domain.models import Room, Subscription, accepts_event
from roomcast.errors import InvalidRequest


def _refuse(field: str, problem: str) -> InvalidRequest:
    return InvalidRequest(
        problem,
        code="unroutable",
        details=[{"field": f"body.{field}", "problem": problem, "type": "unroutable"}],
    )


def check_room_accepts(room: Room, event_type: str, event_version: str) -> None:
    """A room that declares its event types refuses any other type or version."""
    if room.event_types and not accepts_event(room.event_types, event_type, event_version):
        known = next((f for f in room.event_types if f.name == event_type), None)
        if known is None:
            names = ", ".join(sorted(f.name for f in room.event_types))
            raise _refuse(
                "eventType", f"room {room.id} does not accept event type {event_type!r} (it accepts {names})"
            )
        versions = ", ".join(known.versions)
        raise _refuse(
            "eventVersion",
            f"room {room.id} accepts {event_type!r} only in versions {versions}, not {event_version!r}",
        )


def resolve_destinations(
    room: Room,
    subscriptions: Sequence[Subscription],
    event_type: str,
    event_version: str,
    explicit: Sequence[str] | None = None,
) -> list[Subscription]:
    """The destinations of a message, in subscription id order.

    Without ``explicit``: every active or paused subscription whose filter accepts the type and
    version (a paused one keeps its messages until it resumes). With ``explicit``: exactly those
    subscriptions, each of which must belong to the room, receive (not be disabled) and accept the
    type and version (anything else is refused, nothing is sent).
    """
    check_room_accepts(room, event_type, event_version)
    if explicit is None:
        matching = [
            s
            for s in subscriptions
            if s.status.receives and accepts_event(s.event_types, event_type, event_version)
        ]
        return sorted(matching, key=lambda s: s.id)
    by_id = {s.id: s for s in subscriptions}
    chosen: dict[str, Subscription] = {}
    for subscription_id in explicit:
        subscription = by_id.get(subscription_id)
        if subscription is None:
            raise _refuse("destinations", f"{subscription_id} is not a subscription of room {room.id}")
        if not subscription.status.receives:
            raise _refuse("destinations", f"subscription {subscription_id} is {subscription.status.value}")
        if not accepts_event(subscription.event_types, event_type, event_version):
            raise _refuse(
                "destinations",
                f"subscription {subscription_id} does not accept {event_type!r} version {event_version!r}",
            )
        chosen[subscription_id] = subscription
    return [chosen[key] for key in sorted(chosen)]

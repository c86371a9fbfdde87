"""Routing: which subscriptions of a room receive a message. Pure; raises InvalidRequest on bad input."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from roomcast.catalog import Room, Subscription, accepts_event
from roomcast.filters import PayloadIndex
from roomcast.messages import FilteredOut, Publication
from roomcast.platform import InvalidRequest


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
    destinations: Sequence[str] | None = None,
) -> list[Subscription]:
    """The destinations of a message, in subscription id order.

    Without ``destinations``: every active or paused subscription whose filter accepts the type and
    version (a paused one keeps its messages until it resumes). With ``destinations``: exactly those
    subscriptions, each of which must belong to the room, receive (not be disabled) and accept the
    type and version (anything else is refused, nothing is sent).
    """
    check_room_accepts(room, event_type, event_version)
    if destinations is None:
        matching = [
            s
            for s in subscriptions
            if s.status.receives and accepts_event(s.event_types, event_type, event_version)
        ]
        return sorted(matching, key=lambda s: s.id)
    by_id = {s.id: s for s in subscriptions}
    chosen: dict[str, Subscription] = {}
    for subscription_id in destinations:
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


@dataclass(frozen=True)
class Route:
    """Where a message goes, and the subscriptions its payload's filters kept it from."""

    destinations: list[Subscription]
    filtered_out: tuple[FilteredOut, ...] = ()


def route_message(room: Room, subscriptions: Sequence[Subscription], publication: Publication) -> Route:
    """``resolve_destinations``, then each destination's filter policy on the payload: one that does
    not match gets no delivery and is named, with the condition that failed. Named destinations
    (``destinations``) are filtered too: a subscriber's filter is its own choice, not the publisher's.
    A test event goes to its named destinations that receive, with no check of its type or payload."""
    if publication.test_event:
        named = set(publication.destinations or ())
        tested = [s for s in subscriptions if s.id in named and s.status.receives]
        if len(tested) != len(named):
            raise _refuse(
                "destinations", "a test event's subscription must exist and receive (not be disabled)"
            )
        return Route(sorted(tested, key=lambda s: s.id))
    chosen = resolve_destinations(
        room, subscriptions, publication.event_type, publication.event_version, publication.destinations
    )
    destinations: list[Subscription] = []
    filtered_out: list[FilteredOut] = []
    index = PayloadIndex()  # the payload's long arrays, indexed once for every policy (ADR 0043)
    for subscription in chosen:
        policy = subscription.filter_policy
        verdict = policy.evaluate(publication.payload, index) if policy is not None else None
        if verdict is None or verdict.matched:
            destinations.append(subscription)
        else:
            filtered_out.append(FilteredOut(subscription.id, verdict.reason or "did not match"))
    return Route(destinations, tuple(filtered_out))


@dataclass(frozen=True)
class Explained:
    """A dry run's answer for one subscription: would it get the message, and if not, why."""

    subscription: Subscription
    matched: bool
    reason: str | None = None


def explain_routing(
    room: Room, subscriptions: Sequence[Subscription], publication: Publication
) -> tuple[str | None, list[Explained]]:
    """What publishing would do, subscription by subscription, with nothing published: why the room
    would refuse the message (or None), and for each subscription (in id order) matched or the
    first reason it would not get it — its status, its event types, or its filter's first failed
    condition. Routes exactly as ``route_message`` does without named destinations."""
    event_type, event_version = publication.event_type, publication.event_version
    try:
        check_room_accepts(room, event_type, event_version)
        refused = None
    except InvalidRequest as error:
        refused = error.message
    answers: list[Explained] = []
    index = PayloadIndex()
    for subscription in sorted(subscriptions, key=lambda s: s.id):
        policy = subscription.filter_policy
        if refused is not None:
            answers.append(Explained(subscription, False, refused))
        elif not subscription.status.receives:
            answers.append(Explained(subscription, False, f"subscription is {subscription.status.value}"))
        elif not accepts_event(subscription.event_types, event_type, event_version):
            problem = f"its eventTypes do not accept {event_type!r} version {event_version!r}"
            answers.append(Explained(subscription, False, problem))
        elif policy is None:
            answers.append(Explained(subscription, True))
        else:
            verdict = policy.evaluate(publication.payload, index)
            answers.append(Explained(subscription, verdict.matched, verdict.reason))
    return refused, answers

"""``client.subscriptions``: create, list, get, update, pause, resume, delete, rotate the signing
secret, preview the retry schedule, a transformation's versions, rollback and dry run."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from roomcast_client._core import Call, query, read_model, read_nothing, wire_fields
from roomcast_client._executors import E, Resource, operation, paginated
from roomcast_client.models import (
    LiveSecrets,
    Page,
    RotatedSecret,
    SchedulePreview,
    Subscription,
    SubscriptionCreated,
    TestEventSent,
    TransformationTestResult,
    TransformationView,
)
from roomcast_client.resources.common import page_call, room_path, subscription_path


def _patch_subscription(room_id: str, subscription_id: str, fields: Mapping[str, Any]) -> Call[Subscription]:
    return Call(
        "PATCH",
        subscription_path(room_id, subscription_id),
        read_model(Subscription),
        json=wire_fields(fields),
    )


class Subscriptions(Resource[E]):
    @operation
    def create(self, /, room_id: str, **fields: Any) -> Call[SubscriptionCreated]:
        """Subscribe to a room: PUSH with ``push_url`` or an AWS ``destination`` (the default when one
        is given), or ``type="PULL"``. A PUSH subscription's answer carries its signing secret, shown
        only here."""
        body = wire_fields(fields)
        body.setdefault("type", "PUSH" if "pushUrl" in body or "destination" in body else "PULL")
        return Call(
            "POST",
            f"{room_path(room_id)}/subscriptions",
            read_model(SubscriptionCreated),
            json=body,
            retry_safe=False,
        )

    @operation
    def list(
        self,
        room_id: str,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        consumer_id: str | None = None,
    ) -> Call[Page[Subscription]]:
        """One page of the room's subscriptions (``consumer_id``: only that customer's)."""
        path = f"{room_path(room_id)}/subscriptions"
        return page_call(
            path, Subscription, "subscriptions", limit=limit, cursor=cursor, consumerId=consumer_id
        )

    iter = paginated(list.build)

    @operation
    def get(self, room_id: str, subscription_id: str) -> Call[Subscription]:
        return Call("GET", subscription_path(room_id, subscription_id), read_model(Subscription))

    @operation
    def signing_secret(self, room_id: str, subscription_id: str) -> Call[LiveSecrets]:
        """A PUSH subscription's live signing secrets, newest first (``manage`` keys)."""
        path = f"{subscription_path(room_id, subscription_id)}/signing-secret"
        return Call("GET", path, read_model(LiveSecrets))

    @operation
    def send_test_event(
        self,
        room_id: str,
        subscription_id: str,
        *,
        event_type: str | None = None,
        event_version: str | None = None,
        payload: Any = None,
    ) -> Call[TestEventSent]:
        """Send this subscription alone a test event: a ``roomcast.ping``, or ``event_type`` with
        its schema's first example (or ``payload``)."""
        body = query(eventType=event_type, eventVersion=event_version, payload=payload)
        path = f"{subscription_path(room_id, subscription_id)}/test-event"
        return Call("POST", path, read_model(TestEventSent), json=body, retry_safe=False)

    @operation
    def update(self, /, room_id: str, subscription_id: str, **fields: Any) -> Call[Subscription]:
        """Change the given fields (None resets a nullable one)."""
        return _patch_subscription(room_id, subscription_id, fields)

    @operation
    def pause(self, room_id: str, subscription_id: str) -> Call[Subscription]:
        """Stop deliveries (they wait, and go on at resume)."""
        return _patch_subscription(room_id, subscription_id, {"status": "paused"})

    @operation
    def resume(self, room_id: str, subscription_id: str) -> Call[Subscription]:
        """Make a paused or disabled subscription active again."""
        return _patch_subscription(room_id, subscription_id, {"status": "active"})

    @operation
    def delete(self, room_id: str, subscription_id: str) -> Call[None]:
        return Call("DELETE", subscription_path(room_id, subscription_id), read_nothing)

    @operation
    def rotate_secret(self, room_id: str, subscription_id: str) -> Call[RotatedSecret]:
        """A new signing secret for a PUSH subscription; the previous ones keep signing a while."""
        return Call(
            "POST",
            f"{subscription_path(room_id, subscription_id)}/rotate-secret",
            read_model(RotatedSecret),
            retry_safe=False,
        )

    @operation
    def schedule(self, room_id: str, subscription_id: str) -> Call[SchedulePreview]:
        """When each delivery attempt would happen under the subscription's effective policy."""
        return Call(
            "GET", f"{subscription_path(room_id, subscription_id)}/schedule", read_model(SchedulePreview)
        )

    @operation
    def transformation(self, room_id: str, subscription_id: str) -> Call[TransformationView]:
        """A PUSH subscription's transformation: its current and previous versions."""
        path = f"{subscription_path(room_id, subscription_id)}/transformation"
        return Call("GET", path, read_model(TransformationView))

    @operation
    def roll_back_transformation(self, room_id: str, subscription_id: str) -> Call[TransformationView]:
        """Make the previous version current again (the replaced one becomes previous)."""
        path = f"{subscription_path(room_id, subscription_id)}/transformation/rollback"
        return Call("POST", path, read_model(TransformationView), retry_safe=False)

    @operation
    def test_transformation(
        self,
        room_id: str,
        subscription_id: str,
        *,
        event_type: str,
        payload: Any,
        transformation: str | None = None,
    ) -> Call[TransformationTestResult]:
        """Dry-run the transformation (or a candidate ``transformation``) on a sample: nothing is
        saved or sent."""
        body: dict[str, Any] = {"eventType": event_type, "payload": payload}
        if transformation is not None:
            body["transformation"] = transformation
        path = f"{subscription_path(room_id, subscription_id)}/transformation/test"
        return Call("POST", path, read_model(TransformationTestResult), json=body)

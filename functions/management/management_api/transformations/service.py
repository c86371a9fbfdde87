"""A subscription's transformation: read its versions, roll back to the previous one, dry-run it."""

from __future__ import annotations

from dataclasses import dataclass, replace

from management_api.common import updated_now
from management_api.transformations.models import (
    TransformationTest,
    TransformationTestResult,
    TransformationVersion,
    TransformationView,
)
from roomcast.catalog import Catalog, Subscription, SubscriptionType
from roomcast.platform import Conflict, check_payload_size
from roomcast.transformations import (
    Transformation,
    TransformationFailed,
    WebhookShape,
    check_source,
    rolled_back,
    run_transformation,
)

PUSH_ONLY = "transformations apply to PUSH subscriptions only"


@dataclass
class TransformationsService:
    catalog: Catalog

    def view(self, tenant_id: str, room_id: str, subscription_id: str) -> TransformationView:
        subscription = self._push(tenant_id, room_id, subscription_id)
        return _view(subscription)

    def roll_back(self, tenant_id: str, room_id: str, subscription_id: str) -> TransformationView:
        """The previous version is current again; 409 when none is kept."""
        current = self._push(tenant_id, room_id, subscription_id)
        if current.previous_transformation is None:
            raise Conflict(f"subscription {subscription_id} keeps no previous transformation to roll back to")
        versions = rolled_back(current.transformation, current.previous_transformation)
        updated = replace(
            current,
            transformation=versions[0],
            previous_transformation=versions[1],
            updated_at=updated_now(current.updated_at),
        )
        self.catalog.replace_subscription(updated, current.updated_at)
        return _view(updated)

    def test(
        self, tenant_id: str, room_id: str, subscription_id: str, request: TransformationTest
    ) -> TransformationTestResult:
        """What the subscription's transformation (or a candidate) makes of a sample; nothing is
        saved or sent. A run that fails is an answer (``failed``), not an error."""
        subscription = self._push(tenant_id, room_id, subscription_id)
        check_payload_size(request.payload)
        source, version = request.transformation, None
        if source is not None:
            check_source(source)
        elif subscription.transformation is not None:
            source, version = subscription.transformation.source, subscription.transformation.version
        shape = WebhookShape(request.eventType, request.payload, subscription.push_url)
        if source is None:  # nothing to run: the delivery goes as it is
            return TransformationTestResult(
                outcome="transformed", payload=request.payload, url=shape.url, method="POST", headers={}
            )
        try:
            changed = run_transformation(source, shape)
        except TransformationFailed as failed:
            return TransformationTestResult(outcome="failed", version=version, error=str(failed))
        return TransformationTestResult(
            outcome="cancelled" if changed.cancel else "transformed",
            version=version,
            payload=changed.payload,
            url=changed.url,
            method=changed.method,
            headers=changed.headers,
        )

    def _push(self, tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        self.catalog.get_room(tenant_id, room_id)
        subscription = self.catalog.get_subscription(tenant_id, room_id, subscription_id)
        if subscription.type is not SubscriptionType.PUSH:
            raise Conflict(f"subscription {subscription_id} is PULL; {PUSH_ONLY}")
        return subscription


def _view(subscription: Subscription) -> TransformationView:
    return TransformationView(
        current=_version(subscription.transformation), previous=_version(subscription.previous_transformation)
    )


def _version(transformation: Transformation | None) -> TransformationVersion | None:
    if transformation is None:
        return None
    return TransformationVersion(
        version=transformation.version, source=transformation.source, createdAt=transformation.created_at
    )

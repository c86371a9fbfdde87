"""/rooms/{roomId}/subscriptions/{subscriptionId}/transformation routes: thin — parse, call
TransformationsService, map."""

from __future__ import annotations

from management_api.common import RoomId, SubscriptionIdPath
from management_api.dependencies import Transformations
from management_api.transformations.models import (
    TransformationTest,
    TransformationTestResult,
    TransformationView,
)
from roomcast.api import Routes, Tenant

routes = Routes("transformations")

TRANSFORMATION = "/rooms/<roomId>/subscriptions/<subscriptionId>/transformation"


@routes.get(TRANSFORMATION, "getTransformation", "Its current and previous versions", 400, 404, 409)
def get_transformation(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, service: Transformations
) -> TransformationView:
    """Read a subscription's transformation

    Its current version (what runs on each delivery) and the previous one a rollback makes current
    again. Set or remove it with PATCH `transformation`. PUSH subscriptions only (409 for a PULL one).
    """
    return service.view(tenant, roomId, subscriptionId)


@routes.post(
    f"{TRANSFORMATION}/rollback", "rollBackTransformation", "Its versions after the rollback", 400, 404, 409
)
def roll_back_transformation(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, service: Transformations
) -> TransformationView:
    """Roll a transformation back

    The previous version becomes current and the replaced one is kept as previous (a second
    rollback undoes the first); applies from the push function's next batch. 409 when no previous
    version is kept.
    """
    return service.roll_back(tenant, roomId, subscriptionId)


@routes.post(
    f"{TRANSFORMATION}/test",
    "testTransformation",
    "What the transformation makes of it",
    400,
    404,
    409,
    413,
    415,
)
def test_transformation(
    roomId: RoomId,
    subscriptionId: SubscriptionIdPath,
    body: TransformationTest,
    tenant: Tenant,
    service: Transformations,
) -> TransformationTestResult:
    """Dry-run a transformation

    Runs the subscription's transformation (or a candidate `transformation`, 422
    `invalid_transformation` when it does not compile or define `handler`) on a sample message, in
    the same sandbox and limits as a delivery. A run that throws, times out or returns a bad shape
    answers `failed` with the reason an attempt would log. Nothing is saved or sent.
    """
    return service.test(tenant, roomId, subscriptionId, body)

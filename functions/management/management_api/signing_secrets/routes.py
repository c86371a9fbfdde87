"""/rooms/{roomId}/subscriptions/{subscriptionId}/rotate-secret."""

from __future__ import annotations

from management_api.common import RoomId, SubscriptionIdPath
from management_api.dependencies import SigningSecrets
from management_api.signing_secrets.models import RotatedSecret
from roomcast.api.openapi import responses
from roomcast.api.routing import new_router
from roomcast.api.tenancy import Tenant
from roomcast.domain.clock import iso_from_ms

router = new_router()


@router.post(
    "/rooms/<roomId>/subscriptions/<subscriptionId>/rotate-secret",
    operation_id="rotateSigningSecret",
    summary="Rotate a PUSH subscription's signing secret",
    description="Returns a new signing secret (shown once). The previous secrets keep signing for 24 "
    "hours: until then each webhook carries one signature per live secret, so receivers can switch "
    "without losing a message. 409 for a PULL subscription.",
    responses=responses(200, "The new secret", 400, 404, 409, 415),
    tags=["subscriptions"],
)
def rotate_secret(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, secrets: SigningSecrets
) -> RotatedSecret:
    rotation = secrets.rotate(tenant, roomId, subscriptionId)
    until = rotation.previous_valid_until_ms
    return RotatedSecret(
        signingSecret=rotation.signing_secret, previousSecretsValidUntil=iso_from_ms(until) if until else None
    )

"""/rooms/{roomId}/subscriptions/{subscriptionId}/rotate-secret."""

from __future__ import annotations

from management_api.common import RoomId, SubscriptionIdPath
from management_api.dependencies import SigningSecrets
from management_api.signing_secrets.models import RotatedSecret
from roomcast.access import PortalUse, Scope, access
from roomcast.api import Routes, Tenant
from roomcast.platform import iso_from_ms

routes = Routes("subscriptions")
ROTATE = "/rooms/<roomId>/subscriptions/<subscriptionId>/rotate-secret"


@routes.post(
    ROTATE,
    "rotateSigningSecret",
    "The new secret",
    400,
    404,
    409,
    415,
    access=access(Scope.MANAGE, portal=PortalUse.WRITE),
)
def rotate_secret(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, service: SigningSecrets
) -> RotatedSecret:
    """Rotate a PUSH subscription's signing secret

    Returns a new signing secret (shown once). The previous secrets keep signing for 24 hours:
    until then each webhook carries one signature per live secret, so receivers can switch without
    losing a message. 409 for a PULL subscription, and `too_many_secrets` (409) while it already
    has {MAX_LIVE_SIGNING_SECRETS} live secrets: the message says when the oldest stops signing.
    """
    rotation = service.rotate(tenant, roomId, subscriptionId)
    until = rotation.previous_valid_until_ms
    return RotatedSecret(
        signingSecret=rotation.signing_secret, previousSecretsValidUntil=iso_from_ms(until) if until else None
    )

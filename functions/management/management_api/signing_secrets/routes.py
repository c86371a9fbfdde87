"""/rooms/{roomId}/subscriptions/{subscriptionId}/rotate-secret."""

from __future__ import annotations

from management_api.common import RoomId, SubscriptionIdPath
from management_api.dependencies import SigningSecrets
from management_api.signing_secrets.models import LiveSecret, LiveSecrets, RotatedSecret
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

    Returns a new signing secret (read it again with `GET …/signing-secret`). The previous secrets
    keep signing for 24 hours: until then each webhook carries one signature per live secret, so
    receivers can switch without losing a message. 409 for a PULL subscription, and
    `too_many_secrets` (409) while it already has {MAX_LIVE_SIGNING_SECRETS} live secrets: the
    message says when the oldest stops signing.
    """
    rotation = service.rotate(tenant, roomId, subscriptionId)
    until = rotation.previous_valid_until_ms
    return RotatedSecret(
        signingSecret=rotation.signing_secret, previousSecretsValidUntil=iso_from_ms(until) if until else None
    )


@routes.get(
    "/rooms/<roomId>/subscriptions/<subscriptionId>/signing-secret",
    "getSigningSecret",
    "The live secrets",
    404,
    409,
    access=access(Scope.MANAGE, portal=PortalUse.WRITE),
)
def get_signing_secret(
    roomId: RoomId, subscriptionId: SubscriptionIdPath, tenant: Tenant, service: SigningSecrets
) -> LiveSecrets:
    """Reveal a PUSH subscription's signing secrets

    The secrets that sign its webhooks now, newest first (a rotated-out one until it ends). A
    secret is a credential: `manage` and `admin` keys read it, a `read` key does not, nor a
    read-only portal session. 409 for a PULL subscription.
    """
    live = service.live(tenant, roomId, subscriptionId)
    shown = [
        LiveSecret(
            signingSecret=s.secret, validUntil=iso_from_ms(s.expires_at_ms) if s.expires_at_ms else None
        )
        for s in live
    ]
    return LiveSecrets(signingSecret=shown[0].signingSecret if shown else "", secrets=shown)

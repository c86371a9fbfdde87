"""Rotating a PUSH subscription's signing secret, with a grace period for the old ones and at
most MAX_LIVE_SIGNING_SECRETS live at once (every live secret signs every webhook)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from management_api.common import updated_now
from roomcast.catalog import Catalog, SigningSecret, SubscriptionType
from roomcast.platform import MAX_LIVE_SIGNING_SECRETS, Conflict, iso_from_ms, new_signing_secret, now_ms

SECRET_ROTATION_GRACE_MS = 24 * 3600 * 1000


@dataclass(frozen=True)
class Rotation:
    signing_secret: str  # the new one, shown once
    previous_valid_until_ms: int | None  # when the old ones stop signing (None: there were none)


@dataclass
class SigningSecretsService:
    catalog: Catalog
    clock: Callable[[], int] = now_ms

    def rotate(self, tenant_id: str, room_id: str, subscription_id: str) -> Rotation:
        """A new signing secret; the current ones keep signing for the grace period. Refused (409
        ``too_many_secrets``) while MAX_LIVE_SIGNING_SECRETS are live; secrets past their end are
        dropped. Written only if the subscription is unchanged since read (409 otherwise), so two
        rotations at once cannot both pass the limit."""
        self.catalog.get_room(tenant_id, room_id)
        current = self.catalog.get_subscription(tenant_id, room_id, subscription_id)
        if current.type is not SubscriptionType.PUSH:
            raise Conflict(f"subscription {subscription_id} is PULL; only PUSH subscriptions sign webhooks")
        now = self.clock()
        live = [s for s in current.signing_secrets if s.active(now)]
        if len(live) >= MAX_LIVE_SIGNING_SECRETS:
            raise _too_many_secrets(live)
        grace_until = now + SECRET_ROTATION_GRACE_MS
        kept = tuple(
            SigningSecret(s.secret, s.expires_at_ms if s.expires_at_ms is not None else grace_until)
            for s in live
        )
        secret = new_signing_secret()
        updated = replace(
            current,
            signing_secrets=(SigningSecret(secret), *kept),
            updated_at=updated_now(current.updated_at),
        )
        self.catalog.replace_subscription(updated, expected_updated_at=current.updated_at)
        return Rotation(secret, max((s.expires_at_ms or 0 for s in kept), default=None))

    def live(self, tenant_id: str, room_id: str, subscription_id: str) -> list[SigningSecret]:
        """The secrets that sign the subscription's webhooks now, newest first (409 for PULL)."""
        self.catalog.get_room(tenant_id, room_id)
        current = self.catalog.get_subscription(tenant_id, room_id, subscription_id)
        if current.type is not SubscriptionType.PUSH:
            raise Conflict(f"subscription {subscription_id} is PULL; only PUSH subscriptions sign webhooks")
        now = self.clock()
        return [s for s in current.signing_secrets if s.active(now)]


def _too_many_secrets(live: list[SigningSecret]) -> Conflict:
    ends = [s.expires_at_ms for s in live if s.expires_at_ms is not None]
    when = (
        f"the oldest stops signing at {iso_from_ms(min(ends))}; rotate again after that"
        if ends
        else "none of them has an end"
    )
    return Conflict(
        f"a subscription has at most {MAX_LIVE_SIGNING_SECRETS} live signing secrets and this one "
        f"has {len(live)}: {when}",
        code="too_many_secrets",
    )

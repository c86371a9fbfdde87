"""SigningSecretsService with in-memory fakes: rotation keeps the old secrets for the grace period,
at most three are live, and a rotation writes only over what it read."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from management_api.signing_secrets.service import SECRET_ROTATION_GRACE_MS, SigningSecretsService
from roomcast.catalog.model import Subscription
from roomcast.platform.clock import HOUR_MS, iso_from_ms
from roomcast.platform.errors import Conflict
from roomcast.platform.limits import MAX_LIVE_SIGNING_SECRETS
from tests.unit.services.management import TENANT, Management

NOW_MS = 1_795_435_200_000


def _at(now_ms: int) -> Callable[[], int]:
    return lambda: now_ms


def test_a_rotation_adds_a_new_secret_and_keeps_the_old_one_for_the_grace_period() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room, type="PUSH", pushUrl="https://hooks.example.com/in")
    secrets = SigningSecretsService(management.catalog, clock=lambda: NOW_MS)

    # When
    rotation = secrets.rotate(TENANT, room.id, subscription.id)

    # Then
    stored = management.catalog.get_subscription(TENANT, room.id, subscription.id).signing_secrets
    assert [s.secret for s in stored] == [rotation.signing_secret, subscription.signing_secrets[0].secret]
    assert stored[0].expires_at_ms is None
    assert stored[1].expires_at_ms == NOW_MS + SECRET_ROTATION_GRACE_MS
    assert rotation.previous_valid_until_ms == NOW_MS + SECRET_ROTATION_GRACE_MS


def test_secrets_past_their_grace_period_are_dropped_at_the_next_rotation() -> None:
    # Given: rotated once, then a day and a bit later again
    management = Management()
    room = management.room()
    subscription = management.subscription(room, type="PUSH", pushUrl="https://hooks.example.com/in")
    SigningSecretsService(management.catalog, clock=lambda: NOW_MS).rotate(TENANT, room.id, subscription.id)
    later = SigningSecretsService(management.catalog, clock=lambda: NOW_MS + SECRET_ROTATION_GRACE_MS + 1)

    # When
    rotation = later.rotate(TENANT, room.id, subscription.id)

    # Then
    stored = management.catalog.get_subscription(TENANT, room.id, subscription.id).signing_secrets
    assert len(stored) == 2
    assert stored[0].secret == rotation.signing_secret


def test_a_pull_subscription_has_no_secret_to_rotate() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room)

    # Then
    with pytest.raises(Conflict):
        management.secrets.rotate(TENANT, room.id, subscription.id)


def _three_live_secrets() -> tuple[Management, Subscription]:
    """A PUSH subscription's first secret and two rotations an hour apart (the first at NOW_MS)."""
    management = Management()
    room = management.room()
    subscription = management.subscription(room, type="PUSH", pushUrl="https://hooks.example.com/in")
    for hours in range(2):
        SigningSecretsService(management.catalog, clock=_at(NOW_MS + hours * HOUR_MS)).rotate(
            TENANT, room.id, subscription.id
        )
    return management, subscription


def test_a_rotation_that_would_make_a_fourth_live_secret_is_refused_saying_when_one_ends() -> None:
    # Given
    management, subscription = _three_live_secrets()
    before = management.catalog.get_subscription(TENANT, subscription.room_id, subscription.id)
    third = SigningSecretsService(management.catalog, clock=_at(NOW_MS + 2 * HOUR_MS))

    # When
    with pytest.raises(Conflict) as refused:
        third.rotate(TENANT, subscription.room_id, subscription.id)

    # Then: 409 too_many_secrets, naming the limit and when the oldest stops signing; nothing changed
    assert (refused.value.http_status, refused.value.code) == (409, "too_many_secrets")
    assert f"at most {MAX_LIVE_SIGNING_SECRETS} live signing secrets" in refused.value.message
    assert iso_from_ms(NOW_MS + SECRET_ROTATION_GRACE_MS) in refused.value.message
    assert management.catalog.get_subscription(TENANT, subscription.room_id, subscription.id) == before


def test_once_the_oldest_secret_ended_a_rotation_goes_through_again() -> None:
    # Given: three live secrets, the oldest of which ends at NOW + grace
    management, subscription = _three_live_secrets()
    after_the_oldest = SigningSecretsService(management.catalog, clock=_at(NOW_MS + SECRET_ROTATION_GRACE_MS))

    # When
    rotation = after_the_oldest.rotate(TENANT, subscription.room_id, subscription.id)

    # Then: the ended one is dropped, three are live again
    stored = management.catalog.get_subscription(TENANT, subscription.room_id, subscription.id)
    assert len(stored.signing_secrets) == MAX_LIVE_SIGNING_SECRETS
    assert stored.signing_secrets[0].secret == rotation.signing_secret
    assert subscription.signing_secrets[0].secret not in {s.secret for s in stored.signing_secrets}


def test_a_rotation_writes_only_over_the_subscription_it_read() -> None:
    # Given: a rotation whose subscription changes between its read and its write
    management = Management()
    room = management.room()
    subscription = management.subscription(room, type="PUSH", pushUrl="https://hooks.example.com/in")
    catalog = management.catalog
    read = catalog.get_subscription

    def read_then_someone_rotates(tenant_id: str, room_id: str, subscription_id: str) -> Subscription:
        seen = read(tenant_id, room_id, subscription_id)
        catalog.get_subscription = read  # type: ignore[method-assign]
        SigningSecretsService(catalog, clock=lambda: NOW_MS).rotate(tenant_id, room_id, subscription_id)
        return seen

    catalog.get_subscription = read_then_someone_rotates  # type: ignore[method-assign]

    # When
    with pytest.raises(Conflict) as refused:
        SigningSecretsService(catalog, clock=lambda: NOW_MS).rotate(TENANT, room.id, subscription.id)

    # Then: the later one answers 409 conflict; the other's rotation stands alone
    assert refused.value.code == "conflict"
    assert len(catalog.get_subscription(TENANT, room.id, subscription.id).signing_secrets) == 2

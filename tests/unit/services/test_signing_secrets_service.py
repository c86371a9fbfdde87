"""SigningSecretsService with in-memory fakes: rotation keeps the old secrets for the grace period."""

from __future__ import annotations

import pytest

from management_api.signing_secrets.service import SECRET_ROTATION_GRACE_MS, SigningSecretsService
from roomcast.errors import Conflict
from tests.unit.services.management import TENANT, Management

NOW_MS = 1_795_435_200_000


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

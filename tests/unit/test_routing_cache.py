"""The publish function's subscription cache: kept per room while the room's subscriptions
version is the one it was read at, and never past its time to live."""

from __future__ import annotations

from roomcast.catalog.routing_cache import SubscriptionCache
from tests.unit.services.management import Management


def _cache(now: list[float], max_rooms: int = 4) -> SubscriptionCache:
    return SubscriptionCache(ttl_seconds=60.0, max_rooms=max_rooms, clock=lambda: now[0])


def test_subscriptions_are_served_while_the_version_is_unchanged_and_younger_than_the_ttl() -> None:
    # Given
    management = Management()
    room = management.room()
    subscription = management.subscription(room)
    now = [1000.0]
    cache = _cache(now)
    cache.put("t", room.id, 3, [subscription])

    # When / Then
    now[0] += 59.9
    assert cache.get("t", room.id, 3) == [subscription]
    assert cache.get("t", room.id, 4) is None  # another version: read again
    cache.put("t", room.id, 4, [])
    now[0] += 60.0
    assert cache.get("t", room.id, 4) is None  # too old, whatever the version


def test_a_room_without_a_version_is_cached_under_none() -> None:
    now = [0.0]
    cache = _cache(now)
    cache.put("t", "room_a", None, [])
    assert cache.get("t", "room_a", None) == []
    assert cache.get("t", "room_a", 1) is None


def test_the_least_recently_used_room_goes_first_when_full() -> None:
    # Given: a full cache whose first room was just used
    now = [0.0]
    cache = _cache(now, max_rooms=2)
    cache.put("t", "room_a", 1, [])
    cache.put("t", "room_b", 1, [])
    cache.get("t", "room_a", 1)

    # When
    cache.put("t", "room_c", 1, [])

    # Then
    assert cache.get("t", "room_b", 1) is None
    assert cache.get("t", "room_a", 1) == []
    assert cache.get("t", "room_c", 1) == []

"""FlowTable against DynamoDB (moto server): leases and rate slots stay within their limits when
many callers race, lapsed leases are taken over, and an unlimited subscription writes nothing."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import boto3

from roomcast.catalog.store import CatalogTable
from roomcast.flow.ports import FlowKey
from roomcast.flow.store import FlowTable
from roomcast_dev.template import StackModel
from tests.integration.conftest import Handler
from tests.support import FakeLambdaContext, api_event

NOW_MS = 1_795_435_200_000
FLOW = FlowKey("tenant-a", "sub_" + "c" * 32)


def _store(stack_model: StackModel, function_handler: Callable[[str], Handler]) -> FlowTable:
    function_handler("PushFunction")  # the push function's environment: table, endpoint
    table = stack_model.functions["PushFunction"].environment["TABLE_NAME"]
    return FlowTable(table, boto3.client("dynamodb"))


def test_racing_callers_never_hold_more_leases_than_the_limit(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    # Given: 12 callers, each with its own store (its own "invocation"), limit 3
    stores = [_store(stack_model, function_handler) for _ in range(12)]
    barrier = threading.Barrier(12)

    def take(index: int) -> bool:
        barrier.wait()
        return stores[index].acquire_lease(FLOW, f"lease-{index}", 3, NOW_MS + 60_000, NOW_MS)

    # When
    with ThreadPoolExecutor(12) as pool:
        taken = list(pool.map(take, range(12)))

    # Then
    assert taken.count(True) == 3
    winner = taken.index(True)
    stores[winner].release_lease(FLOW, f"lease-{winner}")
    assert stores[0].acquire_lease(FLOW, "late", 3, NOW_MS + 60_000, NOW_MS)
    assert not stores[0].acquire_lease(FLOW, "later", 3, NOW_MS + 60_000, NOW_MS)


def test_lapsed_leases_of_a_crashed_invocation_are_taken_over(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    # Given: the only lease, never released, lapsed a second ago
    store = _store(stack_model, function_handler)
    assert store.acquire_lease(FLOW, "crashed", 1, NOW_MS - 1_000, NOW_MS - 60_000)

    # When
    taken = store.acquire_lease(FLOW, "next", 1, NOW_MS + 60_000, NOW_MS)

    # Then
    assert taken
    assert not store.acquire_lease(FLOW, "third", 1, NOW_MS + 60_000, NOW_MS)


def test_racing_callers_take_distinct_rate_slots_an_interval_apart(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    # Given: 10 callers at the same moment, 2 per second (500 ms apart), willing to wait 5 s
    stores = [_store(stack_model, function_handler) for _ in range(10)]
    barrier = threading.Barrier(10)

    def reserve(index: int) -> int | None:
        barrier.wait()
        answer = stores[index].reserve_rate(FLOW, 500, NOW_MS, 5_000)
        return answer.reservation.start_at_ms if answer.reserved else None

    # When
    with ThreadPoolExecutor(10) as pool:
        starts = list(pool.map(reserve, range(10)))

    # Then: every reserved slot is distinct and 500 ms from the next; none past the 5 s wait
    reserved = sorted(s for s in starts if s is not None)
    assert len(reserved) >= 8
    assert all(later - earlier >= 500 for earlier, later in itertools.pairwise(reserved))
    assert reserved[0] == NOW_MS
    assert reserved[-1] <= NOW_MS + 5_000


def test_a_slot_too_far_ahead_is_not_taken(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    # Given: the next slot is 2 s away
    store = _store(stack_model, function_handler)
    assert store.reserve_rate(FLOW, 2_000, NOW_MS, 0).reserved

    # When: a caller that would wait at most 1 s
    answer = _store(stack_model, function_handler).reserve_rate(FLOW, 2_000, NOW_MS, 1_000)

    # Then
    assert not answer.reserved
    assert answer.reservation.start_at_ms == NOW_MS + 2_000
    assert store.reserve_rate(FLOW, 2_000, NOW_MS, 2_000).reservation.start_at_ms == NOW_MS + 2_000


def test_a_failing_streak_starts_once_and_keeps_its_start_until_cleared(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    # Given: a stored subscription
    manage = function_handler("ManagementFunction")
    room = json.loads(
        manage(api_event("POST", "/rooms", {"name": "r"}, tenant="acme"), FakeLambdaContext())["body"]
    )
    created = manage(
        api_event(
            "POST",
            f"/rooms/{room['id']}/subscriptions",
            {"type": "PUSH", "pushUrl": "http://127.0.0.1:9/x"},
            tenant="acme",
        ),
        FakeLambdaContext(),
    )
    table = stack_model.functions["PushFunction"].environment["TABLE_NAME"]
    repository = CatalogTable(table, boto3.client("dynamodb"))
    subscription = repository.get_subscription("acme", room["id"], json.loads(created["body"])["id"])

    # When: two failures, then a success, then a failure
    first = repository.mark_failing(subscription, NOW_MS)
    second = repository.mark_failing(subscription, NOW_MS + 5_000)
    repository.clear_failing(subscription)
    third = repository.mark_failing(subscription, NOW_MS + 9_000)

    # Then
    assert (first, second, third) == (NOW_MS, NOW_MS, NOW_MS + 9_000)
    assert repository.get_subscription("acme", room["id"], subscription.id).failing_since_ms == NOW_MS + 9_000


def test_a_lease_looks_free_only_while_fewer_than_the_limit_are_live(
    stack_model: StackModel, function_handler: Callable[[str], Handler]
) -> None:
    # Given: limit 2, one live lease and one that lapsed
    store = _store(stack_model, function_handler)
    assert store.lease_free(FLOW, 2, NOW_MS)  # no item yet
    assert store.acquire_lease(FLOW, "live", 2, NOW_MS + 60_000, NOW_MS)
    assert store.acquire_lease(FLOW, "lapsed", 2, NOW_MS - 1, NOW_MS - 60_000)

    # Then: the lapsed one does not count; two live ones fill the limit
    assert store.lease_free(FLOW, 2, NOW_MS)
    assert store.acquire_lease(FLOW, "second", 2, NOW_MS + 60_000, NOW_MS)
    assert not store.lease_free(FLOW, 2, NOW_MS)

"""The capacity model's arithmetic (bench/capacity_model.py): which limit binds, which bounds are a
single key, and when a scenario is sustained."""

from __future__ import annotations

from dataclasses import replace

from bench.capacity_model import (
    PARTITION_WRU_PER_S,
    MessageCost,
    Settings,
    busy_room,
    pull_consumers,
    slow_endpoint,
)

SETTINGS = Settings(
    push_concurrency=50, slow_push_concurrency=10, pull_concurrency=100, api_rate=1000, tenant_rate=100
)


def _cost(index_wru: float, log_bytes: float = 10.0) -> MessageCost:
    return MessageCost(
        subscriptions=200,
        partition_wru={
            "ByRoom:TENANT#{tenant}#ROOM#{room}#MSGS": index_wru,
            "TENANT#{tenant}#MSG#{message}": 20.0,  # every message its own key: never one hot key
            "TENANT#{tenant}#REQUESTS": 0.01,
        },
        table_wru=30.0,
        log_bytes=log_bytes,
    )


def test_a_busy_room_is_bound_by_its_index_partition_when_that_is_the_lowest() -> None:
    # Given: webhooks and the log out of the way
    settings = replace(SETTINGS, push_concurrency=1_000_000)

    # When
    verdict = busy_room(settings, _cost(index_wru=8.0), 5_000)

    # Then

    assert verdict.binding.limit.startswith("DynamoDB partition")
    assert verdict.binding.allows == PARTITION_WRU_PER_S / 8.0
    assert verdict.binding.single_key
    assert not verdict.sustained
    assert all("{message}" not in bound.limit for bound in verdict.bounds)


def test_a_sharded_index_key_takes_one_shards_share_of_a_message() -> None:
    # Given: the room's index rows spread over its shards, one write unit a message in all
    settings = replace(SETTINGS, push_concurrency=1_000_000)
    cost = replace(
        _cost(index_wru=0.0), partition_wru={"ByRoom:TENANT#{tenant}#ROOM#{room}#MSGS#{shard}": 1.0}
    )

    # When
    verdict = busy_room(settings, cost, 5_000)

    # Then: each shard key takes an eighth of the room's messages
    [index] = [bound for bound in verdict.bounds if bound.single_key]
    assert index.allows == PARTITION_WRU_PER_S * 8


def test_the_push_fleet_or_the_log_binds_when_they_are_lower() -> None:
    assert busy_room(SETTINGS, _cost(index_wru=0.5), 5_000).binding.limit.startswith("fast lane")
    assert "Firehose" in busy_room(SETTINGS, _cost(index_wru=0.5, log_bytes=1e6), 5_000).binding.limit


def test_a_message_s_own_partition_is_never_a_bound_of_a_busy_room() -> None:
    verdict = busy_room(SETTINGS, _cost(index_wru=0.5), 5_000)

    names = [bound.limit for bound in verdict.bounds]
    assert not any("MSG#{message}" in name for name in names)


def test_a_slow_endpoint_is_bound_by_the_slow_lane_and_never_the_fast_one() -> None:
    verdict = slow_endpoint(SETTINGS, 500, latency_s=10)

    assert verdict.binding.limit.startswith("slow lane")
    assert verdict.binding.allows == 10 * 10 / 10  # 100 requests in flight, 10 s each
    assert not verdict.binding.single_key


def test_pull_consumers_are_bound_by_the_pull_function_s_concurrency() -> None:
    verdict = pull_consumers(SETTINGS, 1_000)

    assert verdict.binding.limit == "pull function concurrency"
    assert verdict.binding.allows == 100
    assert not verdict.sustained


def test_a_tenants_held_executions_are_its_rate_times_how_long_a_request_lasts_on_lambda() -> None:
    from bench.capacity_model import LAMBDA_FULL_CORE_MB, tenant_hold

    # Given: 100 ms of rules on a full core, 0.1 s of AWS calls; a 512 MB function has 512/1769 of a core
    hold = tenant_hold(SETTINGS, "publish", rule_cpu_ms=100, io_seconds=0.1)
    weighted = tenant_hold(SETTINGS, "save", rule_cpu_ms=100, io_seconds=0.1, weight=20)

    # Then
    assert round(hold.seconds, 3) == round(0.1 * LAMBDA_FULL_CORE_MB / 512 + 0.1, 3)
    assert round(hold.sustained, 1) == round(100 * hold.seconds, 1)
    assert hold.peak == hold.sustained + SETTINGS.tenant_burst
    assert round(weighted.sustained, 1) == round(5 * hold.seconds, 1)

"""The capacity model's arithmetic (``make capacity``; docs/scaling.md): AWS's default quotas
(dated), the template's settings, what one published message costs on each DynamoDB partition
(measured on the local stack by bench/capacity.py) and, for each scenario of issue 24, the rate
every limit allows and which one binds first. No I/O (tests/unit/test_capacity_model.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from roomcast.messages.items import ROOM_INDEX_SHARDS

QUOTAS_AS_OF = "2026-11, AWS service-quotas documentation, default values"
PARTITION_WRU_PER_S = 1_000  # DynamoDB: writes to one partition-key value (table or index), hard
TABLE_WRU_PER_S = 40_000  # DynamoDB on-demand: a table's default maximum (raisable)
API_GATEWAY_RPS = 10_000  # API Gateway: requests per second per account and region (raisable)
LAMBDA_CONCURRENCY = 1_000  # Lambda: concurrent executions per account and region (raisable)
SQS_IN_FLIGHT = 120_000  # SQS standard queue: messages received and not deleted, hard
FIREHOSE_BYTES_PER_S = 1024 * 1024  # Firehose Direct PUT: 1 MiB/s per stream (5 MiB/s in 3 regions)
WEBHOOKS_PER_INVOCATION = 10  # the push function's batch size: requests in flight per invocation
PULL_LONG_POLL_S = 20
PUBLISH_BATCH = 100  # messages per batch publish request


@dataclass(frozen=True)
class Settings:
    """What the template sets (its parameters' defaults)."""

    push_concurrency: int
    slow_push_concurrency: int
    pull_concurrency: int
    api_rate: float
    tenant_rate: float
    tenant_burst: int = 200


@dataclass(frozen=True)
class MessageCost:
    """What one message published to a room of ``subscriptions`` PUSH subscriptions costs until
    every delivery is made, measured: write units by partition class (ids replaced by their kind),
    in all, and the bytes of its delivery-log records."""

    subscriptions: int
    partition_wru: dict[str, float]
    table_wru: float
    log_bytes: float


@dataclass(frozen=True)
class Bound:
    """One limit in one scenario: the scenario's rate it allows, and whether it is one key or one
    fixed slot that every request of the scenario shares."""

    limit: str
    quota: str
    raised_by: str
    allows: float
    single_key: bool = False


@dataclass(frozen=True)
class Verdict:
    scenario: str
    unit: str  # what the rates count
    demand: float
    bounds: tuple[Bound, ...]

    @property
    def binding(self) -> Bound:
        return min(self.bounds, key=lambda bound: bound.allows)

    @property
    def sustained(self) -> bool:
        return self.binding.allows >= self.demand


def _shared_by_one_room(partition: str) -> bool:
    """A partition every message of one room lands on (its id is the room's or tenant's, not the
    message's): one key for a busy room."""
    return "{message}" not in partition and "{request}" not in partition


def _partition_bounds(cost: MessageCost, one_room: bool) -> list[Bound]:
    bounds = []
    for partition, measured_wru in sorted(cost.partition_wru.items()):
        if measured_wru <= 0 or not (one_room and _shared_by_one_room(partition)):
            continue
        # A sharded key's writes spread evenly over its shards (the shard is a hash of the id).
        wru = measured_wru / ROOM_INDEX_SHARDS if "{shard}" in partition else measured_wru
        bounds.append(
            Bound(
                f"DynamoDB partition {partition}",
                f"{PARTITION_WRU_PER_S} WRU/s per key",
                "the key's design (a shard per key)",
                PARTITION_WRU_PER_S / wru,
                single_key=True,
            )
        )
    return bounds


def _push_bound(webhooks_per_message: float, latency_s: float, concurrency: int, lane: str) -> Bound:
    in_flight = concurrency * WEBHOOKS_PER_INVOCATION
    return Bound(
        f"{lane} webhooks in flight ({concurrency} invocations x {WEBHOOKS_PER_INVOCATION})",
        f"Lambda concurrency {LAMBDA_CONCURRENCY} per account",
        ("SlowPushConcurrency" if lane == "slow lane" else "PushConcurrency") + " (account concurrency)",
        in_flight / latency_s / webhooks_per_message,
    )


def _table_bound(cost: MessageCost) -> Bound:
    return Bound(
        "DynamoDB table", f"{TABLE_WRU_PER_S} WRU/s", "a quota increase", TABLE_WRU_PER_S / cost.table_wru
    )


def _log_bound(cost: MessageCost) -> Bound:
    return Bound(
        "the delivery log (Firehose)",
        f"{FIREHOSE_BYTES_PER_S // 1024} KiB/s per stream",
        "a quota increase, or more streams",
        FIREHOSE_BYTES_PER_S / max(cost.log_bytes, 1.0),
    )


def busy_room(settings: Settings, cost: MessageCost, rate: float, latency_s: float = 0.1) -> Verdict:
    """One room (one tenant) publishing ``rate`` messages/s, batch publishes of 100."""
    per_request = PUBLISH_BATCH
    bounds = [
        *_partition_bounds(cost, one_room=True),
        _table_bound(cost),
        Bound(
            "the tenant's request rate",
            "TenantRequestsPerSecond",
            "TenantRequestsPerSecond",
            settings.tenant_rate * per_request,
            single_key=False,
        ),
        Bound("the API's stage throttle", "ApiRateLimit", "ApiRateLimit", settings.api_rate * per_request),
        _push_bound(cost.subscriptions, latency_s, settings.push_concurrency, "fast lane"),
        _log_bound(cost),
    ]
    name = f"one room, {cost.subscriptions} subscriptions"
    return Verdict(name, "messages/s", rate, tuple(bounds))


def many_tenants(
    settings: Settings, cost: MessageCost, rate: float, tenants: int, latency_s: float = 0.1
) -> Verdict:
    """``tenants`` tenants publishing ``rate`` messages/s together, one message per request."""
    bounds = [
        _table_bound(cost),
        Bound(
            "API Gateway", f"{API_GATEWAY_RPS} requests/s per account", "a quota increase", API_GATEWAY_RPS
        ),
        Bound("the API's stage throttle", "ApiRateLimit", "ApiRateLimit", settings.api_rate),
        Bound(
            "each tenant's request rate",
            "TenantRequestsPerSecond",
            "TenantRequestsPerSecond",
            settings.tenant_rate * tenants,
        ),
        _push_bound(cost.subscriptions, latency_s, settings.push_concurrency, "fast lane"),
        _log_bound(cost),
    ]
    return Verdict(
        f"{tenants} tenants, {cost.subscriptions} subscriptions a room", "messages/s", rate, tuple(bounds)
    )


def slow_endpoint(settings: Settings, rate: float, latency_s: float) -> Verdict:
    """One endpoint answering in ``latency_s`` (slow lane) at ``rate`` messages/s."""
    bounds = [
        _push_bound(1, latency_s, settings.slow_push_concurrency, "slow lane"),
        Bound(
            "the fast lane (other endpoints)",
            "unaffected: the endpoint is in the slow lane",
            "-",
            float("inf"),
        ),
    ]
    return Verdict(f"one {latency_s:g}-s endpoint", "messages/s", rate, tuple(bounds))


def waiting_retries(settings: Settings, waiting: int, hop_s: int = 900) -> Verdict:
    """``waiting`` envelopes on long retries: each re-sent every 15 minutes (SQS's longest delay)."""
    hops_per_s = waiting / hop_s
    # A batch of hops re-sends and deletes 10 envelopes: about 50 ms (assumed, not measured).
    hop_capacity_per_s = settings.push_concurrency * WEBHOOKS_PER_INVOCATION / 0.05
    bounds = [
        Bound("push invocations for hops", "PushConcurrency", "PushConcurrency", hop_capacity_per_s * hop_s),
        Bound("SQS delayed messages", "no limit on a standard queue", "-", float("inf")),
    ]
    return Verdict(
        f"{waiting:,} messages on 6-hour retries ({hops_per_s:.0f} hops/s)",
        "waiting messages",
        waiting,
        tuple(bounds),
    )


def pull_consumers(settings: Settings, consumers: int) -> Verdict:
    """``consumers`` consumers long-polling one PULL subscription."""
    bounds = [
        Bound(
            "pull function concurrency",
            f"PullConcurrencyLimit if reserved, else Lambda's {LAMBDA_CONCURRENCY} per account",
            "PullConcurrencyLimit with ReserveConcurrency; else a quota increase",
            settings.pull_concurrency,
        ),
        Bound(
            "the tenant's request rate (a poll each 20 s)",
            "TenantRequestsPerSecond",
            "TenantRequestsPerSecond",
            settings.tenant_rate * PULL_LONG_POLL_S,
        ),
        Bound(
            "SQS in flight on the queue",
            f"{SQS_IN_FLIGHT} messages",
            "ack faster (hard quota)",
            SQS_IN_FLIGHT / 10,
        ),
    ]
    return Verdict(f"{consumers} consumers of one PULL subscription", "consumers", consumers, tuple(bounds))


# -- what one tenant can hold of the account's concurrency (docs/decisions/0043-bounded-rule-work.md)

LAMBDA_FULL_CORE_MB = 1_769  # Lambda: the memory at which a function gets one whole vCPU
API_FUNCTION_MB = 512  # the publish and management functions (template Globals)


@dataclass(frozen=True)
class TenantHold:
    """A kind of request sent at a tenant's whole rate (``weight`` requests' worth each): how long
    one lasts on Lambda, and the executions the tenant then holds: ``sustained`` (rate x duration,
    Little's law) and ``peak`` (its burst at once, each for that long, on top)."""

    request: str
    weight: int
    seconds: float
    sustained: float
    peak: float


def tenant_hold(
    settings: Settings, request: str, rule_cpu_ms: float, io_seconds: float, weight: int = 1
) -> TenantHold:
    """``rule_cpu_ms``: the request's rule work measured on one full core; on a 512 MB function it
    takes LAMBDA_FULL_CORE_MB / 512 times longer. ``io_seconds``: its AWS calls' time."""
    seconds = rule_cpu_ms / 1000 * (LAMBDA_FULL_CORE_MB / API_FUNCTION_MB) + io_seconds
    sustained = settings.tenant_rate / weight * seconds
    return TenantHold(request, weight, seconds, sustained, sustained + settings.tenant_burst / weight)

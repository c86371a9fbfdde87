"""Each tenant's request rate (roomcast.api.throttle, roomcast.flow.request_limits) over the
flow store's rules in memory: a burst, then 429 with Retry-After; other tenants untouched; one
write per chunk of requests, not per request."""

from __future__ import annotations

import json
from typing import Any

import pytest

from roomcast.api.throttle import TenantThrottle
from roomcast.flow.request_limits import TOKEN_LIFE_MS, RequestLimit
from roomcast.platform.config import SettingsError, settings_from
from tests.fakes import FakeFlowGate

NOW_MS = 1_795_435_200_000


def _event(tenant: str | None) -> dict[str, Any]:
    authorizer = {"lambda": {"tenantId": tenant}} if tenant else {}
    return {"requestContext": {"authorizer": authorizer}}


class Clock:
    def __init__(self) -> None:
        self.now_ms = NOW_MS

    def __call__(self) -> int:
        return self.now_ms


def _throttle(per_second: float, burst: int) -> tuple[TenantThrottle, FakeFlowGate, Clock]:
    gate, clock = FakeFlowGate(), Clock()
    return TenantThrottle(gate, RequestLimit(per_second, burst), clock), gate, clock


def test_a_tenant_gets_its_burst_then_429_with_retry_after_and_another_tenant_passes() -> None:
    # Given: 10 per second, a burst of 20
    throttle, _, _ = _throttle(10, 20)

    # When: tenant-a sends 40 requests at once
    answers = [throttle.check(_event("tenant-a")) for _ in range(40)]

    # Then: the burst passed, the rest are 429 naming the limit, with Retry-After
    passed = [a for a in answers if a is None]
    refused = [a for a in answers if a is not None]
    assert 19 <= len(passed) <= 21
    first = refused[0]
    assert first["statusCode"] == 429
    assert int(first["headers"]["Retry-After"]) >= 1
    error = json.loads(first["body"])["error"]
    assert error["code"] == "rate_limited"
    assert "10 per second" in error["message"]
    assert throttle.check(_event("tenant-b")) is None


def test_the_allowance_comes_back_with_time() -> None:
    # Given: a tenant that used its burst
    throttle, _, clock = _throttle(10, 20)
    while throttle.check(_event("tenant-a")) is None:
        pass

    # When: a second passes
    clock.now_ms += 1_000

    # Then: about ten more pass
    passed = 0
    while throttle.check(_event("tenant-a")) is None:
        passed += 1
    assert 9 <= passed <= 11


def test_requests_are_taken_from_the_allowance_in_chunks_one_write_each() -> None:
    # Given: 100 per second: chunks of 10
    throttle, gate, clock = _throttle(100, 200)

    # When: 50 requests spread over half a second
    for n in range(50):
        clock.now_ms = NOW_MS + n * 10
        assert throttle.check(_event("tenant-a")) is None

    # Then
    assert gate.writes == 5


def test_requests_taken_but_not_spent_within_their_life_are_not_kept() -> None:
    # Given: a container that took a chunk and spent one request of it
    throttle, gate, clock = _throttle(100, 200)
    throttle.check(_event("tenant-a"))

    # When: its requests' life passes
    clock.now_ms += TOKEN_LIFE_MS
    throttle.check(_event("tenant-a"))

    # Then: a new chunk was taken
    assert gate.writes == 2


def test_a_request_without_a_tenant_is_not_counted() -> None:
    throttle, gate, _ = _throttle(1, 1)

    assert [throttle.check(_event(None)) for _ in range(5)] == [None] * 5
    assert gate.writes == 0


@pytest.mark.parametrize(
    ("rate", "burst"), [("10", "0"), ("0", "5"), ("-1", "5"), ("ten", "5"), ("10", "1.5")]
)
def test_a_limit_needs_both_a_rate_and_a_burst(rate: str, burst: str) -> None:
    environ = {
        "TABLE_NAME": "roomcast-table",
        "TENANT_REQUESTS_PER_SECOND": rate,
        "TENANT_REQUEST_BURST": burst,
    }

    with pytest.raises(SettingsError, match="TENANT_REQUESTS_PER_SECOND"):
        settings_from(environ)


def test_no_limit_is_the_default_and_a_limit_is_read() -> None:
    assert settings_from({"TABLE_NAME": "roomcast-table"}).tenant_requests_per_second == 0
    limited = settings_from(
        {"TABLE_NAME": "roomcast-table", "TENANT_REQUESTS_PER_SECOND": "2.5", "TENANT_REQUEST_BURST": "5"}
    )
    assert (limited.tenant_requests_per_second, limited.tenant_request_burst) == (2.5, 5)


def test_a_weighted_request_counts_as_that_many_of_the_tenants_rate() -> None:
    # Given: 100 per second, a burst of 200
    throttle, _, _ = _throttle(100, 200)

    # When: requests that count as 20 each are sent at once
    answers = [throttle.check(_event("tenant-a"), weight=20) for _ in range(20)]

    # Then: about a tenth of them pass (the burst's 200, with the second's allowance)
    passed = sum(a is None for a in answers)
    assert 9 <= passed <= 11, passed


def test_catalog_writes_count_as_many_requests_and_everything_else_as_one() -> None:
    from management_api.handler import request_weight
    from roomcast.platform import limits

    def weight(method: str, path: str) -> int:
        return request_weight({"rawPath": path, "requestContext": {"http": {"method": method}}})

    assert weight("POST", "/event-types") == limits.CATALOG_WRITE_WEIGHT
    assert weight("PATCH", "/event-types/order.created") == limits.CATALOG_WRITE_WEIGHT
    assert weight("POST", "/event-types/order.created/validate") == 1
    assert weight("GET", "/event-types") == 1
    assert weight("POST", "/rooms") == 1

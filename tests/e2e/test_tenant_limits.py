"""Each tenant's request rate on a local stack of its own whose template sets a low limit
(TenantRequestsPerSecond 2, TenantRequestBurst 4): a tenant over it gets 429 with Retry-After
while another tenant's requests pass (docs/decisions/0032-tenant-request-limits.md)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from roomcast_dev.stack import LOCAL_PARAMETERS, LocalStack
from tests.e2e.conftest import assert_error, tenant_client

REQUESTS = 12


@pytest.fixture(scope="module")
def limited_stack() -> Iterator[LocalStack]:
    limits = {"TenantRequestsPerSecond": "2", "TenantRequestBurst": "4"}
    stack = LocalStack(
        function_concurrency=2, parameters={**LOCAL_PARAMETERS, **limits}, stack_name="roomcast-limits"
    )
    stack.start()
    yield stack
    stack.stop()


@pytest.fixture
def empty_stack(limited_stack: LocalStack) -> LocalStack:
    """This module's tests run on the limited stack: it is the one emptied before each."""
    limited_stack.reset()
    return limited_stack


def test_a_tenant_over_its_rate_gets_429_while_another_tenants_requests_pass(
    empty_stack: LocalStack, http: requests.Session
) -> None:
    # Given
    busy, other = (
        tenant_client(empty_stack, http, "tenant-busy"),
        tenant_client(empty_stack, http, "tenant-other"),
    )

    # When: the busy tenant sends 12 requests at once (its burst is 4, its rate 2 per second)
    answers = [busy.get("/rooms") for _ in range(REQUESTS)]

    # Then
    refused = [a for a in answers if a.status_code == 429]
    assert refused, [a.status_code for a in answers]
    assert all(a.status_code in (200, 429) for a in answers)
    assert_error(refused[0], 429, "request rate", "2 per second")
    assert int(refused[0].headers["Retry-After"]) >= 1
    assert other.get("/rooms").status_code == 200
    created = other.post("/rooms", {"name": "unaffected"})
    assert created.status_code == 201, created.text

"""End-to-end fixtures: one local stack (moto server, gateway, function workers) for the session,
emptied before every test through moto's reset endpoint."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import requests

from roomcast.catalog.store import CatalogTable
from roomcast_dev.keys import create_api_key
from roomcast_dev.stack import LocalStack
from tests.e2e.partition_keys import PartitionRecorder, shared


@dataclass
class ApiClient:
    """A tenant's view of the API: every request carries its key."""

    base_url: str
    api_key: str | None
    session: requests.Session

    def request(
        self,
        method: str,
        path: str,
        json: Any = None,
        data: str | bytes | None = None,
        headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None,
    ) -> requests.Response:
        all_headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        all_headers.update(headers or {})
        return self.session.request(
            method,
            f"{self.base_url}{path}",
            json=json,
            data=data,
            headers=all_headers,
            params=params,
            timeout=60,
        )

    def get(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, json: Any = None, **kwargs: Any) -> requests.Response:
        return self.request("POST", path, json=json, **kwargs)

    def patch(self, path: str, json: Any = None, **kwargs: Any) -> requests.Response:
        return self.request("PATCH", path, json=json, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> requests.Response:
        return self.request("DELETE", path, **kwargs)

    def create_room(self, **fields: Any) -> dict[str, Any]:
        response = self.post("/rooms", {"name": "orders", **fields})
        assert response.status_code == 201, response.text
        room: dict[str, Any] = response.json()
        return room

    def finished_job(self, started: requests.Response, timeout_seconds: float = 60.0) -> dict[str, Any]:
        """The job a request started (202, with its ``Location``), read until it has finished."""
        assert started.status_code == 202, started.text
        job: dict[str, Any] = started.json()
        assert started.headers["Location"] == f"/jobs/{job['id']}"

        def finished() -> dict[str, Any]:
            read: dict[str, Any] = self.get(f"/jobs/{job['id']}").json()
            return read if read["state"] != "running" else {}

        return wait_until(finished, f"job {job['id']} finished", timeout_seconds)

    def create_subscription(self, room_id: str, **fields: Any) -> dict[str, Any]:
        body = {"type": "PULL", **fields}
        response = self.post(f"/rooms/{room_id}/subscriptions", body)
        assert response.status_code == 201, response.text
        subscription: dict[str, Any] = response.json()
        return subscription


@pytest.fixture(scope="session")
def written_partitions() -> PartitionRecorder:
    """Every partition key the suite's requests write (tests/e2e/partition_keys.py)."""
    recorder = PartitionRecorder()
    recorder.install()
    return recorder


@pytest.fixture(scope="session")
def local_stack(written_partitions: PartitionRecorder) -> Iterator[LocalStack]:
    stack = LocalStack(function_concurrency=2)
    stack.start()
    yield stack
    stack.stop()
    # After the whole suite: no partition it wrote is shared by tenants (issue 24).
    assert written_partitions.partitions, "no DynamoDB write was recorded"
    assert shared(written_partitions.partitions) == [], "partitions no single tenant owns"


@pytest.fixture(autouse=True)
def empty_stack(local_stack: LocalStack) -> LocalStack:
    local_stack.reset()
    return local_stack


@pytest.fixture(scope="session")
def http() -> Iterator[requests.Session]:
    with requests.Session() as session:
        yield session


def tenant_client(stack: LocalStack, http: requests.Session, tenant: str) -> ApiClient:
    """A client with a new API key of ``tenant`` on ``stack`` (any local stack, not only the session's)."""
    repository = CatalogTable(stack.output("TableName"), client=stack.client("dynamodb"))
    return ApiClient(stack.api_url, create_api_key(repository, tenant), http)


@pytest.fixture
def tenant_a(empty_stack: LocalStack, http: requests.Session) -> ApiClient:
    return tenant_client(empty_stack, http, "tenant-a")


@pytest.fixture
def tenant_b(empty_stack: LocalStack, http: requests.Session) -> ApiClient:
    return tenant_client(empty_stack, http, "tenant-b")


@pytest.fixture
def anonymous(empty_stack: LocalStack, http: requests.Session) -> ApiClient:
    return ApiClient(empty_stack.api_url, None, http)


def assert_error(response: requests.Response, status: int, *words: str) -> dict[str, Any]:
    """A 4xx with the API's JSON error body, whose message names the problem."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = response.json()
    error = body["error"]
    assert error["code"]
    assert error["message"]
    text = (
        error["message"] + " " + " ".join(d["field"] + " " + d["problem"] for d in error["details"])
    ).lower()
    for word in words:
        assert word.lower() in text, f"{word!r} not in {text!r}"
    return body


def wait_until[T](condition: Callable[[], T], what: str, timeout_seconds: float = 30.0) -> T:
    """``condition()``'s first truthy value, polled every 0.3 s; AssertionError after the timeout."""
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.3)
    raise AssertionError(f"{what}: not within {timeout_seconds} s")

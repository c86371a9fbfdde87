"""The smoke suite's set-up: a stack's URL and key from the environment, and a clean-up that
deletes what the suite created (``make smoke``; docs/deploy.md).

    ROOMCAST_URL          the API's base URL (the stack's ApiUrl output, or the local stack's)
    ROOMCAST_API_KEY      a key of the tenant the suite may create rooms in
    ROOMCAST_RECEIVER_URL optional: an https URL that answers 2xx to a POST, for the PUSH check on
                          a stack that cannot reach this machine; without it the suite starts a
                          receiver on 127.0.0.1 (which only a local stack can reach)

The suite is black-box: it speaks HTTP to the API and nothing else, so it runs the same against
the local stack and a deployed one. It is not collected by ``make test``'s pytest run (see
tests/conftest.py); ``make test`` runs it against the local stack in a process of its own
(tests/process/test_smoke_suite.py).
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests

ROOM_NAME_PREFIX = "smoke-"
WAIT_SECONDS = 60.0


class Api:
    """The stack's API with the suite's key: JSON in, JSON out."""

    def __init__(self, base_url: str, api_key: str) -> None:
        self.base_url = base_url.rstrip("/")
        self._session = requests.Session()
        self._session.headers["Authorization"] = f"Bearer {api_key}"

    def call(self, method: str, path: str, body: Any = None, expected: int = 200) -> Any:
        response = self._session.request(method, f"{self.base_url}{path}", json=body, timeout=30)
        assert response.status_code == expected, f"{method} {path}: {response.status_code} {response.text}"
        return response.json() if response.content else None

    def finished_job(self, job: dict[str, Any]) -> dict[str, Any]:
        """A job (202 answer), read until it has finished."""
        found = wait_for(lambda: _finished(self.call("GET", f"/jobs/{job['id']}")), "the job finished")
        assert found["state"] == "succeeded", found
        return found


def _finished(job: dict[str, Any]) -> dict[str, Any] | None:
    return job if job["state"] != "running" else None


def wait_for[T](probe: Callable[[], T | None], what: str, timeout_seconds: float = WAIT_SECONDS) -> T:
    """``probe``'s first answer that is not None, asked every half second."""
    deadline = time.monotonic() + timeout_seconds
    while True:
        found = probe()
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_seconds:.0f} s waiting for {what}")
        time.sleep(0.5)


@pytest.fixture(scope="session")
def api() -> Api:
    url, key = os.environ.get("ROOMCAST_URL"), os.environ.get("ROOMCAST_API_KEY")
    if not url or not key:
        pytest.exit("make smoke needs ROOMCAST_URL and ROOMCAST_API_KEY (docs/deploy.md)", returncode=2)
    return Api(url, key)


@pytest.fixture
def room(api: Api) -> Iterator[dict[str, Any]]:
    """A room of this test, deleted (with its subscriptions and messages) when the test ends."""
    created: dict[str, Any] = api.call(
        "POST",
        "/rooms",
        {"name": f"{ROOM_NAME_PREFIX}{uuid.uuid4().hex[:12]}", "deliveryDelayMs": 1000},
        expected=201,
    )
    yield created
    api.finished_job(api.call("DELETE", f"/rooms/{created['id']}", expected=202))
    api.call("GET", f"/rooms/{created['id']}", expected=404)

"""Real webhook receivers for the end-to-end tests (``roomcast_dev.webhook_receiver``) and the
``webhook_servers`` fixture that starts them and stops them after the test.

Bring the fixture into a test module with ``webhook_servers = webhook_server.webhook_servers``::

    server = webhook_servers(fail_first(3, status=500))
    ... subscribe server.url("/hook"), publish ...
    first_four = server.wait_for_requests(4, timeout_seconds=20)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

import pytest

from roomcast_dev.webhook_receiver import (
    RecordedRequest,
    Reply,
    Script,
    WebhookReceiver,
    always,
    fail_first,
    per_path,
    statuses,
)

__all__ = [
    "RecordedRequest",
    "Reply",
    "Script",
    "WebhookReceiver",
    "WebhookServers",
    "always",
    "fail_first",
    "per_path",
    "statuses",
    "webhook_servers",
]


class WebhookServers(Protocol):
    """What the ``webhook_servers`` fixture gives: call it to start a server."""

    def __call__(self, script: Script | None = None) -> WebhookReceiver: ...


@pytest.fixture
def webhook_servers() -> Iterator[WebhookServers]:
    """A factory: ``webhook_servers(script)`` starts a server; all are stopped after the test."""
    started: list[WebhookReceiver] = []

    def start(script: Script | None = None) -> WebhookReceiver:
        server = WebhookReceiver(script).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()

"""`roomcast listen`'s receiver without a stack: a verified request is answered with the chosen
status (or the app's, with --forward-to) and handed over for printing; one that fails
verification is answered 401 and reported."""

from __future__ import annotations

import json
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from types import SimpleNamespace
from typing import cast

import pytest

from roomcast_cli.commands.listen import _is_loopback_url, _subscribe
from roomcast_cli.exit_codes import CliError, ExitCode
from roomcast_cli.receiver import Received, Receiver
from roomcast_cli.session import Session
from roomcast_dev.webhook_receiver import Reply, WebhookReceiver, always

BODY = json.dumps(
    {"messageId": "msg_1", "eventType": "order.created", "attempt": 0, "payload": {"n": 1}}
).encode()


def _verify(secret: str, headers: Mapping[str, str], body: bytes) -> str | None:
    return None if headers.get("webhook-signature") == f"v1,{secret}" else "no matching signature"


@contextmanager
def _running(forward_to: str | None = None, control: str | None = None) -> Iterator[Receiver]:
    server = Receiver(0, "good", 202, forward_to, _verify, control)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with _running() as server:
        yield server


def _post(server: Receiver, signature: str) -> int:
    return _answer(server, signature)[0]


def _answer(server: Receiver, signature: str) -> tuple[int, str | None]:
    """The status and the ``webhook-delivery`` header of the receiver's answer."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.server_address[1]}/webhooks",
        data=BODY,
        headers={"webhook-id": "msg_1", "webhook-timestamp": "1", "webhook-signature": signature},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return int(response.status), response.headers.get("webhook-delivery")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("webhook-delivery")


def test_a_verified_delivery_is_answered_and_handed_over(receiver: Receiver) -> None:
    # When
    status = _post(receiver, "v1,good")

    # Then
    assert status == 202
    received = receiver.received.get(timeout=5).as_json()
    assert received["type"] == "delivery"
    assert received["answered"] == 202
    assert received["webhookId"] == "msg_1"
    assert received["body"]["payload"] == {"n": 1}


def test_a_request_that_fails_verification_is_refused_and_reported(receiver: Receiver) -> None:
    # When
    status = _post(receiver, "v1,forged")

    # Then
    assert status == 401
    received = receiver.received.get(timeout=5).as_json()
    assert received["type"] == "rejected"
    assert received["error"] == "no matching signature"


def test_a_body_that_is_not_json_is_kept_as_text() -> None:
    received = Received("2026-11-22T10:00:00.000Z", {}, b"\xffnot json", 200)
    assert received.as_json()["body"] == "\ufffdnot json"


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8080/webhooks", True),
        ("http://localhost:1/x", True),
        ("http://[::1]:1/x", True),
        ("https://hooks.example.com/x", False),
        ("https://10.0.0.1/x", False),
    ],
)
def test_loopback_urls_are_recognised(url: str, loopback: bool) -> None:
    assert _is_loopback_url(url) is loopback


def test_forward_to_posts_the_delivery_to_the_app_and_answers_with_its_status() -> None:
    # Given an app that answers 409, and listen forwarding to it
    with WebhookReceiver(always(Reply(409))) as app, _running(forward_to=app.url("/app")) as server:
        # When
        status = _post(server, "v1,good")

        # Then the app got the body and the webhook headers, and its status was the answer
        [forwarded] = app.wait_for_requests(1, timeout_seconds=5)
        assert forwarded.body == BODY
        assert forwarded.headers["webhook-id"] == "msg_1"
        assert forwarded.headers["webhook-signature"] == "v1,good"
        assert status == 409
        assert server.received.get(timeout=5).answered == 409


def test_control_answers_with_the_webhook_delivery_header_and_an_app_s_header_is_passed_on() -> None:
    with _running(control="abort") as server:
        assert _answer(server, "v1,good") == (202, "abort")
    app_reply = Reply(503, headers={"webhook-delivery": "disable"})
    with WebhookReceiver(always(app_reply)) as app, _running(forward_to=app.url("/app")) as server:
        assert _answer(server, "v1,good") == (503, "disable")


def test_forward_to_an_app_that_is_down_answers_502() -> None:
    with _running(forward_to="http://127.0.0.1:9/app") as server:
        assert _post(server, "v1,good") == 502


class _RefusingSubscriptions:
    def create(self, room_id: str, **fields: object) -> object:
        from roomcast_client import UnprocessableEntity

        raise UnprocessableEntity(422, "invalid_push_url", "push URLs must be https")


def test_a_stack_that_refuses_loopback_gets_the_public_url_advice() -> None:
    # Given a deployed stack's answer to a 127.0.0.1 push URL
    fake = SimpleNamespace(client=SimpleNamespace(subscriptions=_RefusingSubscriptions()))

    # When
    with pytest.raises(CliError) as raised:
        _subscribe(
            cast(Session, fake), "room_1", "http://127.0.0.1:8080/webhooks", None, "https://api.example.com"
        )

    # Then
    assert raised.value.exit_code is ExitCode.REFUSED
    assert "--public-url" in raised.value.message
    assert "push URLs must be https" in raised.value.message

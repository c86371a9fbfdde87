"""`roomcast listen`'s receiver without a stack: a verified request is answered with the chosen
status and handed over for printing, one that fails verification is answered 401 and reported;
and the CLI's entry point turns bad input and missing configuration into its documented exit codes."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from roomcast_cli.commands.listen import Received, _is_loopback_url, _Receiver
from roomcast_cli.main import run

BODY = json.dumps(
    {"messageId": "msg_1", "eventType": "order.created", "attempt": 0, "payload": {"n": 1}}
).encode()


def _verify(secret: str, headers: Mapping[str, str], body: bytes) -> str | None:
    return None if headers.get("webhook-signature") == f"v1,{secret}" else "no matching signature"


@pytest.fixture
def receiver() -> Iterator[_Receiver]:
    import threading

    server = _Receiver(0, "good", 202, None, _verify)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def _post(server: _Receiver, signature: str) -> int:
    request = urllib.request.Request(
        f"http://127.0.0.1:{server.server_address[1]}/webhooks",
        data=BODY,
        headers={"webhook-id": "msg_1", "webhook-timestamp": "1", "webhook-signature": signature},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def test_a_verified_delivery_is_answered_and_handed_over(receiver: _Receiver) -> None:
    # When
    status = _post(receiver, "v1,good")

    # Then
    assert status == 202
    received = receiver.received.get(timeout=5).as_json()
    assert received["type"] == "delivery"
    assert received["answered"] == 202
    assert received["webhookId"] == "msg_1"
    assert received["body"]["payload"] == {"n": 1}


def test_a_request_that_fails_verification_is_refused_and_reported(receiver: _Receiver) -> None:
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


@pytest.fixture
def unconfigured(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("ROOMCAST_URL", "ROOMCAST_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ROOMCAST_STATE_FILE", str(tmp_path / "none.json"))
    monkeypatch.chdir(tmp_path)


@pytest.mark.usefixtures("unconfigured")
def test_invalid_json_exits_2_before_any_configuration_is_needed(capsys: pytest.CaptureFixture[str]) -> None:
    # When
    code = run(["publish", "room_1", "{order: 1}", "-t", "order.created"])

    # Then
    assert code == 2
    assert "the payload is not valid JSON" in capsys.readouterr().err


@pytest.mark.usefixtures("unconfigured")
def test_nothing_configured_exits_3_with_json_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    # When
    code = run(["rooms", "list", "--json"])

    # Then
    assert code == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert json.loads(captured.err)["error"]["code"] == "unreachable"


@pytest.mark.usefixtures("unconfigured")
def test_usage_errors_exit_2_and_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["rooms", "list", "--limit", "500"]) == 2
    assert run(["subscriptions", "create", "room_1"]) == 2  # neither --push-url nor --pull
    assert "Give either --push-url URL" in capsys.readouterr().err
    assert run(["dead-letters", "replay", "room_1", "sub_1"]) == 2  # which letters?
    assert run(["--help"]) == 0

"""The local gateway over real sockets: every answer it makes itself is API Gateway's JSON, never
http.server's HTML, whatever the method, framing or size of the request."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from roomcast_dev.gateway import MAX_HEADER_BYTES, MAX_PAYLOAD_BYTES, Gateway
from roomcast_dev.template import Route

ROUTES = [
    Route("ANY", "/{proxy+}", "Echo", authorized=False),
    Route("POST", "/exact", "Echo", authorized=False),
]


class Echo:
    """A function that answers with what the gateway handed it."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def __call__(self, function_id: str, event: dict[str, Any]) -> dict[str, Any]:
        self.events.append(event)
        return {"statusCode": 200, "headers": {"content-type": "application/json"}, "body": "{}"}


@pytest.fixture
def echo() -> Echo:
    return Echo()


@pytest.fixture
def gateway(echo: Echo) -> Iterator[Gateway]:
    gateway = Gateway(routes=ROUTES, authorizer=None, invoke=echo)
    gateway.start()
    yield gateway
    gateway.stop()


def _exchange(gateway: Gateway, raw: bytes) -> tuple[int, dict[str, str], bytes]:
    host, port = gateway.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        connection.sendall(raw)
        connection.shutdown(socket.SHUT_WR)
        received = b""
        while chunk := connection.recv(65536):
            received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers, body


def _assert_json_message(status: int, headers: dict[str, str], body: bytes, expected: str) -> None:
    assert headers["content-type"] == "application/json"
    assert json.loads(body) == {"message": expected}
    assert int(headers["content-length"]) == len(body)


@pytest.mark.parametrize("method", ["TRACE", "PROPFIND", "CONNECT", "BREW"])
def test_any_method_reaches_an_any_route(gateway: Gateway, echo: Echo, method: str) -> None:
    # When
    status, _, _ = _exchange(gateway, f"{method} /rooms HTTP/1.1\r\nHost: x\r\n\r\n".encode())

    # Then
    assert status == 200
    assert echo.events[0]["requestContext"]["http"]["method"] == method
    assert echo.events[0]["routeKey"] == "ANY /{proxy+}"


def test_unmatched_method_and_path_get_json_not_found(echo: Echo) -> None:
    # Given a gateway without a catch-all route
    gateway = Gateway(
        routes=[Route("POST", "/exact", "Echo", authorized=False)], authorizer=None, invoke=echo
    )
    gateway.start()
    try:
        # When
        status, headers, body = _exchange(gateway, b"TRACE /exact HTTP/1.1\r\nHost: x\r\n\r\n")

        # Then
        assert status == 404
        _assert_json_message(status, headers, body, "Not Found")
        assert echo.events == []
    finally:
        gateway.stop()


@pytest.mark.parametrize(
    "content_length",
    ["abc", "-1", "1.5", "10, 11", " "],
    ids=["word", "negative", "fraction", "list", "blank"],
)
def test_malformed_content_length_is_a_json_bad_request(
    gateway: Gateway, echo: Echo, content_length: str
) -> None:
    # When
    status, headers, body = _exchange(
        gateway, f"POST /exact HTTP/1.1\r\nHost: x\r\nContent-Length: {content_length}\r\n\r\n{{}}".encode()
    )

    # Then
    assert status == 400
    _assert_json_message(status, headers, body, "Bad Request")
    assert echo.events == []


def test_conflicting_content_lengths_are_refused(gateway: Gateway, echo: Echo) -> None:
    # When
    status, headers, body = _exchange(
        gateway, b"POST /exact HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"
    )

    # Then
    assert status == 400
    _assert_json_message(status, headers, body, "Bad Request")
    assert echo.events == []


def test_body_shorter_than_its_content_length_is_refused(gateway: Gateway, echo: Echo) -> None:
    # When the client closes after 2 of 10 promised bytes
    status, headers, body = _exchange(
        gateway, b"POST /exact HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{}"
    )

    # Then
    assert status == 400
    _assert_json_message(status, headers, body, "Bad Request")
    assert echo.events == []


def test_chunked_body_is_reassembled(gateway: Gateway, echo: Echo) -> None:
    # When
    status, _, _ = _exchange(
        gateway,
        b"POST /exact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b'Transfer-Encoding: chunked\r\n\r\n4\r\n{"a"\r\n3;ext=1\r\n:1}\r\n0\r\n\r\n',
    )

    # Then
    assert status == 200
    assert echo.events[0]["body"] == '{"a":1}'


@pytest.mark.parametrize(
    "chunks",
    [b"zz\r\n{}\r\n0\r\n\r\n", b"2\r\n{}XX0\r\n\r\n", b"5\r\n{}"],
    ids=["size", "terminator", "short"],
)
def test_malformed_chunked_body_is_a_json_bad_request(gateway: Gateway, echo: Echo, chunks: bytes) -> None:
    # When
    status, headers, body = _exchange(
        gateway, b"POST /exact HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks
    )

    # Then
    assert status == 400
    _assert_json_message(status, headers, body, "Bad Request")
    assert echo.events == []


def test_unknown_transfer_coding_is_refused(gateway: Gateway, echo: Echo) -> None:
    # When
    status, headers, body = _exchange(
        gateway, b"POST /exact HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n{}"
    )

    # Then
    assert status == 400
    _assert_json_message(status, headers, body, "Bad Request")
    assert echo.events == []


def test_oversized_declared_body_is_refused_before_it_is_read(gateway: Gateway, echo: Echo) -> None:
    # When
    status, headers, body = _exchange(
        gateway,
        f"POST /exact HTTP/1.1\r\nHost: x\r\nContent-Length: {MAX_PAYLOAD_BYTES + 1}\r\n\r\n".encode(),
    )

    # Then
    assert status == 413
    _assert_json_message(status, headers, body, "Request Entity Too Large")
    assert echo.events == []


def test_headers_over_api_gateways_limit_get_json_431(gateway: Gateway, echo: Echo) -> None:
    # When
    padding = "a" * MAX_HEADER_BYTES
    status, headers, body = _exchange(
        gateway, f"GET /rooms HTTP/1.1\r\nHost: x\r\nX-Pad: {padding}\r\n\r\n".encode()
    )

    # Then
    assert status == 431
    _assert_json_message(status, headers, body, "Request Header Fields Too Large")
    assert echo.events == []


def test_garbled_request_line_gets_json_bad_request(gateway: Gateway, echo: Echo) -> None:
    # When
    status, headers, body = _exchange(gateway, b"GET /rooms HTTP/9.x\r\n\r\n")

    # Then
    assert status == 400
    assert headers["content-type"] == "application/json"
    assert "message" in json.loads(body)
    assert echo.events == []


def test_keep_alive_connection_serves_a_second_request(gateway: Gateway, echo: Echo) -> None:
    # When two requests share one connection
    request = b"GET /rooms HTTP/1.1\r\nHost: x\r\n\r\n"
    status, _, _ = _exchange(gateway, request + request)

    # Then both reached the function
    assert status == 200
    assert len(echo.events) == 2

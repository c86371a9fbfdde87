"""The webhook POST: pinned to the checked address, no redirects, one deadline, a capped body.

Every server here listens on 127.0.0.1 and is stopped (threads joined) by the fixtures.
"""

from __future__ import annotations

import email.utils
import shutil
import socket
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from standardwebhooks.webhooks import Webhook

from roomcast.platform.credentials import new_signing_secret
from roomcast.webhooks.answers import (
    MAX_RETRY_AFTER_MS,
    DeliveryControl,
    HttpResult,
    classify,
    is_gone,
    parse_retry_after,
)
from roomcast.webhooks.http import post_webhook
from roomcast.webhooks.signing import webhook_headers
from roomcast.webhooks.urls import PushUrlPolicy, PushUrlRejected

LOCAL = PushUrlPolicy(allow_loopback=True)
STRICT = PushUrlPolicy(allow_loopback=False)
BODY = b'{"eventType":"order.created","payload":{"id":42}}'
HEADERS = {"content-type": "application/json"}
SLACK_S = 0.5  # how far past its timeout a call may return


# -- test servers -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    target: str
    headers: dict[str, str]
    body: bytes


Respond = Callable[["RecordingHandler"], None]


class RecordingServer(ThreadingHTTPServer):
    """Records each request, then lets ``respond`` answer it (or not)."""

    daemon_threads = False
    block_on_close = True  # server_close() joins every handler thread

    def __init__(self, respond: Respond, tls: ssl.SSLContext | None = None) -> None:
        super().__init__(("127.0.0.1", 0), RecordingHandler)
        self.respond = respond
        self.requests: list[RecordedRequest] = []
        self.stopping = threading.Event()
        if tls is not None:
            # The handshake then happens in the handler thread, not in the accept loop.
            self.socket = tls.wrap_socket(self.socket, server_side=True, do_handshake_on_connect=False)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients in these tests hang up mid-response on purpose; that is not worth a traceback."""


class RecordingHandler(BaseHTTPRequestHandler):
    server: RecordingServer
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        self.server.requests.append(
            RecordedRequest(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        )
        self.server.respond(self)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


def replying(status: int, body: bytes = b"", headers: Mapping[str, str] | None = None) -> Respond:
    def respond(handler: RecordingHandler) -> None:
        handler.send_response(status)
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return respond


def never_answering(handler: RecordingHandler) -> None:
    handler.server.stopping.wait(10)


def drip(handler: RecordingHandler, data: bytes) -> None:
    """One byte every 200 ms (10 s for 50 bytes), until the test ends."""
    for index in range(len(data)):
        if handler.server.stopping.wait(0.2):
            return
        handler.wfile.write(data[index : index + 1])


def dripping_the_headers(handler: RecordingHandler) -> None:
    drip(handler, b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX-Padding: abcdefgh\r\n\r\n")


def dripping_the_body(handler: RecordingHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", "50")
    handler.end_headers()
    drip(handler, b"d" * 50)


def sending_1mb_of_a_10mb_body_then_stalling(handler: RecordingHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", str(10 * 1024 * 1024))
    handler.end_headers()
    handler.wfile.write(b"x" * 1024 * 1024)
    handler.server.stopping.wait(10)


ServerFactory = Callable[..., RecordingServer]


@pytest.fixture
def serve() -> Iterator[ServerFactory]:
    started: list[tuple[RecordingServer, threading.Thread]] = []

    def start(respond: Respond, tls: ssl.SSLContext | None = None) -> RecordingServer:
        server = RecordingServer(respond, tls)
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
        thread.start()
        started.append((server, thread))
        return server

    yield start
    for server, thread in started:
        server.stopping.set()
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A bare listening socket: the kernel completes any TCP handshake, so accept() shows attempts."""
    sock = socket.create_server(("127.0.0.1", 0))
    sock.setblocking(False)
    yield sock
    sock.close()


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class Certificate:
    cert_file: Path
    key_file: Path


@pytest.fixture(scope="module")
def localhost_certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl CLI is needed to make a test certificate")
    directory = tmp_path_factory.mktemp("tls")
    certificate = Certificate(directory / "c.pem", directory / "k.pem")
    subprocess.run(  # noqa: S603 - fixed arguments
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(certificate.key_file),
            "-out",
            str(certificate.cert_file),
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost",
        ],
        check=True,
        capture_output=True,
    )
    return certificate


@pytest.fixture
def tls_server(serve: ServerFactory, localhost_certificate: Certificate) -> tuple[RecordingServer, list[str]]:
    """An HTTPS server for "localhost" and the SNI names its clients sent."""
    server_names: list[str] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(localhost_certificate.cert_file, localhost_certificate.key_file)
    context.sni_callback = lambda _socket, name, _context: server_names.append(str(name))
    return serve(replying(200, b"tls ok"), tls=context), server_names


# -- helpers ----------------------------------------------------------------------------------------


def resolving_to(*addresses: str) -> Callable[[str, int], list[str]]:
    def resolve(host: str, port: int) -> list[str]:
        return list(addresses)

    return resolve


def timed(call: Callable[[], HttpResult]) -> tuple[HttpResult, float]:
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


def url_of(server: RecordingServer, path: str = "/hook") -> str:
    return f"http://127.0.0.1:{server.port}{path}"


# -- answers ----------------------------------------------------------------------------------------


def test_a_2xx_answer_returns_its_status_and_latency(serve: ServerFactory) -> None:
    # Given
    server = serve(replying(204))

    # When
    result, elapsed_s = timed(lambda: post_webhook(url_of(server), BODY, HEADERS, 2000, LOCAL))

    # Then
    assert result.status == 204
    assert result.error is None
    assert result.retry_after_ms is None
    assert 0 <= result.latency_ms <= elapsed_s * 1000 + 1
    assert classify(result.status) == "delivered"


def test_the_body_and_signed_headers_arrive_as_sent(serve: ServerFactory) -> None:
    # Given
    server = serve(replying(200, b'{"ok":true}'))
    secret = new_signing_secret()
    headers = webhook_headers("msg_1", int(time.time()), BODY, [secret], "corr-1")

    # When
    result = post_webhook(url_of(server, "/hooks/in?tenant=a"), BODY, headers, 2000, LOCAL)

    # Then
    assert result.status == 200
    assert result.response_excerpt == '{"ok":true}'
    [request] = server.requests
    assert request.method == "POST"
    assert request.target == "/hooks/in?tenant=a"
    assert request.body == BODY
    assert request.headers["host"] == f"127.0.0.1:{server.port}"
    assert request.headers["content-length"] == str(len(BODY))
    assert request.headers["user-agent"] == "roomcast-webhooks/1"
    assert request.headers["x-correlation-id"] == "corr-1"
    assert Webhook(secret).verify(request.body, request.headers, json_parse=False) is None


def test_caller_headers_cannot_override_host_or_framing(serve: ServerFactory) -> None:
    # Given
    server = serve(replying(200))
    sneaky = {**HEADERS, "Host": "internal.example", "Content-Length": "1", "Transfer-Encoding": "chunked"}

    # When
    result = post_webhook(url_of(server), BODY, sneaky, 2000, LOCAL)

    # Then
    assert result.status == 200
    [request] = server.requests
    assert request.headers["host"] == f"127.0.0.1:{server.port}"
    assert request.headers["content-length"] == str(len(BODY))
    assert "transfer-encoding" not in request.headers
    assert request.body == BODY


def test_a_500_is_retryable_and_carries_its_excerpt(serve: ServerFactory) -> None:
    # Given
    server = serve(replying(500, b"boom " * 300))

    # When
    result = post_webhook(url_of(server), BODY, HEADERS, 2000, LOCAL)

    # Then
    assert result.status == 500
    assert classify(result.status) == "retryable"
    assert result.response_excerpt == ("boom " * 300)[:1024]


def test_a_429_with_retry_after_seconds_gives_the_delay_in_ms(serve: ServerFactory) -> None:
    # Given
    server = serve(replying(429, headers={"Retry-After": "7"}))

    # When
    result = post_webhook(url_of(server), BODY, HEADERS, 2000, LOCAL)

    # Then
    assert result.status == 429
    assert result.retry_after_ms == 7000
    assert classify(result.status) == "retryable"


def test_a_503_with_a_retry_after_date_is_measured_from_the_clock(serve: ServerFactory) -> None:
    # Given
    now_s = 1_700_000_000.0
    server = serve(replying(503, headers={"Retry-After": email.utils.formatdate(now_s + 30, usegmt=True)}))

    # When
    result = post_webhook(url_of(server), BODY, HEADERS, 2000, LOCAL, clock=lambda: now_s)

    # Then
    assert result.status == 503
    assert result.retry_after_ms == 30_000


@pytest.mark.parametrize(
    ("header", "control", "unknown"),
    [
        (" Abort ", DeliveryControl.ABORT, None),
        ("disable", DeliveryControl.DISABLE, None),
        ("stop!", None, "stop!"),
    ],
)
def test_the_receivers_webhook_delivery_header_is_read_and_an_unknown_value_kept_aside(
    serve: ServerFactory, header: str, control: DeliveryControl | None, unknown: str | None
) -> None:
    server = serve(replying(503, headers={"webhook-delivery": header}))

    result = post_webhook(url_of(server), BODY, HEADERS, 2000, LOCAL)

    assert (result.status, result.control, result.unknown_control) == (503, control, unknown)


def test_a_410_is_permanent_and_gone(serve: ServerFactory) -> None:
    # Given
    server = serve(replying(410))

    # When
    result = post_webhook(url_of(server), BODY, HEADERS, 2000, LOCAL)

    # Then
    assert result.status == 410
    assert classify(result.status) == "permanent"
    assert is_gone(result.status)


def test_a_redirect_is_returned_not_followed(serve: ServerFactory) -> None:
    # Given
    target = serve(replying(200))
    redirecting = serve(replying(302, headers={"Location": url_of(target, "/elsewhere")}))

    # When
    result = post_webhook(url_of(redirecting), BODY, HEADERS, 2000, LOCAL)

    # Then
    assert result.status == 302
    assert classify(result.status) == "retryable"
    assert len(redirecting.requests) == 1
    assert target.requests == []


# -- time and size limits ---------------------------------------------------------------------------


def test_a_server_that_never_answers_times_out_on_time(serve: ServerFactory) -> None:
    # Given
    server = serve(never_answering)

    # When
    result, elapsed_s = timed(lambda: post_webhook(url_of(server), BODY, HEADERS, 1000, LOCAL))

    # Then
    assert result.status is None
    assert result.error == "timeout after 1000 ms"
    assert classify(result.status) == "retryable"
    assert elapsed_s < 1.0 + SLACK_S
    assert len(server.requests) == 1  # the request did go out


def test_headers_dripped_a_byte_at_a_time_cannot_outlive_the_deadline(serve: ServerFactory) -> None:
    # Given
    server = serve(dripping_the_headers)

    # When
    result, elapsed_s = timed(lambda: post_webhook(url_of(server), BODY, HEADERS, 1000, LOCAL))

    # Then
    assert result.status is None
    assert result.error is not None
    assert "timeout" in result.error
    assert elapsed_s < 1.0 + SLACK_S


def test_a_body_dripped_a_byte_at_a_time_is_cut_at_the_deadline_and_the_status_stands(
    serve: ServerFactory,
) -> None:
    # Given
    server = serve(dripping_the_body)

    # When
    result, elapsed_s = timed(lambda: post_webhook(url_of(server), BODY, HEADERS, 1000, LOCAL))

    # Then
    assert result.status == 200
    assert result.error == "timeout after 1000 ms reading the response body"
    assert set(result.response_excerpt) <= {"d"}
    assert len(result.response_excerpt) < 10
    assert elapsed_s < 1.0 + SLACK_S


def test_an_oversized_body_is_read_only_up_to_the_cap(serve: ServerFactory) -> None:
    # Given: a 10 MB body whose first megabyte arrives at once and the rest never
    server = serve(sending_1mb_of_a_10mb_body_then_stalling)

    # When
    result, elapsed_s = timed(lambda: post_webhook(url_of(server), BODY, HEADERS, 5000, LOCAL))

    # Then: reading past the cap would have waited for the 5 s timeout
    assert result.status == 200
    assert result.error is None
    assert result.response_excerpt == "x" * 1024
    assert elapsed_s < 1.0


def test_max_response_bytes_bounds_what_is_read(serve: ServerFactory) -> None:
    # Given
    server = serve(replying(200, b"a" * 2000))

    # When
    result = post_webhook(url_of(server), BODY, HEADERS, 2000, LOCAL, max_response_bytes=100)

    # Then
    assert result.status == 200
    assert result.response_excerpt == "a" * 100


def test_an_excerpt_is_decoded_leniently(serve: ServerFactory) -> None:
    # Given
    server = serve(replying(400, b"bad \xff\xfe input \xc3\xa9"))

    # When
    result = post_webhook(url_of(server), BODY, HEADERS, 2000, LOCAL)

    # Then
    assert result.status == 400
    assert result.response_excerpt == "bad \ufffd\ufffd input é"


# -- network failures -------------------------------------------------------------------------------


def test_a_closed_port_is_a_refused_connection(closed_port: int) -> None:
    # When
    result = post_webhook(f"http://127.0.0.1:{closed_port}/", BODY, HEADERS, 2000, LOCAL)

    # Then
    assert result.status is None
    assert result.error == "connection refused"
    assert result.response_excerpt == ""
    assert classify(result.status) == "retryable"


def test_a_server_that_hangs_up_without_answering_is_a_network_error(listener: socket.socket) -> None:
    # Given: a server that reads the request and closes the connection unanswered
    port = listener.getsockname()[1]
    listener.settimeout(5)
    accepted: list[socket.socket] = []

    def hang_up() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
        accepted.append(connection)

    thread = threading.Thread(target=hang_up)
    thread.start()

    # When
    result = post_webhook(f"http://127.0.0.1:{port}/", BODY, HEADERS, 2000, LOCAL)
    thread.join()

    # Then
    assert result.status is None
    assert result.error in {"connection closed without a response", "connection reset"}
    assert len(accepted) == 1


# -- DNS pinning ------------------------------------------------------------------------------------


def test_the_connection_goes_to_the_checked_address_without_a_second_lookup(serve: ServerFactory) -> None:
    # Given: a name that re-points to the metadata service after the first lookup
    server = serve(replying(200))
    lookups: list[str] = []

    def rebinding(host: str, port: int) -> list[str]:
        lookups.append(host)
        return ["127.0.0.1"] if len(lookups) == 1 else ["169.254.169.254"]

    # When
    result = post_webhook(
        f"http://rebind.test:{server.port}/hook", BODY, HEADERS, 2000, LOCAL, resolve=rebinding
    )

    # Then
    assert result.status == 200
    assert lookups == ["rebind.test"]
    [request] = server.requests
    assert request.headers["host"] == f"rebind.test:{server.port}"


def test_each_checked_address_is_tried_in_order_until_one_connects(serve: ServerFactory) -> None:
    # Given: 127.0.0.2 is loopback too, but nothing listens there
    server = serve(replying(200))

    # When
    result = post_webhook(
        f"http://multi.test:{server.port}/",
        BODY,
        HEADERS,
        2000,
        LOCAL,
        resolve=resolving_to("127.0.0.2", "127.0.0.1"),
    )

    # Then
    assert result.status == 200
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("policy", "addresses"),
    [
        pytest.param(LOCAL, ("169.254.169.254",), id="metadata"),
        pytest.param(LOCAL, ("127.0.0.1", "10.0.0.7"), id="one private among several"),
        pytest.param(STRICT, ("127.0.0.1",), id="loopback outside local mode"),
    ],
)
def test_a_forbidden_resolution_is_rejected_before_any_connection(
    listener: socket.socket, policy: PushUrlPolicy, addresses: tuple[str, ...]
) -> None:
    # Given
    port = listener.getsockname()[1]

    # When / Then
    with pytest.raises(PushUrlRejected):
        post_webhook(
            f"https://hook.test:{port}/", BODY, HEADERS, 2000, policy, resolve=resolving_to(*addresses)
        )
    with pytest.raises(BlockingIOError):
        listener.accept()


def test_plain_http_outside_local_mode_is_rejected(listener: socket.socket) -> None:
    # When / Then
    with pytest.raises(PushUrlRejected, match="https"):
        post_webhook(f"http://127.0.0.1:{listener.getsockname()[1]}/", BODY, HEADERS, 2000, STRICT)


# -- TLS --------------------------------------------------------------------------------------------


def test_https_verifies_the_url_host_name_while_connecting_to_the_pinned_address(
    tls_server: tuple[RecordingServer, list[str]], localhost_certificate: Certificate
) -> None:
    # Given
    server, server_names = tls_server
    trusting = ssl.create_default_context(cafile=str(localhost_certificate.cert_file))

    # When
    result = post_webhook(
        f"https://localhost:{server.port}/hook",
        BODY,
        HEADERS,
        2000,
        LOCAL,
        resolve=resolving_to("127.0.0.1"),
        ssl_context=trusting,
    )

    # Then
    assert result.status == 200
    assert result.response_excerpt == "tls ok"
    assert server_names == ["localhost"]
    assert server.requests[0].headers["host"] == f"localhost:{server.port}"


def test_https_with_the_default_context_refuses_an_untrusted_certificate(
    tls_server: tuple[RecordingServer, list[str]],
) -> None:
    # Given
    server, _ = tls_server

    # When
    result = post_webhook(
        f"https://localhost:{server.port}/hook", BODY, HEADERS, 2000, LOCAL, resolve=resolving_to("127.0.0.1")
    )

    # Then
    assert result.status is None
    assert result.error is not None
    assert result.error.startswith("TLS: certificate verify failed")
    assert server.requests == []


def test_https_to_an_ip_the_certificate_does_not_name_is_a_hostname_mismatch(
    tls_server: tuple[RecordingServer, list[str]], localhost_certificate: Certificate
) -> None:
    # Given
    server, _ = tls_server
    trusting = ssl.create_default_context(cafile=str(localhost_certificate.cert_file))

    # When
    result = post_webhook(
        f"https://127.0.0.1:{server.port}/hook", BODY, HEADERS, 2000, LOCAL, ssl_context=trusting
    )

    # Then
    assert result.status is None
    assert result.error is not None
    assert "certificate" in result.error
    assert "mismatch" in result.error
    assert server.requests == []


# -- caller mistakes --------------------------------------------------------------------------------


@pytest.mark.parametrize("timeout_ms", [0, -1, True])
def test_a_timeout_that_is_not_a_positive_number_of_ms_is_a_value_error(
    timeout_ms: int, listener: socket.socket
) -> None:
    # When / Then
    with pytest.raises(ValueError, match="timeout_ms"):
        post_webhook(f"http://127.0.0.1:{listener.getsockname()[1]}/", BODY, HEADERS, timeout_ms, LOCAL)


def test_a_header_that_would_split_the_request_is_a_value_error(listener: socket.socket) -> None:
    # When / Then
    with pytest.raises(ValueError, match="x-evil"):
        post_webhook(
            f"http://127.0.0.1:{listener.getsockname()[1]}/",
            BODY,
            {"x-evil": "a\r\nHost: elsewhere"},
            2000,
            LOCAL,
        )
    with pytest.raises(BlockingIOError):
        listener.accept()


# -- tables -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "outcome"),
    [
        (None, "retryable"),
        (100, "retryable"),
        (103, "retryable"),
        (200, "delivered"),
        (201, "delivered"),
        (202, "delivered"),
        (204, "delivered"),
        (299, "delivered"),
        (301, "retryable"),
        (302, "retryable"),
        (304, "retryable"),
        (307, "retryable"),
        (308, "retryable"),
        (400, "permanent"),
        (401, "permanent"),
        (403, "permanent"),
        (404, "permanent"),
        (405, "permanent"),
        (408, "retryable"),
        (409, "permanent"),
        (410, "permanent"),
        (413, "permanent"),
        (422, "permanent"),
        (425, "retryable"),
        (429, "retryable"),
        (451, "permanent"),
        (499, "permanent"),
        (500, "retryable"),
        (502, "retryable"),
        (503, "retryable"),
        (504, "retryable"),
        (599, "retryable"),
        (999, "retryable"),
    ],
)
def test_classify(status: int | None, outcome: str) -> None:
    assert classify(status) == outcome


@pytest.mark.parametrize(("status", "gone"), [(410, True), (404, False), (200, False), (None, False)])
def test_is_gone(status: int | None, gone: bool) -> None:
    assert is_gone(status) is gone


NOW_S = 784_111_777.0  # Sun, 06 Nov 1994 08:49:37 GMT, the RFC's example date


@pytest.mark.parametrize(
    ("value", "expected_ms"),
    [
        pytest.param(None, None, id="absent"),
        pytest.param("", None, id="empty"),
        pytest.param("   ", None, id="blank"),
        pytest.param("0", 0, id="zero seconds"),
        pytest.param("120", 120_000, id="seconds"),
        pytest.param(" 5 ", 5000, id="seconds with spaces"),
        pytest.param("1.1", 1100, id="fractional seconds"),
        pytest.param("604800", MAX_RETRY_AFTER_MS, id="exactly a week"),
        pytest.param("604801", MAX_RETRY_AFTER_MS, id="over a week"),
        pytest.param("9" * 5000, MAX_RETRY_AFTER_MS, id="absurdly many digits"),
        pytest.param("-5", None, id="negative seconds"),
        pytest.param("soon", None, id="garbage"),
        pytest.param("Sun, 06 Nov 1994 08:50:37 GMT", 60_000, id="IMF-fixdate"),
        pytest.param("Sunday, 06-Nov-94 08:50:37 GMT", 60_000, id="RFC 850 date"),
        pytest.param("Sun Nov  6 08:50:37 1994", 60_000, id="asctime date"),
        pytest.param("Sun, 06 Nov 1994 08:49:37 GMT", 0, id="date now"),
        pytest.param("Sun, 06 Nov 1994 07:49:37 GMT", 0, id="date in the past"),
        pytest.param("Sun, 06 Nov 2094 08:49:37 GMT", MAX_RETRY_AFTER_MS, id="date a century away"),
        pytest.param("Sun, 32 Nov 1994 08:49:37 GMT", None, id="impossible date"),
    ],
)
def test_parse_retry_after(value: str | None, expected_ms: int | None) -> None:
    assert parse_retry_after(value, NOW_S) == expected_ms

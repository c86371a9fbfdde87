"""One webhook POST, made safe to aim at a URL a tenant chose.

- The URL is checked (``check_push_url``) and the connection goes to an address that check
  returned: there is no second DNS lookup, so a name cannot be re-pointed at a private address
  between the check and the connect (DNS rebinding). TLS still verifies the certificate against
  the URL's host name (SNI and hostname check), not the IP.
- Redirects are never followed: a 3xx is the answer.
- One deadline covers connect, TLS, sending and reading; each blocking socket call gets only the
  time left, so a server that drips bytes cannot stretch it.
- At most ``max_response_bytes`` of the response body are read.
- Network, TLS and protocol failures come back as a result with ``status=None``; only a rejected
  URL (``PushUrlRejected``, a permanent failure) and caller mistakes (``ValueError``) raise.
"""

from __future__ import annotations

import functools
import http.client
import io
import re
import socket
import ssl
import time
from collections.abc import Buffer, Callable, Mapping
from urllib.parse import quote, urlsplit

from roomcast.webhooks.answers import CONTROL_HEADER, HttpResult, describe_failure, parse_retry_after
from roomcast.webhooks.urls import (
    PushUrlPolicy,
    PushUrlRejected,
    Resolver,
    check_push_url,
    system_resolver,
)

# The first KiB of a response body is kept (attempt history, delivery log).
RESPONSE_EXCERPT_BYTES = 1024
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024
_READ_CHUNK_BYTES = 16 * 1024
_SEND_CHUNK_BYTES = 64 * 1024
# Header names are RFC 9110 tokens; values may not break the line (no obsolete folding either).
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_BAD_HEADER_VALUE = re.compile(r"[\r\n\x00]")
# Framing and routing are ours to set: a caller-supplied copy could desynchronise the request.
_HEADERS_WE_SET = frozenset({"host", "content-length", "transfer-encoding", "connection"})


class _DeadlineSocket:
    """The connected socket as http.client sees it: every blocking call gets only the time left.

    http.client calls ``sendall``, ``makefile`` and ``close`` on its socket. Closing is left to
    ``post_webhook`` (it closes the real socket once it is done), because http.client may close
    the connection while the response is still being read from it.
    """

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock = sock
        self._deadline = deadline

    def _arm(self) -> None:
        remaining_s = self._deadline - time.monotonic()
        if remaining_s <= 0:
            raise TimeoutError("deadline passed")
        self._sock.settimeout(remaining_s)

    def sendall(self, data: bytes | bytearray | memoryview) -> None:
        # socket.sendall's timeout is not a total for TLS sockets; sending in steps makes it one.
        view = memoryview(data).cast("B")
        while view:
            self._arm()
            sent = self._sock.send(view[:_SEND_CHUNK_BYTES])
            view = view[sent:]

    def recv_into(self, buffer: memoryview) -> int:
        self._arm()
        return self._sock.recv_into(buffer)

    def makefile(self, mode: str = "rb") -> io.BufferedReader:
        if mode != "rb":
            raise ValueError(f"only binary reading is supported, not {mode!r}")
        return io.BufferedReader(_DeadlineReader(self))

    def close(self) -> None:
        """Left to ``post_webhook``; see the class docstring."""


class _DeadlineReader(io.RawIOBase):
    def __init__(self, sock: _DeadlineSocket) -> None:
        super().__init__()
        self._sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Buffer) -> int:
        return self._sock.recv_into(memoryview(buffer))


def _remaining_s(deadline: float) -> float:
    remaining_s = deadline - time.monotonic()
    if remaining_s <= 0:
        raise TimeoutError("deadline passed")
    return remaining_s


def _connect_pinned(addresses: list[str], port: int, deadline: float) -> socket.socket:
    """A TCP connection to the first of ``addresses`` (already checked) that accepts one."""
    last_error: OSError | None = None
    for address in dict.fromkeys(addresses):  # in order, without repeats
        # A numeric lookup only turns the literal into a sockaddr (IPv6 scope included): no DNS.
        for family, kind, protocol, _, sockaddr in socket.getaddrinfo(
            address, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST
        ):
            sock = socket.socket(family, kind, protocol)
            try:
                sock.settimeout(_remaining_s(deadline))
                sock.connect(sockaddr)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except TimeoutError:
                sock.close()
                raise
            except OSError as error:
                sock.close()
                last_error = error
                continue
            return sock
    if last_error is None:
        raise OSError("no address to connect to")
    raise last_error


class _PinnedConnection(http.client.HTTPConnection):
    """An HTTP(S) connection to a checked address, with the URL's host name for Host, SNI and TLS."""

    def __init__(
        self,
        host: str,
        port: int,
        addresses: list[str],
        ssl_context: ssl.SSLContext | None,
        deadline: float,
    ) -> None:
        super().__init__(host, port)
        self._addresses = addresses
        self._ssl_context = ssl_context
        self._deadline = deadline
        self.open_socket: socket.socket | None = None

    def connect(self) -> None:
        sock = _connect_pinned(self._addresses, self.port, self._deadline)
        self.open_socket = sock
        if self._ssl_context is not None:
            # The handshake's own timeout is a total (CPython keeps one deadline across its waits).
            sock.settimeout(_remaining_s(self._deadline))
            sock = self._ssl_context.wrap_socket(sock, server_hostname=self.host)
            self.open_socket = sock
        self.sock = _DeadlineSocket(sock, self._deadline)

    def close_all(self) -> None:
        self.close()
        if self.open_socket is not None:
            self.open_socket.close()
            self.open_socket = None


def _ascii_host(hostname: str) -> str:
    try:
        return hostname.encode("idna").decode("ascii")
    except UnicodeError as error:
        raise PushUrlRejected(f"push URL host {hostname!r} is not a valid host name") from error


def _request_target(path: str, query: str) -> str:
    # http.client sends the target as ASCII; a non-ASCII path is percent-encoded (the rest as given).
    target = (path or "/") + (f"?{query}" if query else "")
    return "".join(character if character.isascii() else quote(character) for character in target)


def _outgoing_headers(headers: Mapping[str, str], host_header: str, body: bytes) -> dict[str, str]:
    outgoing: dict[str, str] = {}
    for name, value in headers.items():
        if not _HEADER_NAME.fullmatch(name):
            raise ValueError(f"invalid header name {name!r}")
        if _BAD_HEADER_VALUE.search(value) or not value.isascii():
            raise ValueError(f"invalid value for header {name!r}")
        if name.lower() not in _HEADERS_WE_SET:
            outgoing[name] = value
    outgoing["Host"] = host_header
    outgoing["Content-Length"] = str(len(body))
    outgoing["Connection"] = "close"
    return outgoing


def _excerpt(body: bytes) -> str:
    # The first KiB as text; a character cut off at the end (or invalid UTF-8) becomes U+FFFD.
    return body[:RESPONSE_EXCERPT_BYTES].decode("utf-8", errors="replace")


@functools.cache
def _default_ssl_context() -> ssl.SSLContext:
    # Loading the system CA bundle costs milliseconds; one context serves every delivery.
    return ssl.create_default_context()


def _kept(response: http.client.HTTPResponse, names: tuple[str, ...]) -> dict[str, str]:
    kept = {name.lower(): response.getheader(name) for name in names}
    return {name: value for name, value in kept.items() if value is not None}


def _elapsed_ms(started: float) -> int:
    return round((time.monotonic() - started) * 1000)


def post_webhook(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    timeout_ms: int,
    policy: PushUrlPolicy,
    *,
    resolve: Resolver = system_resolver,
    ssl_context: ssl.SSLContext | None = None,
    max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    clock: Callable[[], float] = time.time,
    method: str = "POST",
    keep_headers: tuple[str, ...] = (),
) -> HttpResult:
    """POST ``body`` to ``url`` once (or ``method``: a transformation's PUT, the validation
    handshake's OPTIONS); see the module docstring for the safety rules. ``keep_headers``: the
    answer's headers to hand back (``HttpResult.headers``, lower-case names).

    Raises PushUrlRejected when the URL may not be called, ValueError for a timeout that is not a
    positive number of milliseconds, a negative ``max_response_bytes`` or a header http.client
    would refuse; every other failure is a result with ``status=None``.
    """
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms <= 0:
        raise ValueError(f"timeout_ms must be a positive number of milliseconds, not {timeout_ms!r}")
    if max_response_bytes < 0:
        raise ValueError("max_response_bytes may not be negative")
    started = time.monotonic()
    # Resolution happens inside the check; it counts against the deadline like everything else.
    deadline = started + timeout_ms / 1000
    addresses = check_push_url(url, policy, resolve)
    parts = urlsplit(url)
    host = _ascii_host(parts.hostname or "")
    scheme = parts.scheme.lower()
    port = parts.port or (443 if scheme == "https" else 80)
    host_in_header = f"[{host}]" if ":" in host else host
    host_header = host_in_header if parts.port is None else f"{host_in_header}:{parts.port}"
    outgoing = _outgoing_headers(headers, host_header, body)
    context = (ssl_context or _default_ssl_context()) if scheme == "https" else None

    connection = _PinnedConnection(host, port, addresses, context, deadline)
    try:
        try:
            connection.connect()
            connection.request(method, _request_target(parts.path, parts.query), body, outgoing)
            response = connection.getresponse()
        except (OSError, http.client.HTTPException) as error:
            return HttpResult(None, None, describe_failure(error, timeout_ms), _elapsed_ms(started), "")
        retry_after_ms = parse_retry_after(response.getheader("Retry-After"), clock())
        chunks: list[bytes] = []
        received_bytes = 0
        body_error: str | None = None
        try:
            while received_bytes < max_response_bytes:
                chunk = response.read1(min(_READ_CHUNK_BYTES, max_response_bytes - received_bytes))
                if not chunk:
                    break
                chunks.append(chunk)
                received_bytes += len(chunk)
        except (OSError, http.client.HTTPException) as error:
            # The status has arrived and stands; the body is only kept for the log.
            body_error = f"{describe_failure(error, timeout_ms)} reading the response body"
        return HttpResult(
            status=response.status,
            retry_after_ms=retry_after_ms,
            error=body_error,
            latency_ms=_elapsed_ms(started),
            response_excerpt=_excerpt(b"".join(chunks)),
            control_header=response.getheader(CONTROL_HEADER),
            headers=_kept(response, keep_headers),
        )
    finally:
        connection.close_all()

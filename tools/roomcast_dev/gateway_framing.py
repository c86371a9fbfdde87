"""Reading HTTP/1.1 requests strictly, with API Gateway HTTP API's limits, for the local gateway.

An ambiguous request is how requests get smuggled: a body is framed by one Content-Length or by
chunked transfer coding, never both; a malformed or ambiguous head, Content-Length or chunk is a
400, an oversized head a 431, an oversized body a 413, and a request that does not arrive whole
within the read timeout a 408 (the gateway answers each and closes the connection).
"""

from __future__ import annotations

import io
import re
import socket
import time
from collections.abc import Buffer
from email.message import Message
from http import HTTPStatus

# API Gateway HTTP API quotas (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html).
MAX_PAYLOAD_BYTES = 10 * 1024 * 1024  # "Payload size: 10 MB"
MAX_HEADER_BYTES = 10240  # "Total combined size of request line and header values: 10240 bytes"
MAX_CHUNK_LINE_BYTES = 1024  # a chunk-size line with its extensions

_TOKEN = rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_REQUEST_LINE = re.compile(_TOKEN + rb" [\x21-\x7e]+ HTTP/[0-9]\.[0-9]\r?\n")
# name:value, no whitespace before the colon, no obs-fold, no CR, LF, NUL or other controls in the value.
_FIELD_LINE = re.compile(_TOKEN + rb":[\t\x20-\x7e\x80-\xff]*\r?\n")
_BLANK_LINES = (b"\r\n", b"\n")
_CHUNK_SIZE_LINE = re.compile(rb"([0-9A-Fa-f]+)(?:[ \t]*;[^\r\n]*)?\r\n")
_DIGITS = re.compile(r"[0-9]+")


class HeadTooLarge(Exception):
    """The request line and header lines passed MAX_HEADER_BYTES."""


class RequestTimeout(Exception):
    """The request did not arrive whole within the read timeout (not a TimeoutError: http.server
    would swallow that and close without an answer)."""


class BodyError(Exception):
    def __init__(self, status: HTTPStatus) -> None:
        super().__init__(status.phrase)
        self.status = status


class _Connection(io.RawIOBase):
    """The client's bytes, one recv at a time, each waiting no longer than the request's deadline
    (or the idle timeout between requests): a client that sends slowly cannot hold a thread."""

    def __init__(self, connection: socket.socket, idle_timeout: float) -> None:
        super().__init__()
        self._connection = connection
        self._idle_timeout = idle_timeout
        self.deadline: float | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Buffer) -> int:
        if self.deadline is None:
            self._connection.settimeout(self._idle_timeout)
            return self._connection.recv_into(memoryview(buffer))
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise RequestTimeout
        self._connection.settimeout(remaining)
        try:
            return self._connection.recv_into(memoryview(buffer))
        except TimeoutError:
            raise RequestTimeout from None

    def stop_deadline(self) -> None:
        self.deadline = None
        self._connection.settimeout(self._idle_timeout)  # also bounds writing the answer


class IncomingRequests(io.BufferedReader):
    """A connection's input, with API Gateway's limits on each request read from it."""

    def __init__(self, connection: socket.socket, idle_timeout: float) -> None:
        self._connection = _Connection(connection, idle_timeout)
        super().__init__(self._connection)
        self._head: list[bytes] | None = None
        self._head_budget = 0

    def await_request(self) -> bool:
        """Wait up to the idle timeout for the next request's first byte; False when none comes."""
        try:
            return bool(self.peek(1))
        except OSError:  # idle timeout, reset
            return False

    def begin_request(self, read_timeout: float) -> None:
        self._connection.deadline = time.monotonic() + read_timeout
        self._head = []
        self._head_budget = MAX_HEADER_BYTES

    def end_head(self) -> list[bytes]:
        """The raw lines of the head (request line, header lines, blank line) just read."""
        head, self._head = self._head or [], None
        return head

    def end_request(self) -> None:
        self._head = None
        self._connection.stop_deadline()

    def readline(self, size: int | None = -1, /) -> bytes:
        if self._head is None:
            return super().readline(size)
        # Within the head, never read a line past what is left of MAX_HEADER_BYTES (+ a blank line).
        limit = self._head_budget + 2
        line = super().readline(limit if size is None or size < 0 else min(size, limit))
        self._head.append(line)
        if line not in _BLANK_LINES:
            self._head_budget -= len(line)
            if self._head_budget < 0:
                raise HeadTooLarge
        return line


def well_formed(head: list[bytes], version: str, headers: Message) -> bool:
    """RFC 9112's syntax, which http.server and the email parser are lenient about (a space before
    the colon hides a header, a bare CR splits one in two, obs-fold continues one), and one Host."""
    request_line, *field_lines = head
    if _REQUEST_LINE.fullmatch(request_line) is None:
        return False
    if any(_FIELD_LINE.fullmatch(line) is None for line in field_lines if line not in _BLANK_LINES):
        return False
    hosts = headers.get_all("host") or []
    return len(hosts) == 1 or (not hosts and version == "HTTP/1.0")


def read_body(headers: Message, version: str, incoming: io.BufferedIOBase) -> bytes:
    """The request body by Content-Length or chunked transfer coding, within API Gateway's limit."""
    codings = [
        coding.strip(" \t").lower()
        for value in headers.get_all("transfer-encoding") or []
        for coding in value.split(",")
    ]
    lengths = headers.get_all("content-length") or []
    if codings:
        # Content-Length beside Transfer-Encoding is the request-smuggling shape: refused, not guessed
        # (RFC 9112 section 6.1); so are other codings, and any transfer coding in HTTP/1.0.
        if lengths or codings != ["chunked"] or version == "HTTP/1.0":
            raise BodyError(HTTPStatus.BAD_REQUEST)
        return _read_chunked(incoming)
    if not lengths:
        return b""
    values = {value.strip(" \t") for value in lengths}
    if len(values) != 1:
        raise BodyError(HTTPStatus.BAD_REQUEST)
    (value,) = values
    if _DIGITS.fullmatch(value) is None:  # ASCII digits only: not "-1", "+1", "0x1", "1_0", "²"
        raise BodyError(HTTPStatus.BAD_REQUEST)
    digits = value.lstrip("0") or "0"
    if len(digits) > len(str(MAX_PAYLOAD_BYTES)) or int(digits) > MAX_PAYLOAD_BYTES:
        raise BodyError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
    length = int(digits)
    body = incoming.read(length)
    if len(body) != length:  # the client closed before sending all of it
        raise BodyError(HTTPStatus.BAD_REQUEST)
    return body


def _read_chunked(incoming: io.BufferedIOBase) -> bytes:
    body = bytearray()
    while True:
        found = _CHUNK_SIZE_LINE.fullmatch(incoming.readline(MAX_CHUNK_LINE_BYTES + 1))
        if found is None:  # not hex digits (no "0x", sign or space), no CRLF, or too long
            raise BodyError(HTTPStatus.BAD_REQUEST)
        size = int(found[1], 16)
        if len(body) + size > MAX_PAYLOAD_BYTES:
            raise BodyError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE)
        if size == 0:
            break
        chunk = incoming.read(size)
        if len(chunk) != size or incoming.read(2) != b"\r\n":
            raise BodyError(HTTPStatus.BAD_REQUEST)
        body += chunk
    # Trailer fields (ignored) until a blank line, within the header limit.
    budget = MAX_HEADER_BYTES
    while (line := incoming.readline(budget + 2)) != b"\r\n":
        budget -= len(line)
        if budget < 0:
            raise BodyError(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE)
        if _FIELD_LINE.fullmatch(line) is None or not line.endswith(b"\r\n"):
            raise BodyError(HTTPStatus.BAD_REQUEST)
    return bytes(body)

"""The webhook receiver `roomcast listen` runs: a standard-library HTTP server on 127.0.0.1.

Handler threads verify each request's Standard Webhooks signature (with the SDK), answer it, and
put what they received on a queue; the command's main thread prints from that queue, so lines
never interleave.
"""

from __future__ import annotations

import json
import queue
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from roomcast_cli.inputs import iso_utc

MAX_BODY_BYTES = 1024 * 1024  # more than a webhook can be (a 128 KiB payload in its envelope)
FORWARD_TIMEOUT_S = 10.0
# (secret, headers, body) -> None when the signature verifies, else why not
Verify = Callable[[str, Mapping[str, str], bytes], str | None]


@dataclass(frozen=True)
class Received:
    """One request the receiver answered: verified (``error`` None) or refused."""

    received_at: str
    headers: Mapping[str, str]
    body: bytes
    answered: int
    error: str | None = None

    def as_json(self) -> dict[str, Any]:
        try:
            parsed: Any = json.loads(self.body)
        except ValueError:
            parsed = self.body.decode("utf-8", "replace")
        return {
            "type": "delivery" if self.error is None else "rejected",
            "receivedAt": self.received_at,
            "webhookId": self.headers.get("webhook-id"),
            "webhookTimestamp": self.headers.get("webhook-timestamp"),
            "answered": self.answered,
            **({"error": self.error} if self.error else {}),
            "body": parsed,
        }


# The answer header a receiver steers its delivery with (abort, disable; docs/delivery-semantics.md).
CONTROL_HEADER = "webhook-delivery"


class Receiver(ThreadingHTTPServer):
    """Answers every POST: 401 when its signature does not verify with ``secret``, else
    ``answer_status`` with ``control`` in a ``webhook-delivery`` header when given (or, with
    ``forward_to``, the status and ``webhook-delivery`` header of the app it is posted on to)."""

    daemon_threads = True
    block_on_close = False

    def __init__(
        self,
        port: int,
        secret: str,
        answer_status: int,
        forward_to: str | None,
        verify: Verify,
        control: str | None = None,
    ) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.verify = verify
        self.secret = secret
        self.answer_status = answer_status
        self.forward_to = forward_to
        self.control = control
        self.received: queue.Queue[Received] = queue.Queue()


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        received_at = iso_utc(datetime.now(UTC))
        try:
            length = min(max(int(self.headers.get("Content-Length") or 0), 0), MAX_BODY_BYTES)
        except ValueError:
            length = 0
        body = self.rfile.read(length) if length else b""
        headers = {name.lower(): value for name, value in self.headers.items()}
        refused = self.server.verify(self.server.secret, headers, body)
        if refused is not None:
            self._answer(401, b'{"error": "signature verification failed"}')
            self.server.received.put(Received(received_at, headers, body, 401, refused))
            return
        status, reply, control = (
            self._forward(headers, body)
            if self.server.forward_to
            else (self.server.answer_status, b"", self.server.control)
        )
        self._answer(status, reply, control)
        self.server.received.put(Received(received_at, headers, body, status))

    def _forward(self, headers: Mapping[str, str], body: bytes) -> tuple[int, bytes, str | None]:
        """Post the delivery on to the user's app; its status (and ``webhook-delivery`` header) is
        roomcast's answer (502 when it is down)."""
        assert self.server.forward_to is not None
        import httpx  # only with --forward-to

        kept = {
            name: value
            for name, value in headers.items()
            if name.startswith("webhook-") or name in {"content-type", "x-correlation-id", "user-agent"}
        }
        try:
            response = httpx.post(
                self.server.forward_to, content=body, headers=kept, timeout=FORWARD_TIMEOUT_S
            )
        except httpx.HTTPError:
            return 502, b"", None
        return response.status_code, response.content[:MAX_BODY_BYTES], response.headers.get(CONTROL_HEADER)

    def _answer(self, status: int, body: bytes, control: str | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if control:
                self.send_header(CONTROL_HEADER, control)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except OSError:  # roomcast gave up waiting (its timeout)
            return

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: listen prints each delivery itself."""


def sdk_verifier() -> Verify:
    """The SDK's verifier, imported when listen starts (the other commands never need it)."""
    from roomcast_client import WebhookVerificationError, verify_webhook

    def verify(secret: str, headers: Mapping[str, str], body: bytes) -> str | None:
        try:
            verify_webhook(secret, headers, body)
        except WebhookVerificationError as error:
            return str(error)
        return None

    return verify

"""The CloudEvents webhook validation handshake (CloudEvents "HTTP 1.1 Web Hooks for Event
Delivery", section 4): before a subscription that asks for it (``validationHandshake``) is stored
or its URL changed, roomcast sends its receiver an ``OPTIONS`` request with
``WebHook-Request-Origin``; the receiver consents by answering 2xx with ``WebHook-Allowed-Origin``
naming that origin (or ``*``), and may set the rate it accepts with ``WebHook-Allowed-Rate``
(requests per minute, or ``*``). The asynchronous form (``WebHook-Request-Callback``) is not offered:
a receiver consents in its answer. The request goes through the same URL checks as a webhook."""

from __future__ import annotations

import re
from dataclasses import dataclass

from roomcast.platform import InvalidRequest
from roomcast.webhooks.http import post_webhook
from roomcast.webhooks.signed_post import PostWebhook
from roomcast.webhooks.urls import PushUrlPolicy, PushUrlRejected

REQUEST_ORIGIN = "WebHook-Request-Origin"
REQUEST_RATE = "WebHook-Request-Rate"
ALLOWED_ORIGIN = "WebHook-Allowed-Origin"
ALLOWED_RATE = "WebHook-Allowed-Rate"
HANDSHAKE_TIMEOUT_MS = 5_000
_RATE = re.compile(r"[1-9][0-9]{0,8}")


@dataclass(frozen=True)
class Consent:
    """The receiver consented; ``rate_per_minute``: the rate it allows (None: no limit given)."""

    rate_per_minute: int | None

    @property
    def rate_per_second(self) -> float | None:
        return None if self.rate_per_minute is None else round(self.rate_per_minute / 60, 6)


class HandshakeRefused(InvalidRequest):
    """422 ``handshake_refused`` naming ``body.pushUrl``: the receiver did not consent."""

    def __init__(self, problem: str) -> None:
        super().__init__(
            f"validation handshake: {problem}",
            code="handshake_refused",
            details=[{"field": "body.pushUrl", "problem": problem, "type": "handshake_refused"}],
        )


def validation_handshake(
    url: str,
    origin: str,
    policy: PushUrlPolicy,
    requested_rate_per_minute: int | None = None,
    post: PostWebhook = post_webhook,
) -> Consent:
    """Ask ``url`` whether ``origin`` may deliver to it; HandshakeRefused says why not."""
    headers = {REQUEST_ORIGIN: origin}
    if requested_rate_per_minute is not None:
        headers[REQUEST_RATE] = str(requested_rate_per_minute)
    try:
        answer = post(
            url, b"", headers, HANDSHAKE_TIMEOUT_MS, policy, method="OPTIONS",
            keep_headers=(ALLOWED_ORIGIN, ALLOWED_RATE),
        )  # fmt: skip
    except PushUrlRejected as refused:
        raise HandshakeRefused(str(refused)) from refused
    if answer.status is None:
        raise HandshakeRefused(f"no answer to OPTIONS ({answer.error})")
    if not 200 <= answer.status < 300:
        raise HandshakeRefused(f"OPTIONS answered HTTP {answer.status}")
    allowed = answer.headers.get(ALLOWED_ORIGIN.lower(), "").strip()
    if allowed not in (origin, "*"):
        seen = f"{allowed[:100]!r}" if allowed else "no"
        raise HandshakeRefused(f"the receiver answered {seen} {ALLOWED_ORIGIN}, not {origin!r} or '*'")
    return Consent(_rate(answer.headers.get(ALLOWED_RATE.lower())))


def _rate(value: str | None) -> int | None:
    if value is None or value.strip() == "*":
        return None
    if not _RATE.fullmatch(value.strip()):
        raise HandshakeRefused(
            f"{ALLOWED_RATE} {value[:40]!r} is neither a number of requests a minute nor '*'"
        )
    return int(value.strip())

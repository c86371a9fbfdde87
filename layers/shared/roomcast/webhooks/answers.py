"""What a webhook answer means: its outcome class, 410 Gone, Retry-After and the receiver's
``webhook-delivery`` header (docs/delivery-semantics.md, "Outcome of one webhook attempt" and
"What a receiver can say"). Pure: no sockets here (the POST itself is ``roomcast.webhooks.http``)."""

from __future__ import annotations

import email.utils
import http.client
import math
import re
import ssl
from dataclasses import dataclass, field
from datetime import UTC
from decimal import Decimal
from enum import StrEnum

MAX_RETRY_AFTER_MS = 7 * 24 * 60 * 60 * 1000  # a week: anything longer is a mistake, not a plan
_RETRY_AFTER_SECONDS = re.compile(r"\d+(\.\d+)?")


@dataclass(frozen=True)
class HttpResult:
    """What one POST came to.

    ``status`` is None when no HTTP answer arrived (network error, TLS failure, timeout);
    ``error`` then says why in a few words. ``error`` can also accompany a status when the
    body was cut short (e.g. a timeout while reading it): the status still stands.
    """

    status: int | None
    retry_after_ms: int | None
    error: str | None
    latency_ms: int
    response_excerpt: str
    # The receiver's ``webhook-delivery`` header as it came (None: none).
    control_header: str | None = None
    # The answer's headers a caller asked to keep (lower-case names; the validation handshake's).
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def control(self) -> DeliveryControl | None:
        """What the receiver asks (None: nothing, or a value roomcast does not know)."""
        return parse_delivery_control(self.control_header)[0]

    @property
    def unknown_control(self) -> str | None:
        """A ``webhook-delivery`` value roomcast does not know (to be logged), cut short."""
        return parse_delivery_control(self.control_header)[1]


class DeliveryControl(StrEnum):
    """What a receiver may ask in its answer's ``webhook-delivery`` header."""

    ABORT = "abort"  # end this message for this subscription: no more attempts (status aborted)
    DISABLE = "disable"  # disable the subscription, as an automatic disable does


CONTROL_HEADER = "webhook-delivery"
_MAX_CONTROL_TEXT = 64


def parse_delivery_control(value: str | None) -> tuple[DeliveryControl | None, str | None]:
    """The ``webhook-delivery`` header: (what it asks, or None; the value when it is not one roomcast
    knows, cut to 64 characters, or None). Case and surrounding spaces do not matter."""
    if value is None or not value.strip():
        return None, None
    text = value.strip().lower()
    try:
        return DeliveryControl(text), None
    except ValueError:
        return None, value.strip()[:_MAX_CONTROL_TEXT]


class AnswerClass(StrEnum):
    DELIVERED = "delivered"
    RETRYABLE = "retryable"
    PERMANENT = "permanent"


def classify(status: int | None) -> AnswerClass:
    """The PUSH outcome class of an answer (docs/delivery-semantics.md, "Outcome of one webhook attempt")."""
    if status is None:
        return AnswerClass.RETRYABLE  # network error or timeout
    if 200 <= status < 300:
        return AnswerClass.DELIVERED
    if 400 <= status < 500 and status not in (408, 425, 429):
        return AnswerClass.PERMANENT
    # 1xx (not a final answer), 3xx (redirects are not followed), 408, 425, 429, 5xx and
    # anything non-standard above 599 are worth trying again.
    return AnswerClass.RETRYABLE


def is_gone(status: int | None) -> bool:
    """410 Gone: the subscriber says the endpoint is gone for good (the subscription is disabled)."""
    return status == 410


def parse_retry_after(value: str | None, now_s: float) -> int | None:
    """``Retry-After`` (delay-seconds or an HTTP-date) as milliseconds from ``now_s``.

    None when absent or unreadable; a date in the past is 0; anything beyond a week is a week.
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    if _RETRY_AFTER_SECONDS.fullmatch(text):
        if len(text.partition(".")[0]) > 12:  # far beyond the cap; no need to do the arithmetic
            return MAX_RETRY_AFTER_MS
        return min(math.ceil(Decimal(text) * 1000), MAX_RETRY_AFTER_MS)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000" or no zone: HTTP dates are GMT
        when = when.replace(tzinfo=UTC)
    try:
        delay_ms = math.ceil((when.timestamp() - now_s) * 1000)
    except (OverflowError, ValueError):
        return None
    return min(max(delay_ms, 0), MAX_RETRY_AFTER_MS)


def describe_failure(error: BaseException, timeout_ms: int) -> str:
    """A few words for the delivery log on why a request got no (whole) answer."""
    if isinstance(error, TimeoutError):
        return f"timeout after {timeout_ms} ms"
    if isinstance(error, ssl.SSLCertVerificationError):
        return f"TLS: certificate verify failed: {error.verify_message}"
    if isinstance(error, ssl.SSLError):
        return f"TLS: {error.reason or error}"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, ConnectionResetError):
        return "connection reset"
    if isinstance(error, http.client.RemoteDisconnected):
        return "connection closed without a response"
    if isinstance(error, http.client.IncompleteRead):
        return "connection closed before the whole response"
    if isinstance(error, http.client.HTTPException):
        return f"bad HTTP response: {type(error).__name__}"
    if isinstance(error, OSError) and error.strerror:
        return f"network error: {error.strerror}"
    return f"network error: {error}"

"""PULL receipts: the opaque token a consumer gets with each message and gives back to ack/nack.

It carries the SQS receipt handle and what ack/nack need without a database read (message id,
the attempt it was handed out at, the expiry). A receipt names its subscription, so one from
another subscription (or another tenant's) is refused before anything changes.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass

from roomcast.domain.clock import iso_from_ms
from roomcast.domain.messages import AttemptEvent, AttemptRecord, Delivery, DeliveryStatus, Note
from roomcast.domain.models import SubscriptionType
from roomcast.errors import InvalidRequest

RECEIPT_PREFIX = "rcpt_"
MAX_RECEIPT_LENGTH = 4096


@dataclass(frozen=True)
class Receipt:
    subscription_id: str
    message_id: str
    attempt: int
    handle: str
    expires_at_ms: int | None
    correlation_id: str = ""
    room_id: str = ""
    published_at: str = ""
    pulled_at_ms: int | None = None  # when it was handed out (for the attempt history)

    def record(
        self,
        tenant_id: str,
        status: DeliveryStatus,
        error: Note = None,
        next_at: Note = None,
        *,
        answered: tuple[AttemptEvent, int] | None = None,
    ) -> Delivery:
        """The message's record as of this receipt's attempt (which counts as made). ``answered``:
        the consumer's answer (ack or nack) and its time, added to the history after the hand-out."""
        ids = (self.message_id, tenant_id, self.subscription_id)
        history: tuple[AttemptRecord, ...] = ()
        if answered is not None:
            event, at_ms = answered
            pulled = self.pulled_at_ms if self.pulled_at_ms is not None else at_ms
            history = (
                AttemptRecord(self.attempt, AttemptEvent.PULL, iso_from_ms(pulled)),
                AttemptRecord(self.attempt, event, iso_from_ms(at_ms), max(0, at_ms - pulled), error=error),
            )
        return Delivery(
            *ids, SubscriptionType.PULL, status, self.attempt + 1, error, next_at, history=history
        )

    def encode(self) -> str:
        raw: dict[str, object] = {
            "s": self.subscription_id,
            "m": self.message_id,
            "a": self.attempt,
            "h": self.handle,
            "c": self.correlation_id,
            "r": self.room_id,
            "p": self.published_at,
        }
        if self.expires_at_ms is not None:
            raw["x"] = self.expires_at_ms
        if self.pulled_at_ms is not None:
            raw["t"] = self.pulled_at_ms
        text = json.dumps(raw, separators=(",", ":")).encode()
        return RECEIPT_PREFIX + base64.urlsafe_b64encode(text).decode().rstrip("=")


def _invalid(index: int, problem: str) -> InvalidRequest:
    return InvalidRequest(
        f"receipts[{index}]: {problem}",
        code="invalid_receipt",
        http_status=400,
        details=[{"field": f"body.receipts.{index}", "problem": problem, "type": "invalid_receipt"}],
    )


def decode_receipt(token: str, subscription_id: str, index: int = 0) -> Receipt:
    """The receipt in ``token``; InvalidRequest (400) if malformed or of another subscription."""
    if not token.startswith(RECEIPT_PREFIX) or len(token) > MAX_RECEIPT_LENGTH:
        raise _invalid(index, "not a roomcast receipt")
    encoded = token[len(RECEIPT_PREFIX) :]
    try:
        raw = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
        receipt = Receipt(
            subscription_id=raw["s"],
            message_id=raw["m"],
            attempt=raw["a"],
            handle=raw["h"],
            expires_at_ms=raw.get("x"),
            correlation_id=raw.get("c", ""),
            room_id=raw.get("r", ""),
            published_at=raw.get("p", ""),
            pulled_at_ms=raw.get("t"),
        )
    except (ValueError, binascii.Error, KeyError, TypeError) as error:
        raise _invalid(index, "not a roomcast receipt") from error
    valid_types = (
        isinstance(receipt.subscription_id, str)
        and isinstance(receipt.message_id, str)
        and isinstance(receipt.attempt, int)
        and not isinstance(receipt.attempt, bool)
        and receipt.attempt >= 0
        and isinstance(receipt.handle, str)
        and 0 < len(receipt.handle) <= MAX_RECEIPT_LENGTH
        and (receipt.expires_at_ms is None or isinstance(receipt.expires_at_ms, int))
        and (receipt.pulled_at_ms is None or type(receipt.pulled_at_ms) is int)
        and isinstance(receipt.correlation_id, str)
        and isinstance(receipt.room_id, str)
        and isinstance(receipt.published_at, str)
    )
    if not valid_types:
        raise _invalid(index, "not a roomcast receipt")
    if receipt.subscription_id != subscription_id:
        raise _invalid(index, "belongs to another subscription")
    return receipt

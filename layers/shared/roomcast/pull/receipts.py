"""PULL receipts: the opaque token a consumer gets with each message and gives back to ack/nack.

It carries the SQS receipt handle and what ack/nack need without a database read (message id,
room, the attempt it was handed out at, the expiry). Everything in it would be trusted by ack and
nack, so it is signed: an HMAC-SHA256 over the tenant, the room and the fields, with a key only
the stack holds (docs/decisions/0018-signed-receipts-and-outbox.md). A receipt whose fields were
edited, made up, or given back by another tenant, room or subscription is refused before anything
changes.

``rcpt_`` + base64url(compact JSON of the fields) + ``.`` + base64url(HMAC).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import json
from dataclasses import dataclass

from roomcast.catalog import SubscriptionType
from roomcast.messages import Attempt, AttemptEvent, Delivery, DeliveryStatus, KeySlot, Note
from roomcast.platform import InvalidRequest, iso_from_ms, limits, ms_from_iso

RECEIPT_PREFIX = "rcpt_"
MAX_RECEIPT_LENGTH = 4096
# What a receipt may carry, far above anything roomcast hands out: a receipt is signed, so these
# bound only what a (buggy) signer could have put in, never what a client can.
_MAX_ID_LENGTH = 64
_MAX_TEXT_LENGTH = 256
_MAX_EPOCH_MS = 2**53
# The key must be at least as long as the hash's output to give HMAC-SHA256 its full strength.
MIN_KEY_BYTES = 32


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
    # An ordered delivery's key and its message's publishing (roomcast.ordering.model).
    ordering_key: str | None = None
    ordering_number: int | None = None
    # A scheduled message's deliverAt (None: first due at its publishing): its records carry it.
    sent_from_ms: int | None = None

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
        history: tuple[Attempt, ...] = ()
        if answered is not None:
            event, at_ms = answered
            pulled = self.pulled_at_ms if self.pulled_at_ms is not None else at_ms
            history = (
                Attempt(self.attempt, AttemptEvent.PULL, iso_from_ms(pulled)),
                Attempt(self.attempt, event, iso_from_ms(at_ms), max(0, at_ms - pulled), error=error),
            )
        ordering = None
        if self.ordering_key is not None and self.ordering_number is not None:
            ordering = KeySlot(self.room_id, self.ordering_key, self.ordering_number)
        sent_from_ms = self.sent_from_ms
        if sent_from_ms is None and self.published_at:
            with contextlib.suppress(ValueError):  # signed by this stack: roomcast's own ISO-8601
                sent_from_ms = ms_from_iso(self.published_at)
        return Delivery(
            *ids,
            SubscriptionType.PULL,
            status,
            self.attempt + 1,
            error,
            next_at,
            history=history,
            ordering=ordering,
            room_id=self.room_id or None,
            sent_from_ms=sent_from_ms,
        )


def _invalid(where: tuple[str, int], problem: str) -> InvalidRequest:
    """400 for the receipt at ``where``: the request's field holding it, and its index there."""
    field, index = where
    return InvalidRequest(
        f"{field}[{index}]: {problem}",
        code="invalid_receipt",
        http_status=400,
        details=[{"field": f"body.{field}.{index}", "problem": problem, "type": "invalid_receipt"}],
    )


class ReceiptSigner:
    """Makes and checks the receipts of one stack (one key)."""

    def __init__(self, key: bytes) -> None:
        if len(key) < MIN_KEY_BYTES:
            raise ValueError(f"a receipt key needs at least {MIN_KEY_BYTES} bytes, not {len(key)}")
        self._key = key

    def _signature(self, tenant_id: str, fields: str) -> str:
        # The tenant is signed, not carried: a receipt given back by another tenant never verifies.
        message = f"v1\n{tenant_id}\n{fields}".encode()
        digest = hmac.new(self._key, message, hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).decode().rstrip("=")

    def encode(self, receipt: Receipt, tenant_id: str) -> str:
        raw: dict[str, object] = {
            "s": receipt.subscription_id,
            "m": receipt.message_id,
            "a": receipt.attempt,
            "h": receipt.handle,
            "c": receipt.correlation_id,
            "r": receipt.room_id,
            "p": receipt.published_at,
        }
        if receipt.expires_at_ms is not None:
            raw["x"] = receipt.expires_at_ms
        if receipt.pulled_at_ms is not None:
            raw["t"] = receipt.pulled_at_ms
        if receipt.ordering_key is not None:
            raw["k"], raw["n"] = receipt.ordering_key, receipt.ordering_number
        if receipt.sent_from_ms is not None:
            raw["f"] = receipt.sent_from_ms
        text = json.dumps(raw, separators=(",", ":")).encode()
        fields = base64.urlsafe_b64encode(text).decode().rstrip("=")
        return f"{RECEIPT_PREFIX}{fields}.{self._signature(tenant_id, fields)}"

    def decode(
        self,
        token: str,
        tenant_id: str,
        room_id: str,
        subscription_id: str,
        index: int = 0,
        field: str = "receipts",
    ) -> Receipt:
        """The receipt in ``token``, given back on ``subscription_id`` of ``room_id``; InvalidRequest
        (400, naming ``field`` and ``index``) if it is malformed, not signed by this stack for this
        tenant, or of another subscription or room. Nothing in it is used before all of that is checked."""
        where = (field, index)
        if not token.startswith(RECEIPT_PREFIX) or len(token) > MAX_RECEIPT_LENGTH:
            raise _invalid(where, "not a roomcast receipt")
        fields, _, signature = token[len(RECEIPT_PREFIX) :].partition(".")
        receipt = _parse(fields, where)
        if receipt.subscription_id != subscription_id or receipt.room_id != room_id:
            raise _invalid(where, "belongs to another subscription")
        if not hmac.compare_digest(signature.encode(), self._signature(tenant_id, fields).encode()):
            raise _invalid(where, "not a roomcast receipt")
        return receipt


def _parse(fields: str, where: tuple[str, int]) -> Receipt:
    """The fields of a receipt, their types and bounds checked (not yet their signature)."""
    try:
        raw = json.loads(base64.urlsafe_b64decode(fields + "=" * (-len(fields) % 4)))
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
            ordering_key=raw.get("k"),
            ordering_number=raw.get("n"),
            sent_from_ms=raw.get("f"),
        )
    except (ValueError, binascii.Error, KeyError, TypeError, AttributeError) as error:
        raise _invalid(where, "not a roomcast receipt") from error
    if not _well_formed(receipt):
        raise _invalid(where, "not a roomcast receipt")
    return receipt


def _is_int(value: object, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


def _is_text(value: object, low: int, high: int) -> bool:
    return isinstance(value, str) and low <= len(value) <= high


def _well_formed(receipt: Receipt) -> bool:
    return (
        _is_text(receipt.subscription_id, 1, _MAX_ID_LENGTH)
        and _is_text(receipt.message_id, 1, _MAX_ID_LENGTH)
        and _is_text(receipt.room_id, 1, _MAX_ID_LENGTH)
        and _is_int(receipt.attempt, 0, limits.MAX_DELIVERY_ATTEMPTS + 1)
        and _is_text(receipt.handle, 1, MAX_RECEIPT_LENGTH)
        and (receipt.expires_at_ms is None or _is_int(receipt.expires_at_ms, 0, _MAX_EPOCH_MS))
        and (receipt.pulled_at_ms is None or _is_int(receipt.pulled_at_ms, 0, _MAX_EPOCH_MS))
        and _is_text(receipt.correlation_id, 0, _MAX_TEXT_LENGTH)
        and _is_text(receipt.published_at, 0, _MAX_TEXT_LENGTH)
        and (receipt.ordering_key is None or _is_text(receipt.ordering_key, 1, _MAX_TEXT_LENGTH))
        and (receipt.ordering_number is None or _is_int(receipt.ordering_number, 0, _MAX_EPOCH_MS))
        and (receipt.sent_from_ms is None or _is_int(receipt.sent_from_ms, 0, _MAX_EPOCH_MS))
    )

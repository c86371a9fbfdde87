"""PULL receipts: signed, bound to tenant, room and subscription; nothing else decodes."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from roomcast.platform.errors import InvalidRequest
from roomcast.pull.receipts import RECEIPT_PREFIX, Receipt, ReceiptSigner

pytestmark = pytest.mark.security  # the security regression suite: make test-security

SIGNER = ReceiptSigner(b"k" * 32)
TENANT, ROOM, SUBSCRIPTION = "tenant-a", "room_1", "sub_1"
RECEIPT = Receipt(
    SUBSCRIPTION, "msg_1", 2, "sqs-handle", 1_800_000_000_000, "order-1", ROOM, "2026-11-23T10:00:00.000Z", 17
)


def fields_of(token: str) -> dict[str, Any]:
    encoded = token.removeprefix(RECEIPT_PREFIX).partition(".")[0]
    fields: dict[str, Any] = json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
    return fields


def with_fields(token: str, **changes: Any) -> str:
    """The token with some fields edited, keeping its (now wrong) signature."""
    signature = token.partition(".")[2]
    text = json.dumps({**fields_of(token), **changes}, separators=(",", ":")).encode()
    return RECEIPT_PREFIX + base64.urlsafe_b64encode(text).decode().rstrip("=") + "." + signature


def refusal(
    token: str, tenant_id: str = TENANT, room_id: str = ROOM, subscription_id: str = SUBSCRIPTION
) -> str:
    with pytest.raises(InvalidRequest) as raised:
        SIGNER.decode(token, tenant_id, room_id, subscription_id, 3)
    assert raised.value.http_status == 400
    assert raised.value.code == "invalid_receipt"
    return str(raised.value)


def test_a_receipt_decodes_to_what_was_signed() -> None:
    assert SIGNER.decode(SIGNER.encode(RECEIPT, TENANT), TENANT, ROOM, SUBSCRIPTION) == RECEIPT


@pytest.mark.parametrize(
    "changes",
    [
        {"m": "msg_of_another_room"},
        {"a": 50},
        {"a": 10**40},
        {"m": "m" * 2100},
        {"h": "another-handle"},
        {"x": 1},
        {"t": 0},
        {"c": "other"},
        {"p": ""},
    ],
    ids=lambda c: next(iter(c)),
)
def test_an_edited_field_breaks_the_signature(changes: dict[str, Any]) -> None:
    assert "receipts[3]: not a roomcast receipt" in refusal(
        with_fields(SIGNER.encode(RECEIPT, TENANT), **changes)
    )


def test_a_receipt_of_another_tenant_does_not_verify() -> None:
    assert "not a roomcast receipt" in refusal(SIGNER.encode(RECEIPT, "tenant-b"))


@pytest.mark.parametrize(("room_id", "subscription_id"), [(ROOM, "sub_2"), ("room_2", SUBSCRIPTION)])
def test_a_receipt_given_back_on_another_room_or_subscription_is_refused(
    room_id: str, subscription_id: str
) -> None:
    token = SIGNER.encode(RECEIPT, TENANT)
    assert "belongs to another subscription" in refusal(
        token, room_id=room_id, subscription_id=subscription_id
    )


def test_a_receipt_signed_with_another_key_does_not_verify() -> None:
    assert "not a roomcast receipt" in refusal(ReceiptSigner(b"x" * 32).encode(RECEIPT, TENANT))


@pytest.mark.parametrize("token", ["", "rcpt_", "rcpt_.", "rcpt_e30", "rcpt_e30.", "rcpt_%%%.x", "garbage"])
def test_malformed_tokens_are_refused(token: str) -> None:
    assert "not a roomcast receipt" in refusal(token)


def test_a_short_key_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 32 bytes"):
        ReceiptSigner(b"short")


@settings(max_examples=300)
@given(st.text(max_size=300))
def test_any_text_is_refused_with_a_400_and_nothing_else(token: str) -> None:
    refusal(token)


@settings(max_examples=300)
@given(
    st.dictionaries(
        st.sampled_from("smahxcrpt"),
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats()
        | st.text(max_size=20)
        | st.lists(st.integers()),
    ),
    st.text(alphabet="ABCDEFabcdef0123456789-_", max_size=50),
)
def test_any_fields_with_any_signature_are_refused(fields: dict[str, Any], signature: str) -> None:
    text = json.dumps(fields).encode()
    refusal(RECEIPT_PREFIX + base64.urlsafe_b64encode(text).decode().rstrip("=") + "." + signature)


@settings(max_examples=200)
@given(st.integers(min_value=0), st.integers(min_value=0, max_value=255))
def test_any_one_byte_changed_in_a_receipt_makes_it_refused(position: int, replacement: int) -> None:
    token = SIGNER.encode(RECEIPT, TENANT)
    index = position % len(token)
    edited = token[:index] + chr(replacement) + token[index + 1 :]
    if edited != token:
        refusal(edited)

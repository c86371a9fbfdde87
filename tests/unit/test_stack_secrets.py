"""The stack's keys: the receipt key read from Secrets Manager once, the cursor key derived from it."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any, cast

import pytest

from roomcast.platform.secrets import CURSOR_KEY_LABEL, MissingKey, StackSecrets

SECRET = "a" * 64  # what GenerateSecretString makes: 64 letters and digits


class SecretsManagerStub:
    def __init__(self) -> None:
        self.reads: list[str] = []

    def get_secret_value(self, SecretId: str) -> dict[str, Any]:
        self.reads.append(SecretId)
        return {"SecretString": SECRET}


def secrets_with(stub: SecretsManagerStub) -> StackSecrets:
    return StackSecrets("ReceiptSigningKey", client=cast(Any, stub))


def test_the_cursor_key_is_an_hmac_of_the_receipt_key_under_its_own_label() -> None:
    # Given
    secrets = secrets_with(SecretsManagerStub())

    # When
    cursor_key = secrets.cursor_key()

    # Then: 32 bytes, never the receipt key itself
    assert cursor_key == hmac.new(SECRET.encode(), b"roomcast cursor key v1", hashlib.sha256).digest()
    assert CURSOR_KEY_LABEL == b"roomcast cursor key v1"
    assert len(cursor_key) == 32
    assert cursor_key != secrets.receipt_key()


def test_the_secret_is_read_once_for_both_keys() -> None:
    # Given
    stub = SecretsManagerStub()
    secrets = secrets_with(stub)

    # When
    secrets.cursor_key()
    secrets.cursor_key()
    secrets.receipt_key()

    # Then
    assert stub.reads == ["ReceiptSigningKey"]


def test_without_the_secret_no_cursor_can_be_sealed() -> None:
    with pytest.raises(MissingKey, match="list cursors cannot be sealed"):
        StackSecrets("").cursor_key()

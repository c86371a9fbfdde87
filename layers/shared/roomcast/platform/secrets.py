"""Keys the stack owns, kept in AWS Secrets Manager (locally, in moto's), read once per container."""

from __future__ import annotations

import hashlib
import hmac
from typing import TYPE_CHECKING, Final

from roomcast.platform.aws import secretsmanager_client

if TYPE_CHECKING:
    from mypy_boto3_secretsmanager import SecretsManagerClient

# Domain separation: the cursor key is derived from the receipt key, so one secret serves both
# and a MAC made for one purpose is never valid for the other.
CURSOR_KEY_LABEL: Final = b"roomcast cursor key v1"


class MissingKey(RuntimeError):
    """The function was deployed without the secret it needs: a deployment error."""


class StackSecrets:
    def __init__(self, receipt_key_secret: str, client: SecretsManagerClient | None = None) -> None:
        self._receipt_key_secret = receipt_key_secret
        self._explicit_client = client
        self._receipt_key: bytes | None = None

    def receipt_key(self) -> bytes:
        """The key that signs PULL receipts (RECEIPT_KEY_SECRET); read once, then kept."""
        return self._read_receipt_key("PULL receipts cannot be signed")

    def cursor_key(self) -> bytes:
        """The key that seals list cursors: HMAC-SHA256 of the receipt key over a label of its own
        (docs/decisions/0027-sealed-list-cursors.md). Rotating the secret changes both."""
        receipt_key = self._read_receipt_key("list cursors cannot be sealed")
        return hmac.new(receipt_key, CURSOR_KEY_LABEL, hashlib.sha256).digest()

    def _read_receipt_key(self, consequence: str) -> bytes:
        if self._receipt_key is None:
            if not self._receipt_key_secret:
                raise MissingKey(f"RECEIPT_KEY_SECRET is not set: {consequence}")
            client = self._explicit_client or secretsmanager_client()
            secret = client.get_secret_value(SecretId=self._receipt_key_secret)["SecretString"]
            self._receipt_key = secret.encode("utf-8")
        return self._receipt_key

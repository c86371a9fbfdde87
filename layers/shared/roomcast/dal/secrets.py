"""Keys the stack owns, kept in AWS Secrets Manager (locally, in moto's), read once per container."""

from __future__ import annotations

from typing import TYPE_CHECKING

from roomcast.dal.aws import secretsmanager_client

if TYPE_CHECKING:
    from mypy_boto3_secretsmanager import SecretsManagerClient


class MissingKey(RuntimeError):
    """The function was deployed without the secret it needs: a deployment error."""


class StackSecrets:
    def __init__(self, receipt_key_secret: str, client: SecretsManagerClient | None = None) -> None:
        self._receipt_key_secret = receipt_key_secret
        self._explicit_client = client
        self._receipt_key: bytes | None = None

    def receipt_key(self) -> bytes:
        """The key that signs PULL receipts (RECEIPT_KEY_SECRET); read once, then kept."""
        if self._receipt_key is None:
            if not self._receipt_key_secret:
                raise MissingKey("RECEIPT_KEY_SECRET is not set: PULL receipts cannot be signed")
            client = self._explicit_client or secretsmanager_client()
            secret = client.get_secret_value(SecretId=self._receipt_key_secret)["SecretString"]
            self._receipt_key = secret.encode("utf-8")
        return self._receipt_key

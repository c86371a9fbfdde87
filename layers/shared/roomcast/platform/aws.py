"""boto3 clients, created lazily on first use and cached (after configuration and test mocks exist).

boto3 finds moto locally and AWS in the cloud the same way: through its standard
configuration (``AWS_ENDPOINT_URL``, region, credentials). Nothing here knows which it is.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_firehose import FirehoseClient
    from mypy_boto3_scheduler import EventBridgeSchedulerClient
    from mypy_boto3_secretsmanager import SecretsManagerClient
    from mypy_boto3_sqs import SQSClient


MAX_POOL_CONNECTIONS = 32


def client_config() -> Any:
    from botocore.config import Config

    # Standard retry mode backs off on throttling; keep connect/read timeouts well under the API's 30 s.
    # Connections: as many as the widest set of calls a function makes side by side (a batch
    # publish's ordering numbers, roomcast.publishing.publisher); botocore keeps 10 by default.
    return Config(
        retries={"mode": "standard", "max_attempts": 3},
        connect_timeout=3,
        read_timeout=10,
        max_pool_connections=MAX_POOL_CONNECTIONS,
    )


@cache
def _client(service: str) -> Any:
    import boto3

    return boto3.client(service, config=client_config())  # type: ignore[call-overload]  # typed by its callers below


def dynamodb_client() -> DynamoDBClient:
    return cast("DynamoDBClient", _client("dynamodb"))


def sqs_client() -> SQSClient:
    return cast("SQSClient", _client("sqs"))


def firehose_client() -> FirehoseClient:
    return cast("FirehoseClient", _client("firehose"))


def scheduler_client() -> EventBridgeSchedulerClient:
    return cast("EventBridgeSchedulerClient", _client("scheduler"))


def sns_client() -> Any:
    return _client("sns")


def secretsmanager_client() -> SecretsManagerClient:
    return cast("SecretsManagerClient", _client("secretsmanager"))


class SqsAccess:
    """Base of the SQS data-access classes: a client, the shared lazy one unless a test or tool
    passes its own."""

    def __init__(self, client: SQSClient | None = None) -> None:
        self._explicit_sqs_client = client

    @property
    def _sqs(self) -> SQSClient:
        return self._explicit_sqs_client or sqs_client()


def reset_clients() -> None:
    """Forget cached clients (tests that change the endpoint between cases)."""
    _client.cache_clear()

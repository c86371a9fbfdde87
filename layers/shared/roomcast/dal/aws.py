"""boto3 clients, created lazily on first use and cached (after configuration and test mocks exist).

boto3 finds moto locally and AWS in the cloud the same way: through its standard
configuration (``AWS_ENDPOINT_URL``, region, credentials). Nothing here knows which it is.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_firehose import FirehoseClient
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_secretsmanager import SecretsManagerClient
    from mypy_boto3_sqs import SQSClient


def client_config() -> Any:
    from botocore.config import Config

    # Standard retry mode backs off on throttling; keep connect/read timeouts well under the API's 30 s.
    return Config(retries={"mode": "standard", "max_attempts": 3}, connect_timeout=3, read_timeout=10)


@cache
def dynamodb_client() -> DynamoDBClient:
    import boto3

    return boto3.client("dynamodb", config=client_config())


@cache
def sqs_client() -> SQSClient:
    import boto3

    return boto3.client("sqs", config=client_config())


@cache
def s3_client() -> S3Client:
    import boto3

    return boto3.client("s3", config=client_config())


@cache
def firehose_client() -> FirehoseClient:
    import boto3

    return boto3.client("firehose", config=client_config())


@cache
def secretsmanager_client() -> SecretsManagerClient:
    import boto3

    return boto3.client("secretsmanager", config=client_config())


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
    dynamodb_client.cache_clear()
    sqs_client.cache_clear()
    s3_client.cache_clear()
    firehose_client.cache_clear()
    secretsmanager_client.cache_clear()

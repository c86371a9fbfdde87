"""The emulator as AWS: the account and region the local stack runs in, and how code reaches it
(boto3 clients, the environment boto3 reads, queue URLs)."""

from __future__ import annotations

import functools
from typing import Any

LOCAL_ACCOUNT_ID = "123456789012"  # moto's default account
LOCAL_REGION = "us-east-1"


def aws_environment(endpoint_url: str) -> dict[str, str]:
    """What boto3 needs to talk to the emulator, as it would to AWS (dummy credentials)."""
    return {
        "AWS_ENDPOINT_URL": endpoint_url,
        "AWS_DEFAULT_REGION": LOCAL_REGION,
        "AWS_REGION": LOCAL_REGION,
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",  # the emulator takes any credentials
        "AWS_SESSION_TOKEN": "local",
    }


@functools.cache
def aws_client(service: str, endpoint_url: str) -> Any:
    """A boto3 client for the emulator, independent of this process's environment; one per
    service and endpoint in a process (a client is thread-safe, and making one costs ~10 ms, most
    of it loading the CA bundle into an SSL context: an e2e reset made six)."""
    import boto3

    return boto3.client(
        service,  # type: ignore[call-overload]
        endpoint_url=endpoint_url,
        region_name=LOCAL_REGION,
        aws_access_key_id="local",
        aws_secret_access_key="local",  # noqa: S106 - the emulator takes any credentials
    )


def queue_url_for(endpoint_url: str, queue_name: str) -> str:
    return f"{endpoint_url}/{LOCAL_ACCOUNT_ID}/{queue_name}"

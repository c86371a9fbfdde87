"""A second account on the local stack's emulator, playing a customer whose SQS queues, event buses
and SNS topics roomcast delivers into (AWS destinations; docs/aws-destinations.md).

``customer_client(service, endpoint_url)`` acts in that account (moto's ``x-moto-account-id``
header); ``delivery_role`` makes there the role a customer makes, trusting roomcast's account with
an external ID. The emulator checks that trust on every AssumeRole (roomcast_dev.moto_trust)."""

from __future__ import annotations

import json
from typing import Any

from roomcast_dev.local_aws import LOCAL_ACCOUNT_ID, LOCAL_REGION

CUSTOMER_ACCOUNT_ID = "111111111111"


def customer_client(service: str, endpoint_url: str) -> Any:
    """A client acting as the customer's administrator (its own: the shared ones act as roomcast)."""
    import boto3

    client = boto3.client(  # type: ignore[call-overload]  # any service the test asks for
        service,
        endpoint_url=endpoint_url,
        region_name=LOCAL_REGION,
        aws_access_key_id="customer",
        aws_secret_access_key="customer",  # noqa: S106 - the emulator takes any credentials
    )

    def in_customer_account(request: Any, **_: Any) -> None:
        request.headers["x-moto-account-id"] = CUSTOMER_ACCOUNT_ID

    client.meta.events.register("before-sign.*.*", in_customer_account)
    return client


def trust_policy(external_id: str, trusted: str = f"arn:aws:iam::{LOCAL_ACCOUNT_ID}:root") -> dict[str, Any]:
    """The trust policy a customer pastes (docs/aws-destinations.md), trusting ``trusted``."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"AWS": trusted},
                "Action": "sts:AssumeRole",
                "Condition": {"StringEquals": {"sts:ExternalId": external_id}},
            }
        ],
    }


def delivery_role(endpoint_url: str, name: str, external_id: str) -> str:
    """The customer's role roomcast assumes (its ARN)."""
    iam = customer_client("iam", endpoint_url)
    role = iam.create_role(RoleName=name, AssumeRolePolicyDocument=json.dumps(trust_policy(external_id)))
    return str(role["Role"]["Arn"])

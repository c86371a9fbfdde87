"""Creating the template's resources in the emulator, as CloudFormation would on deployment: the
DynamoDB tables (with their streams and TTL), the SQS queues (dead-letter queues first), the S3
buckets, the Secrets Manager secrets, the Firehose delivery streams and the EventBridge Scheduler
groups."""

from __future__ import annotations

import hashlib
import json
import secrets
import string
from collections.abc import Mapping
from typing import Any

from roomcast_dev.local_aws import aws_client, queue_url_for
from roomcast_dev.template import StackModel


def provision_resources(model: StackModel, endpoint_url: str) -> None:
    """Create the template's tables, queues, buckets, secrets, Firehose streams and schedule groups
    in the emulator."""
    dynamodb = aws_client("dynamodb", endpoint_url)
    for spec in model.tables.values():
        keys = (
            "TableName",
            "KeySchema",
            "AttributeDefinitions",
            "BillingMode",
            "ProvisionedThroughput",  # with TableCapacityMode=provisioned (its minimum; no auto scaling here)
            "GlobalSecondaryIndexes",
        )
        table: dict[str, Any] = {key: _capacity_as_numbers(spec[key]) for key in keys if key in spec}
        if "StreamSpecification" in spec:  # CloudFormation implies StreamEnabled; the API wants it said
            table["StreamSpecification"] = {"StreamEnabled": True, **spec["StreamSpecification"]}
        dynamodb.create_table(**table)
        ttl = spec.get("TimeToLiveSpecification")
        if ttl:
            dynamodb.update_time_to_live(TableName=spec["TableName"], TimeToLiveSpecification=ttl)
    sqs = aws_client("sqs", endpoint_url)
    # Dead-letter queues first: redrive policies point at them.
    for spec in sorted(model.queues.values(), key=lambda q: "RedrivePolicy" in q):
        attributes = {
            key: _queue_attribute(value) for key, value in spec.items() if key not in ("QueueName", "Tags")
        }
        url = sqs.create_queue(QueueName=spec["QueueName"], Attributes=attributes)["QueueUrl"]
        if url != queue_url_for(endpoint_url, spec["QueueName"]):
            raise RuntimeError(f"unexpected queue URL {url}")
    s3 = aws_client("s3", endpoint_url)
    for spec in model.buckets.values():
        s3.create_bucket(Bucket=spec["BucketName"])
    secretsmanager = aws_client("secretsmanager", endpoint_url)
    for spec in model.secrets.values():
        secretsmanager.create_secret(
            Name=spec["Name"], SecretString=_local_secret(spec["Name"], spec["Length"])
        )
    firehose = aws_client("firehose", endpoint_url)
    for spec in model.delivery_streams.values():
        firehose.create_delivery_stream(**delivery_stream_request(spec))
    sns = aws_client("sns", endpoint_url)
    for topic_name in model.topics.values():
        sns.create_topic(Name=topic_name)
    scheduler = aws_client("scheduler", endpoint_url)
    for group_name in model.schedule_groups.values():
        scheduler.create_schedule_group(Name=group_name)


# New in each process that runs a local stack, the same across its resets: warm function workers
# keep a key they read once, as Lambda containers do.
_LOCAL_SECRET_SEED = secrets.token_bytes(32)


def _local_secret(name: str, length: int) -> str:
    """What GenerateSecretString with ExcludePunctuation makes: letters and digits."""
    alphabet = string.ascii_letters + string.digits
    digest = hashlib.shake_256(_LOCAL_SECRET_SEED + name.encode()).digest(length)
    return "".join(alphabet[byte % len(alphabet)] for byte in digest)


def _capacity_as_numbers(value: Any) -> Any:
    """A table property with its capacity units as numbers (a template parameter is a string)."""
    if isinstance(value, list):
        return [_capacity_as_numbers(entry) for entry in value]
    if not isinstance(value, dict):
        return value
    return {
        key: int(entry) if key.endswith("CapacityUnits") else _capacity_as_numbers(entry)
        for key, entry in value.items()
    }


def _queue_attribute(value: Any) -> str:
    if isinstance(value, dict):
        return json.dumps(value)
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def delivery_stream_request(spec: Mapping[str, Any]) -> dict[str, Any]:
    """CreateDeliveryStream's arguments for a template stream (properties resolved)."""
    destination = spec["ExtendedS3DestinationConfiguration"]
    request: dict[str, Any] = {
        "DeliveryStreamName": spec["DeliveryStreamName"],
        "DeliveryStreamType": spec.get("DeliveryStreamType", "DirectPut"),
        "ExtendedS3DestinationConfiguration": destination,
    }
    if "DeliveryStreamEncryptionConfigurationInput" in spec:
        request["DeliveryStreamEncryptionConfigurationInput"] = spec[
            "DeliveryStreamEncryptionConfigurationInput"
        ]
    return request

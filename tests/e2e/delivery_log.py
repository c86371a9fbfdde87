"""The local stack's delivery log as end-to-end tests read it: what Firehose buffered, flushed to the
log bucket, and its records of one kind for one subscription."""

from __future__ import annotations

import gzip
import json
from typing import Any

from roomcast_dev.stack import LocalStack


def log_events(stack: LocalStack, event: str, subscription_id: str) -> list[dict[str, Any]]:
    stack.flush_delivery_streams()  # what Firehose buffers, in the bucket
    s3 = stack.client("s3")
    bucket = stack.output("LogBucketName")
    found = []
    for listed in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix="raw/"):
        for entry in listed.get("Contents", []):
            for line in gzip.decompress(
                s3.get_object(Bucket=bucket, Key=entry["Key"])["Body"].read()
            ).splitlines():
                record = json.loads(line)
                if record["event"] == event and record["subscriptionId"] == subscription_id:
                    found.append(record)
    return found

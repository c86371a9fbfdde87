"""Configuration: one settings model, validated once at cold start.

Logic never reads ``os.environ``; handlers call ``load_settings`` once and pass values down.
A frozen dataclass rather than a pydantic model: the authorizer imports no pydantic at all,
which keeps its cold start within budget (docs/decisions/0008-cold-start.md).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from roomcast.platform.limits import DEFAULT_OUTBOX_SETTLE_SECONDS, MAX_OUTBOX_SETTLE_SECONDS

_TRUE = {"true", "1", "yes"}
_FALSE = {"false", "0", "no", ""}
_TABLE_NAME = re.compile(r"^[A-Za-z0-9_.-]{3,255}$")
_QUEUE_PREFIX = re.compile(r"^[A-Za-z0-9_-]{1,40}$")
_NUMBER = re.compile(r"^[0-9]{1,6}(\.[0-9]{1,3})?$")


class SettingsError(ValueError):
    """The function's environment is wrong: a deployment error, reported at cold start."""


@dataclass(frozen=True)
class ReleaseScheduling:
    """Where long waits of scheduled messages go (roomcast.outbox.schedules): the EventBridge
    Scheduler group, the outbox queue the schedules put releases on, the role they do it as, and
    where a release the scheduler could not put there goes (none: "")."""

    group: str
    outbox_queue_arn: str
    role_arn: str
    dead_letter_arn: str = ""


@dataclass(frozen=True)
class Settings:
    """Environment of every roomcast function (template.yaml: Globals and per function)."""

    table_name: str
    pull_queue_prefix: str = "roomcast-pull-"
    allow_loopback_push_urls: bool = False
    push_queue_url: str = ""
    # The slow lane: the push queue of endpoints that answer slowly (roomcast.catalog.lanes).
    slow_push_queue_url: str = ""
    # The Firehose stream the delivery log is sent to (template.yaml: DeliveryLogStream).
    delivery_stream: str = ""
    # The Secrets Manager secret (ARN or name) holding the key that signs PULL receipts.
    receipt_key_secret: str = ""
    # The outbox function's own queue (publish checks, sweeps) and how long its tasks wait to
    # outlive every request running when they were sent (roomcast.outbox.tasks).
    outbox_queue_url: str = ""
    outbox_settle_seconds: int = DEFAULT_OUTBOX_SETTLE_SECONDS
    # Long waits of scheduled messages on a schedule (None: every wait is carried by hops).
    release_scheduling: ReleaseScheduling | None = None
    # PUSH retry waits past the crossover on a schedule too (template: LongRetriesOnScheduler), put
    # back on the lane's queue (its ARN) near their time.
    long_retries_on_scheduler: bool = False
    push_queue_arn: str = ""
    slow_push_queue_arn: str = ""
    # Each tenant's API requests per second, and the burst above it (0: no limit of roomcast's own).
    tenant_requests_per_second: float = 0.0
    tenant_request_burst: int = 0
    # The SNS topic alert rules' e-mail notifications go through ("": e-mail not set up).
    alert_topic_arn: str = ""
    # The function's region (Lambda's AWS_REGION): its partition is the one AWS destinations may be in.
    region: str = ""
    # Work after the answer from an internal extension (template: PublishAfterAnswer), and where
    # Lambda's Extensions API is (its AWS_LAMBDA_RUNTIME_API; "" off Lambda).
    after_answer_extension: bool = False
    lambda_runtime_api: str = ""


def _flag(environ: Mapping[str, str], name: str) -> bool:
    value = environ.get(name, "").strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise SettingsError(f"{name} must be true or false, not {value!r}")


def settings_from(environ: Mapping[str, str]) -> Settings:
    """Validate an environment mapping; unknown variables are ignored."""
    table_name = environ.get("TABLE_NAME", "")
    if not _TABLE_NAME.match(table_name):
        raise SettingsError(f"TABLE_NAME must be a DynamoDB table name, not {table_name!r}")
    queue_prefix = environ.get("PULL_QUEUE_PREFIX", Settings.pull_queue_prefix)
    if not _QUEUE_PREFIX.match(queue_prefix):
        raise SettingsError(
            f"PULL_QUEUE_PREFIX must be 1-40 letters, digits, '-' or '_', not {queue_prefix!r}"
        )
    settle = environ.get("OUTBOX_SETTLE_SECONDS", str(DEFAULT_OUTBOX_SETTLE_SECONDS))
    if not settle.isdigit() or not 1 <= int(settle) <= MAX_OUTBOX_SETTLE_SECONDS:
        raise SettingsError(f"OUTBOX_SETTLE_SECONDS must be 1-{MAX_OUTBOX_SETTLE_SECONDS}, not {settle!r}")
    schedule_parts = [
        environ.get(n, "")
        for n in ("RELEASE_SCHEDULE_GROUP", "OUTBOX_QUEUE_ARN", "RELEASE_SCHEDULE_ROLE_ARN")
    ]
    if any(schedule_parts) and not all(schedule_parts):
        raise SettingsError(
            "RELEASE_SCHEDULE_GROUP, OUTBOX_QUEUE_ARN and RELEASE_SCHEDULE_ROLE_ARN go together (all or none)"
        )
    release_scheduling = None
    if all(schedule_parts):
        group, queue_arn, role_arn = schedule_parts
        dead_letter_arn = environ.get("OUTBOX_DEAD_LETTER_ARN", "")
        release_scheduling = ReleaseScheduling(group, queue_arn, role_arn, dead_letter_arn)
    rate = environ.get("TENANT_REQUESTS_PER_SECOND", "0")
    burst = environ.get("TENANT_REQUEST_BURST", "0")
    if not _NUMBER.match(rate) or not burst.isdigit() or (float(rate) > 0) != (int(burst) > 0):
        raise SettingsError(
            "TENANT_REQUESTS_PER_SECOND and TENANT_REQUEST_BURST must be both positive (a limit) or both 0, "
            f"not {rate!r} and {burst!r}"
        )
    return Settings(
        table_name=table_name,
        pull_queue_prefix=queue_prefix,
        allow_loopback_push_urls=_flag(environ, "ALLOW_LOOPBACK_PUSH_URLS"),
        push_queue_url=environ.get("PUSH_QUEUE_URL", ""),
        slow_push_queue_url=environ.get("SLOW_PUSH_QUEUE_URL", ""),
        delivery_stream=environ.get("DELIVERY_STREAM", ""),
        receipt_key_secret=environ.get("RECEIPT_KEY_SECRET", ""),
        outbox_queue_url=environ.get("OUTBOX_QUEUE_URL", ""),
        outbox_settle_seconds=int(settle),
        release_scheduling=release_scheduling,
        long_retries_on_scheduler=_flag(environ, "LONG_RETRIES_ON_SCHEDULER"),
        push_queue_arn=environ.get("PUSH_QUEUE_ARN", ""),
        slow_push_queue_arn=environ.get("SLOW_PUSH_QUEUE_ARN", ""),
        tenant_requests_per_second=float(rate),
        tenant_request_burst=int(burst),
        alert_topic_arn=environ.get("ALERT_TOPIC_ARN", ""),
        region=environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION", ""),
        after_answer_extension=_flag(environ, "AFTER_ANSWER_EXTENSION"),
        lambda_runtime_api=environ.get("AWS_LAMBDA_RUNTIME_API", ""),
    )


@cache
def load_settings() -> Settings:
    """The settings of this process, read once (cold start)."""
    return settings_from(os.environ)

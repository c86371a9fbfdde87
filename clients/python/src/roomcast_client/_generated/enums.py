# Generated from functions/docs/api_docs/openapi.json by `make sdk-models`
# (python -m roomcast_dev.sdk_models): do not edit. `make template-inputs` and
# tests/unit/test_generated_clients.py fail while it is stale.

"""The roomcast API's enumerations, as the SDK lists and takes them: a tuple of each one's
values in the API's order, and a StrEnum of them (docs/decisions/0044-generated-sdk-models.md).
"""

from enum import StrEnum
from typing import Final

DELIVERY_STATUSES: Final = (
    "scheduled",
    "waiting",
    "pending",
    "retrying",
    "delivered",
    "dead",
    "expired",
    "cleared",
    "cancelled",
    "aborted",
    "filtered",
)


class DeliveryStatus(StrEnum):
    """The values of DeliveryView.status in openapi.json."""

    SCHEDULED = "scheduled"
    WAITING = "waiting"
    PENDING = "pending"
    RETRYING = "retrying"
    DELIVERED = "delivered"
    DEAD = "dead"
    EXPIRED = "expired"
    CLEARED = "cleared"
    CANCELLED = "cancelled"
    ABORTED = "aborted"
    FILTERED = "filtered"


ATTEMPT_EVENTS: Final = ("post", "send", "pull", "ack", "nack", "ack_wait_expired")


class AttemptEvent(StrEnum):
    """The values of AttemptView.event in openapi.json."""

    POST = "post"
    SEND = "send"
    PULL = "pull"
    ACK = "ack"
    NACK = "nack"
    ACK_WAIT_EXPIRED = "ack_wait_expired"


JOB_KINDS: Final = (
    "clear-deliveries",
    "purge-dead-letters",
    "replay-dead-letters",
    "delete-room",
    "retry-deliveries",
)


class JobKind(StrEnum):
    """The values of JobView.kind in openapi.json."""

    CLEAR_DELIVERIES = "clear-deliveries"
    PURGE_DEAD_LETTERS = "purge-dead-letters"
    REPLAY_DEAD_LETTERS = "replay-dead-letters"
    DELETE_ROOM = "delete-room"
    RETRY_DELIVERIES = "retry-deliveries"


JOB_STATES: Final = ("running", "succeeded", "failed")


class JobState(StrEnum):
    """The values of JobView.state in openapi.json."""

    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


SUBSCRIPTION_TYPES: Final = ("PUSH", "PULL")


class SubscriptionType(StrEnum):
    """The values of SubscriptionResponse.type in openapi.json."""

    PUSH = "PUSH"
    PULL = "PULL"


SUBSCRIPTION_STATUSES: Final = ("active", "paused", "disabled")


class SubscriptionStatus(StrEnum):
    """The values of SubscriptionResponse.status in openapi.json."""

    ACTIVE = "active"
    PAUSED = "paused"
    DISABLED = "disabled"


ON_DEAD_KEY_CHOICES: Final = ("pause", "skip")


class OnDeadKey(StrEnum):
    """The values of SubscriptionResponse.onDeadKey in openapi.json."""

    PAUSE = "pause"
    SKIP = "skip"


WEBHOOK_FORMATS: Final = ("standard", "cloudevents")


class WebhookFormat(StrEnum):
    """The values of PushSubscriptionCreate.format in openapi.json."""

    STANDARD = "standard"
    CLOUDEVENTS = "cloudevents"


TRANSFORMATION_OUTCOMES: Final = ("transformed", "cancelled", "failed")


class TransformationOutcome(StrEnum):
    """The values of TransformationTestResult.outcome in openapi.json."""

    TRANSFORMED = "transformed"
    CANCELLED = "cancelled"
    FAILED = "failed"


DESTINATION_KINDS: Final = ("sqs", "eventbridge", "sns")


class DestinationKind(StrEnum):
    """The values of DestinationBody.kind in openapi.json."""

    SQS = "sqs"
    EVENTBRIDGE = "eventbridge"
    SNS = "sns"


CLOUD_EVENTS_MODES: Final = ("structured", "binary")


class CloudEventsMode(StrEnum):
    """The values of PushSubscriptionCreate.cloudEventsMode in openapi.json."""

    STRUCTURED = "structured"
    BINARY = "binary"


ORDERING_KEY_STATUSES: Final = ("flowing", "paused")


class OrderingKeyStatus(StrEnum):
    """The values of OrderingKeyView.status in openapi.json."""

    FLOWING = "flowing"
    PAUSED = "paused"


NACK_OUTCOMES: Final = ("retry", "dead", "expired")


class NackOutcomeKind(StrEnum):
    """The values of NackOutcome.outcome in openapi.json."""

    RETRY = "retry"
    DEAD = "dead"
    EXPIRED = "expired"


UNDECLARED_EVENT_TYPES_CHOICES: Final = ("allow", "reject")


class UndeclaredEventTypes(StrEnum):
    """The values of RoomResponse.undeclaredEventTypes in openapi.json."""

    ALLOW = "allow"
    REJECT = "reject"


VALIDATION_MODES: Final = ("reject", "warn", "off")


class EventTypeValidation(StrEnum):
    """The values of EventTypeView.validation in openapi.json."""

    REJECT = "reject"
    WARN = "warn"
    OFF = "off"


METRICS_RESOLUTIONS: Final = ("1m", "1h")


class MetricsResolution(StrEnum):
    """The values of MetricsResponse.resolution in openapi.json."""

    V_1M = "1m"
    V_1H = "1h"


ALERT_STATES: Final = ("ok", "firing")


class AlertState(StrEnum):
    """The values of AlertRuleView.state in openapi.json."""

    OK = "ok"
    FIRING = "firing"


ALERT_CHANGES: Final = ("firing", "resolved")


class AlertChange(StrEnum):
    """The values of AlertEventView.state in openapi.json."""

    FIRING = "firing"
    RESOLVED = "resolved"


WATCHED_SUBSCRIPTION_STATES: Final = ("active", "failing", "paused", "disabled")


class WatchedSubscriptionState(StrEnum):
    """The values of an alert rule's condition.in in openapi.json."""

    ACTIVE = "active"
    FAILING = "failing"
    PAUSED = "paused"
    DISABLED = "disabled"


API_KEY_SCOPES: Final = ("admin", "manage", "read", "publish", "consume")


class ApiKeyScope(StrEnum):
    """The values of an API key's scopes in openapi.json."""

    ADMIN = "admin"
    MANAGE = "manage"
    READ = "read"
    PUBLISH = "publish"
    CONSUME = "consume"


DELIVERY_CONTROLS: Final = ("abort", "disable")


class DeliveryControl(StrEnum):
    """The values of the webhook-delivery header of a webhook's answer in openapi.json."""

    ABORT = "abort"
    DISABLE = "disable"

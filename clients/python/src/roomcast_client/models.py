"""The API's answers as pydantic models, under the SDK's names.

The models are generated from the API's OpenAPI document (``_generated/models.py``, by
``make sdk-models``; docs/decisions/0044-generated-sdk-models.md): none is written by hand. How
they read the API's JSON is ``ApiModel``'s: snake_case attributes (``room.delivery_delay_ms``)
with the API's camelCase names as aliases; they read the API's JSON, accept either name when built
by hand, and ``model_dump(mode="json", by_alias=True)`` gives the API's JSON back. Fields the SDK
does not know yet are kept (``extra="allow"``), and what a newer API may add to (a delivery's
status, an attempt's event, a job's kind) is a string, so a newer API never breaks an older SDK.
Timestamps stay the API's ISO 8601 strings (``2026-11-22T08:23:17.758Z``) so that they round-trip
unchanged.

What only the SDK has is here: ``Page``, one page of any list; ``PullAndAckResult``, the answer
of the one operation that narrows its schema; and two names for what several answers share
(``ReceivedMessage``, ``MessageSummary``). ``Envelope`` is ``ReceivedMessage``'s former name, kept
so that code written against it still runs (in roomcast an envelope is what travels on SQS, which a
client never sees).
"""

from __future__ import annotations

from typing import Annotated, Generic, TypeAlias, TypeVar

from pydantic import Field

from roomcast_client._api_model import ApiModel
from roomcast_client._generated.models import (
    AckResult,
    AlertEventView,
    AlertRuleCreated,
    AlertRuleList,
    AlertRuleView,
    AlertsResponse,
    ApiKey,
    Attempt,
    BacklogView,
    BatchAccepted,
    BatchRefused,
    CandidateMatch,
    CreatedApiKey,
    DeadLetter,
    Delivery,
    DeliveryItem,
    EffectivePolicy,
    ErrorBody,
    ErrorDetail,
    EventType,
    EventTypeDefinition,
    ExtendResult,
    FilteredOut,
    FilterTest,
    JobCounts,
    JobView,
    LiveSecret,
    LiveSecrets,
    MessageStatus,
    MetricsPoint,
    MetricsResponse,
    MetricsSummary,
    NackOutcome,
    NackResult,
    OrderingKey,
    OrderingKeyList,
    PercentilesView,
    PortalBrand,
    PortalSessionCreated,
    PortalSessionView,
    PortalSettingsView,
    PublishBatchResult,
    PublishResult,
    PulledMessage,
    PullResponse,
    ReceiptFailure,
    ReplayResult,
    RetryResult,
    Room,
    RotatedSecret,
    ScheduledAttempt,
    SchedulePreview,
    SchemaError,
    Subscription,
    SubscriptionCreated,
    SubscriptionMatch,
    TestEventSent,
    TransformationTestResult,
    TransformationVersion,
    TransformationView,
    Validated,
    WebhookMessage,
)

T = TypeVar("T")


class Page(ApiModel, Generic[T]):
    """One page of a list: its items and the cursor of the next page (None on the last)."""

    items: list[T]
    next_cursor: str | None = None


class PullAndAckResult(PullResponse):
    """A pull that acked earlier messages too: its messages, and what the ack did. The API's
    ``PullResponse`` has ``acked`` and ``ackFailed`` null for a pull without ``ack``; this
    answer's always has them."""

    acked: list[str] = []
    ack_failed: Annotated[list[ReceiptFailure], Field(alias="ackFailed")] = []


# What every message carries (id, correlation id, event type and version, payload, publish time):
# a dead letter, a pulled message and a webhook's body.
ReceivedMessage: TypeAlias = DeadLetter | PulledMessage | WebhookMessage
Envelope: TypeAlias = ReceivedMessage  # its former name

# A room's message list carries each message's full status.
MessageSummary = MessageStatus

__all__ = [
    "AckResult",
    "AlertEventView",
    "AlertRuleCreated",
    "AlertRuleList",
    "AlertRuleView",
    "AlertsResponse",
    "ApiKey",
    "ApiModel",
    "Attempt",
    "BacklogView",
    "BatchAccepted",
    "BatchRefused",
    "CandidateMatch",
    "CreatedApiKey",
    "DeadLetter",
    "Delivery",
    "DeliveryItem",
    "EffectivePolicy",
    "Envelope",
    "ErrorBody",
    "ErrorDetail",
    "EventType",
    "EventTypeDefinition",
    "ExtendResult",
    "FilterTest",
    "FilteredOut",
    "JobCounts",
    "JobView",
    "LiveSecret",
    "LiveSecrets",
    "MessageStatus",
    "MessageSummary",
    "MetricsPoint",
    "MetricsResponse",
    "MetricsSummary",
    "NackOutcome",
    "NackResult",
    "OrderingKey",
    "OrderingKeyList",
    "Page",
    "PercentilesView",
    "PortalBrand",
    "PortalSessionCreated",
    "PortalSessionView",
    "PortalSettingsView",
    "PublishBatchResult",
    "PublishResult",
    "PullAndAckResult",
    "PullResponse",
    "PulledMessage",
    "ReceiptFailure",
    "ReceivedMessage",
    "ReplayResult",
    "RetryResult",
    "Room",
    "RotatedSecret",
    "SchedulePreview",
    "ScheduledAttempt",
    "SchemaError",
    "Subscription",
    "SubscriptionCreated",
    "SubscriptionMatch",
    "TestEventSent",
    "TransformationTestResult",
    "TransformationVersion",
    "TransformationView",
    "Validated",
    "WebhookMessage",
]

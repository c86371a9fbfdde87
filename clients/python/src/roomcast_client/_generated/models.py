# Generated from functions/docs/api_docs/openapi.json by `make sdk-models`
# (python -m roomcast_dev.sdk_models): do not edit. `make template-inputs` and
# tests/unit/test_generated_clients.py fail while it is stale.
# datamodel-code-generator 0.89.0, options in roomcast_dev.sdk_models.GENERATOR_OPTIONS.
"""The roomcast API's answers and webhook body as pydantic models, generated from its OpenAPI
document (docs/decisions/0044-generated-sdk-models.md). roomcast_client.models exports them
under the SDK's names; the SDK's own code adds behaviour only."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from roomcast_client._api_model import ApiModel


class AckResult(ApiModel):
    acked: list[str] = []
    failed: list[ReceiptFailure] = Field([], validate_default=True)


class AlertEventView(ApiModel):
    rule_id: Annotated[str, Field(alias="ruleId")]
    name: str
    state: Annotated[
        Literal["firing", "resolved"], Field(description="`firing`: it fired; `resolved`: it resolved.")
    ]
    value: float | str | None = None
    at: str


class AlertRuleList(ApiModel):
    alert_rules: list[AlertRuleView] = Field([], alias="alertRules", validate_default=True)


class AlertRuleView(ApiModel):
    id: str
    name: str
    scope: dict[str, str | None]
    condition: dict[str, Any]
    notify: dict[str, str | None]
    state: Literal["ok", "firing"]
    value: Annotated[float | str | None, Field(description="The value measured at its last change.")] = None
    changed_at: Annotated[
        str | None, Field(alias="changedAt", description="When it last fired or resolved.")
    ] = None
    snoozed_until: Annotated[str | None, Field(alias="snoozedUntil")] = None
    created_at: Annotated[str, Field(alias="createdAt")]
    updated_at: Annotated[str, Field(alias="updatedAt")]


class AlertRuleCreated(AlertRuleView):
    signing_secret: Annotated[
        str,
        Field(
            alias="signingSecret",
            description="Shown once: verify the webhook notifications' signatures with it.",
        ),
    ]


class AlertsResponse(ApiModel):
    firing: Annotated[
        list[AlertRuleView], Field(description="The rules firing now.", validate_default=True)
    ] = []
    recent: Annotated[
        list[AlertEventView],
        Field(description="The latest fired and resolved, newest first (35 days).", validate_default=True),
    ] = []


class ApiKey(ApiModel):
    key_id: Annotated[
        str, Field(alias="keyId", description="The key's id: `key_` and 16 hex digits. Not a secret.")
    ]
    name: str
    created_at: Annotated[str, Field(alias="createdAt")]
    scopes: Annotated[
        list[Literal["admin", "manage", "read", "publish", "consume"]],
        Field(description="What the key may do."),
    ] = []
    rooms: Annotated[list[str] | None, Field(description="The only rooms it works on; null: every room.")] = (
        None
    )
    current: Annotated[bool, Field(description="Whether this is the key the request was made with.")]


class ApiKeyList(ApiModel):
    api_keys: Annotated[list[ApiKey], Field(alias="apiKeys", validate_default=True)] = []
    next_cursor: Annotated[
        str | None,
        Field(alias="nextCursor", description="Pass as `cursor` for the next page; null on the last."),
    ] = None


class Attempt(ApiModel):
    subscription_id: Annotated[str, Field(alias="subscriptionId")]
    attempt: Annotated[int, Field(description="0 for the first delivery.")]
    event: str
    started_at: Annotated[str, Field(alias="startedAt")]
    duration_ms: Annotated[int | None, Field(alias="durationMs")] = None
    http_status: Annotated[int | None, Field(alias="httpStatus")] = None
    error: str | None = None
    response_body: Annotated[
        str | None, Field(alias="responseBody", description="PUSH: the first KiB of the answer, as text.")
    ] = None


class AttemptList(ApiModel):
    attempts: Annotated[list[Attempt], Field(validate_default=True)] = []


class BacklogView(ApiModel):
    open: Annotated[int, Field(description="Open deliveries now.")]
    oldest_open_age_ms: Annotated[
        int | None,
        Field(
            alias="oldestOpenAgeMs",
            description="How long the oldest has waited, to the minute; null when none.",
        ),
    ] = None


class BatchRefused(ApiModel):
    status: Annotated[
        int, Field(description="The HTTP status a single publish of this message would have answered.")
    ]
    error: ErrorBody


class CandidateMatch(ApiModel):
    matched: bool
    reason: Annotated[str | None, Field(description="The first failed condition; null when it matched.")] = (
        None
    )


class CatalogDocument(ApiModel):
    model_config = ConfigDict(
        extra="allow",
    )
    openapi: Literal["3.1.0"]
    info: dict[str, Any]
    webhooks: Annotated[
        dict[str, Any], Field(description="One per event type and version: `<name> v<version>`.")
    ]


class CreatedApiKey(ApiModel):
    key_id: Annotated[str, Field(alias="keyId")]
    name: str
    created_at: Annotated[str, Field(alias="createdAt")]
    scopes: list[Literal["admin", "manage", "read", "publish", "consume"]] = []
    rooms: list[str] | None = None
    key: Annotated[
        str, Field(description="The API key itself: shown once, never again (only its hash is stored).")
    ]


class DeadLetter(ApiModel):
    message_id: Annotated[str, Field(alias="messageId")]
    correlation_id: Annotated[str, Field(alias="correlationId")]
    event_type: Annotated[str, Field(alias="eventType")]
    event_version: Annotated[str, Field(alias="eventVersion")]
    payload: Any = None
    published_at: Annotated[str, Field(alias="publishedAt")]
    attempts: int
    reason: str
    dead_at: Annotated[str, Field(alias="deadAt")]


class DeadLetterList(ApiModel):
    dead_letters: Annotated[list[DeadLetter], Field(alias="deadLetters", validate_default=True)] = []
    next_cursor: Annotated[
        str | None,
        Field(alias="nextCursor", description="Pass as `cursor` for the next page; null at the end."),
    ] = None


class Delivery(ApiModel):
    subscription_id: Annotated[str, Field(alias="subscriptionId")]
    subscription_type: Annotated[Literal["PUSH", "PULL"], Field(alias="subscriptionType")]
    status: Annotated[
        str,
        Field(
            description="`scheduled` until a scheduled message's time, then `pending`; `cancelled` (final) when it was cancelled before; `aborted` (final) when the receiver answered `webhook-delivery: abort`; `filtered` (final) when its subscription's transformation cancelled it."
        ),
    ]
    attempts: Annotated[int, Field(description="Attempts made so far (a first-try success counts 1).")]
    last_error: Annotated[str | None, Field(alias="lastError")] = None
    next_attempt_at: Annotated[str | None, Field(alias="nextAttemptAt")] = None
    updated_at: Annotated[str, Field(alias="updatedAt")]


class DeliveryItem(Delivery):
    message_id: Annotated[str, Field(alias="messageId")]
    event_type: Annotated[str, Field(alias="eventType")]
    event_version: Annotated[str, Field(alias="eventVersion")]
    correlation_id: Annotated[str, Field(alias="correlationId")]
    published_at: Annotated[str, Field(alias="publishedAt")]


class DeliveryList(ApiModel):
    deliveries: Annotated[list[DeliveryItem], Field(validate_default=True)] = []
    next_cursor: Annotated[
        str | None,
        Field(
            alias="nextCursor",
            description="Pass as `cursor` for the next page; null at the end. A page may hold fewer items than `limit` (or none) when filters skip many: follow `nextCursor` until it is null.",
        ),
    ] = None


class EffectivePolicy(ApiModel):
    delivery_delay_ms: Annotated[int, Field(alias="deliveryDelayMs")]
    delivery_delay_multiplier: Annotated[float, Field(alias="deliveryDelayMultiplier")]
    delivery_attempts: Annotated[int, Field(alias="deliveryAttempts")]
    max_delay_ms: Annotated[int | None, Field(alias="maxDelayMs")] = None
    jitter: float
    retry_schedule_ms: Annotated[list[int] | None, Field(alias="retryScheduleMs")] = None
    message_expiration_ms: Annotated[int | None, Field(alias="messageExpirationMs")] = None


class ErrorBody(ApiModel):
    code: Annotated[str, Field(description="Machine-readable: validation_error, not_found, conflict, ...")]
    message: Annotated[str, Field(description="What is wrong, in words.")]
    details: list[ErrorDetail] = Field([], validate_default=True)


class ErrorDetail(ApiModel):
    field: Annotated[str, Field(description="Where: body.<field>, query.<name>, header.<name>, or body.")]
    problem: str
    type: Annotated[
        str, Field(description="Machine-readable kind of problem (pydantic's error type, or ours).")
    ]


class EventType(ApiModel):
    name: str
    versions: Annotated[list[str], Field(description="Empty or absent: every version.")] = []


class EventTypeDefinition(ApiModel):
    name: str
    description: str
    validation: Literal["reject", "warn", "off"]
    deprecated: bool
    archived: Annotated[
        bool,
        Field(
            description="Archived (DELETE): out of the catalog until restored; what is in flight still delivers."
        ),
    ]
    schemas: Annotated[
        dict[str, dict[str, Any]] | None,
        Field(description="By version; null in lists (read one event type for its schemas)."),
    ] = None
    versions: Annotated[list[str], Field(description="The versions that have a schema.")] = []
    created_at: Annotated[str, Field(alias="createdAt")]
    updated_at: Annotated[str, Field(alias="updatedAt")]


class EventTypeList(ApiModel):
    event_types: Annotated[list[EventTypeDefinition], Field(alias="eventTypes", validate_default=True)] = []
    next_cursor: Annotated[
        str | None,
        Field(alias="nextCursor", description="Pass as `cursor` for the next page; null at the end."),
    ] = None


class ExtendResult(ApiModel):
    extended: list[str] = []
    failed: list[ReceiptFailure] = Field([], validate_default=True)


class FilterTest(ApiModel):
    accepted: Annotated[
        bool, Field(description="Whether the room accepts the message's event type and version.")
    ]
    reason: Annotated[str | None, Field(description="Why the room would refuse it; null otherwise.")] = None
    subscriptions: list[SubscriptionMatch] = Field(
        [], description="Every subscription of the room, in id order.", validate_default=True
    )
    candidate: Annotated[
        CandidateMatch | None,
        Field(description="The candidate `filterPolicy`'s verdict; null when none was given."),
    ] = None


class FilteredOut(ApiModel):
    subscription_id: Annotated[str, Field(alias="subscriptionId")]
    reason: Annotated[
        str, Field(description="Its filter's first failed condition: `payload.amount: 50 is not >= 100`.")
    ]


class JobCounts(ApiModel):
    examined: Annotated[int, Field(description="Deliveries, dead letters or subscriptions looked at so far.")]
    cleared: Annotated[
        int | None,
        Field(
            description="Clear All: deliveries this job ended `cleared` (one whose envelope came out of SQS first was ended by the push function instead, and is not counted here)."
        ),
    ] = None
    purged: Annotated[int | None, Field(description="Purge: dead letters deleted.")] = None
    replayed: Annotated[int | None, Field(description="Replay: dead letters sent again.")] = None
    already_replaying: Annotated[
        int | None,
        Field(
            alias="alreadyReplaying", description="Replay: letters another replay was sending at that moment."
        ),
    ] = None
    subscriptions_deleted: Annotated[
        int | None, Field(alias="subscriptionsDeleted", description="Room deletion: subscriptions deleted.")
    ] = None
    retried: Annotated[
        int | None,
        Field(
            description="Retry now: deliveries this job made due now (one another retry-now took first is counted there)."
        ),
    ] = None


class JobView(ApiModel):
    id: str
    kind: str
    state: Annotated[
        Literal["running", "succeeded", "failed"],
        Field(
            description="`running` until every page is done; `failed` (with `error`) if a page kept failing."
        ),
    ]
    room_id: Annotated[str, Field(alias="roomId")]
    subscription_id: Annotated[str | None, Field(alias="subscriptionId")] = None
    created_at: Annotated[str, Field(alias="createdAt")]
    updated_at: Annotated[str, Field(alias="updatedAt")]
    finished_at: Annotated[str | None, Field(alias="finishedAt")] = None
    counts: JobCounts
    error: str | None = None


class LiveSecret(ApiModel):
    signing_secret: Annotated[str, Field(alias="signingSecret")]
    valid_until: Annotated[
        str | None,
        Field(alias="validUntil", description="When it stops signing; null: until the next rotation."),
    ] = None


class LiveSecrets(ApiModel):
    signing_secret: Annotated[
        str,
        Field(
            alias="signingSecret",
            description="The newest secret: verify with it (and with the others until they end).",
        ),
    ]
    secrets: Annotated[
        list[LiveSecret],
        Field(description="Every secret that signs webhooks now, newest first.", validate_default=True),
    ] = []


class MessageList(ApiModel):
    messages: list[MessageStatus] = Field([], validate_default=True)
    next_cursor: Annotated[
        str | None,
        Field(
            alias="nextCursor",
            description="Pass as `cursor` for the next page; null at the end. A page may hold fewer items than `limit` (or none) when filters skip many: follow `nextCursor` until it is null.",
        ),
    ] = None


class MessageStatus(ApiModel):
    message_id: Annotated[str, Field(alias="messageId")]
    room_id: Annotated[str, Field(alias="roomId")]
    event_type: Annotated[str, Field(alias="eventType")]
    event_version: Annotated[str, Field(alias="eventVersion")]
    correlation_id: Annotated[str, Field(alias="correlationId")]
    payload: Any = None
    published_at: Annotated[str, Field(alias="publishedAt")]
    expires_at: Annotated[str | None, Field(alias="expiresAt")] = None
    destinations: list[str] = []
    filtered_out: Annotated[
        list[FilteredOut],
        Field(
            alias="filteredOut",
            description="Subscriptions of the room that accept its event type but whose `filterPolicy` did not match its payload: no delivery, no queue send (docs/filters.md).",
            validate_default=True,
        ),
    ] = []
    schema_errors: Annotated[
        list[str],
        Field(
            alias="schemaErrors",
            description="How its payload breaks the schema of its event type and version, when that event type's `validation` is `warn` (it was published anyway); empty otherwise.",
        ),
    ] = []
    deliver_at: Annotated[
        str | None,
        Field(
            alias="deliverAt",
            description="Scheduled (published with deliverAt or deliverAfterMs): when it is delivered to its destinations; its expiry counts from then. Null: delivered at once.",
        ),
    ] = None
    cancelled_at: Annotated[
        str | None,
        Field(
            alias="cancelledAt",
            description="When the scheduled message was cancelled (its deliveries ended `cancelled`).",
        ),
    ] = None
    deliveries: Annotated[list[Delivery], Field(validate_default=True)] = []


class MetricsPoint(ApiModel):
    attempts: Annotated[int, Field(description="Webhook requests made; PULL hand-outs.")]
    delivered: Annotated[int, Field(description="Deliveries that ended delivered (2xx; a PULL ack).")]
    failed_attempts: Annotated[
        int,
        Field(
            alias="failedAttempts",
            description="Attempts that failed: no 2xx answer in time; a PULL nack or an ack wait that expired.",
        ),
    ]
    dead: int
    expired: int
    aborted: int
    cleared: int
    cancelled: int
    failed_over: Annotated[
        int, Field(alias="failedOver", description="Dead here and handed to the subscription's failover.")
    ]
    filtered_out: Annotated[
        int,
        Field(alias="filteredOut", description="Messages of the room its filter policy did not route here."),
    ]
    success_rate: Annotated[
        float | None,
        Field(alias="successRate", description="1 - failedAttempts / attempts; null without attempts."),
    ] = None
    at: Annotated[str, Field(description="The bucket's start (UTC); a bucket is a minute or an hour.")]
    attempt_latency_ms: PercentilesView | None = Field(
        None,
        alias="attemptLatencyMs",
        description="How long the endpoint took to answer its webhooks (PUSH); null without one.",
    )
    delivery_delay_ms: PercentilesView | None = Field(
        None,
        alias="deliveryDelayMs",
        description="From when a message was first due (its publishing, or its deliverAt) to its delivery, of the deliveries that ended delivered in the bucket; null without one.",
    )
    backlog: Annotated[
        int, Field(description="Open deliveries (pending, retrying or waiting) at the bucket's end.")
    ]
    oldest_open_age_ms: Annotated[
        int | None,
        Field(
            alias="oldestOpenAgeMs",
            description="How long the oldest open delivery had waited then, to the minute; null when none.",
        ),
    ] = None


class MetricsResponse(ApiModel):
    resolution: Literal["1m", "1h"]
    start: Annotated[str, Field(description="The first point's start.")]
    end: Annotated[str, Field(description="The window's end (exclusive): `to`, or now.")]
    points: Annotated[
        list[MetricsPoint],
        Field(
            description="Every bucket of the window, oldest first, zeros where nothing happened; at most 1,440 minutes or 840 hours.",
            validate_default=True,
        ),
    ] = []
    summary: MetricsSummary = Field(
        ..., description="The whole window: its counts added, its percentiles merged."
    )
    backlog: Annotated[BacklogView, Field(description="The backlog now.")]


class MetricsSummary(ApiModel):
    attempts: Annotated[int, Field(description="Webhook requests made; PULL hand-outs.")]
    delivered: Annotated[int, Field(description="Deliveries that ended delivered (2xx; a PULL ack).")]
    failed_attempts: Annotated[
        int,
        Field(
            alias="failedAttempts",
            description="Attempts that failed: no 2xx answer in time; a PULL nack or an ack wait that expired.",
        ),
    ]
    dead: int
    expired: int
    aborted: int
    cleared: int
    cancelled: int
    failed_over: Annotated[
        int, Field(alias="failedOver", description="Dead here and handed to the subscription's failover.")
    ]
    filtered_out: Annotated[
        int,
        Field(alias="filteredOut", description="Messages of the room its filter policy did not route here."),
    ]
    success_rate: Annotated[
        float | None,
        Field(alias="successRate", description="1 - failedAttempts / attempts; null without attempts."),
    ] = None
    attempt_latency_ms: PercentilesView | None = Field(None, alias="attemptLatencyMs")
    delivery_delay_ms: PercentilesView | None = Field(None, alias="deliveryDelayMs")


class NackOutcome(ApiModel):
    message_id: Annotated[str, Field(alias="messageId")]
    outcome: Literal["retry", "dead", "expired"]
    next_attempt_at: Annotated[str | None, Field(alias="nextAttemptAt")] = None


class NackResult(ApiModel):
    nacked: Annotated[list[NackOutcome], Field(validate_default=True)] = []
    failed: list[ReceiptFailure] = Field([], validate_default=True)


class OrderingKey(ApiModel):
    ordering_key: Annotated[str, Field(alias="orderingKey")]
    status: Literal["flowing", "paused"]
    dead_message_id: Annotated[
        str | None,
        Field(
            alias="deadMessageId", description="Paused: the message that ended dead; its key waits behind it."
        ),
    ] = None
    reason: Annotated[str | None, Field(description="Paused: why that message ended dead.")] = None
    paused_at: Annotated[str | None, Field(alias="pausedAt")] = None
    in_flight: Annotated[
        str | None, Field(alias="inFlight", description="Flowing: the key's message on its way, if any.")
    ] = None


class OrderingKeyList(ApiModel):
    ordering_keys: Annotated[
        list[OrderingKey],
        Field(alias="orderingKeys", description="Longest paused first.", validate_default=True),
    ] = []


class PercentilesView(ApiModel):
    p50: float
    p95: float
    p99: float


class PortalBrand(ApiModel):
    title: Annotated[str, Field(description="The page's title and heading.")]
    logo_url: Annotated[
        str | None, Field(alias="logoUrl", description="An https image shown beside the title; null: none.")
    ] = None
    accent_color: Annotated[
        str, Field(alias="accentColor", description="The buttons' and links' colour, `#rrggbb`.")
    ]


class PortalSessionView(ApiModel):
    session_id: Annotated[
        str,
        Field(
            alias="sessionId",
            description="The session's id (`ps_` and 32 hex digits): revoke with it. Not a secret.",
        ),
    ]
    consumer_id: Annotated[str, Field(alias="consumerId")]
    rooms: list[str] = []
    event_types: Annotated[list[str] | None, Field(alias="eventTypes")] = None
    read_only: Annotated[bool, Field(alias="readOnly")]
    expires_at: Annotated[str, Field(alias="expiresAt")]
    brand: Annotated[
        PortalBrand | None,
        Field(description="How the portal page looks (your portal settings); on `GET /portal-session`."),
    ] = None


class PortalSessionCreated(PortalSessionView):
    token: Annotated[
        str,
        Field(
            description="The session's credential, shown once: send it as `Authorization: Bearer <token>`. It reaches only this consumer's subscriptions on these rooms, until `expiresAt` or revoked."
        ),
    ]
    url: Annotated[
        str,
        Field(
            description="The portal page for this session, the token in its fragment (never sent to a server): open it, or embed it in an iframe from an origin your portal settings allow."
        ),
    ]


class PortalSettingsView(ApiModel):
    title: str = "Webhooks"
    logo_url: Annotated[str | None, Field(alias="logoUrl", description="An https image URL; null: none.")] = (
        None
    )
    accent_color: Annotated[str, Field(alias="accentColor")] = "#2f6fed"
    frame_ancestors: Annotated[
        list[str],
        Field(
            alias="frameAncestors",
            description="The origins (`https://app.example.com`, no path) whose pages may embed the portal in an iframe: its `Content-Security-Policy: frame-ancestors`. Empty: no page may frame it.",
        ),
    ] = []


class PublishBatchResult(ApiModel):
    results: list[BatchAccepted | BatchRefused] = Field(
        [],
        description="One per message, in request order: the published message, or why it was refused.",
        validate_default=True,
    )
    failed_count: Annotated[int, Field(alias="failedCount", description="How many results are errors.")]


class PublishResult(ApiModel):
    message_id: Annotated[str, Field(alias="messageId")]
    correlation_id: Annotated[str, Field(alias="correlationId")]
    destinations: Annotated[
        list[str], Field(description="The subscriptions it was routed to (possibly none).")
    ] = []
    filtered_out: Annotated[
        list[FilteredOut],
        Field(
            alias="filteredOut",
            description="Subscriptions of the room that accept its event type but whose `filterPolicy` did not match its payload: no delivery, no queue send (docs/filters.md).",
            validate_default=True,
        ),
    ] = []
    schema_errors: Annotated[
        list[str],
        Field(
            alias="schemaErrors",
            description="How its payload breaks the schema of its event type and version, when that event type's `validation` is `warn` (it was published anyway); empty otherwise.",
        ),
    ] = []
    published_at: Annotated[str, Field(alias="publishedAt")]
    deliver_at: Annotated[
        str | None,
        Field(
            alias="deliverAt",
            description="Scheduled: when it is delivered (null: at once). Cancel it with cancelMessage.",
        ),
    ] = None
    ordering_key: Annotated[
        str | None, Field(alias="orderingKey", description="Its ordering key, as given.")
    ] = None


class BatchAccepted(PublishResult):
    status: Annotated[int, Field(description="202: published, as a single publish would have answered.")]


class PullResponse(ApiModel):
    messages: list[PulledMessage] = Field([], validate_default=True)
    acked: Annotated[
        list[str] | None,
        Field(description="With `ack`: the messages acknowledged (as `POST .../ack` answers); null without."),
    ] = None
    ack_failed: list[ReceiptFailure] | None = Field(
        None,
        alias="ackFailed",
        description="With `ack`: the receipts not acknowledged — SQS no longer accepted them, or their message had already ended (as `POST .../ack` answers `failed`); null without.",
    )


class PulledMessage(ApiModel):
    message_id: Annotated[str, Field(alias="messageId")]
    correlation_id: Annotated[str, Field(alias="correlationId")]
    event_type: Annotated[str, Field(alias="eventType")]
    event_version: Annotated[str, Field(alias="eventVersion")]
    payload: Any = None
    published_at: Annotated[str, Field(alias="publishedAt")]
    receipt: Annotated[str, Field(description="Give it back to ack, nack or extend this message.")]
    traceparent: Annotated[
        str | None,
        Field(description="The publish's W3C Trace Context (its `traceparent` header), when it gave one."),
    ] = None
    attempt: Annotated[
        int, Field(description="0 on the first hand-out; each nack or ack-wait timeout adds one.")
    ]


class ReceiptFailure(ApiModel):
    receipt: str
    message_id: Annotated[str, Field(alias="messageId")]
    error: str


class ReplayResult(ApiModel):
    replayed: list[str] = []
    not_found: Annotated[list[str], Field(alias="notFound")] = []
    already_replaying: Annotated[
        list[str],
        Field(
            alias="alreadyReplaying",
            description="Dead letters another replay is sending right now: not sent again by this one.",
        ),
    ] = []


class RetryResult(ApiModel):
    retried: Annotated[int, Field(description="How many deliveries are now due.")]
    message_ids: Annotated[list[str], Field(alias="messageIds")] = []
    not_retrying: Annotated[
        list[str], Field(alias="notRetrying", description="Named messages without a retrying delivery here.")
    ] = []


class Room(ApiModel):
    id: str
    name: str
    message_expiration_ms: Annotated[
        int | None, Field(alias="messageExpirationMs", description="null: messages never expire.")
    ] = None
    delivery_delay_ms: Annotated[int, Field(alias="deliveryDelayMs")]
    delivery_delay_multiplier: Annotated[float, Field(alias="deliveryDelayMultiplier")]
    delivery_attempts: Annotated[int, Field(alias="deliveryAttempts")]
    event_types: Annotated[list[EventType], Field(alias="eventTypes", validate_default=True)] = []
    operations_room_id: Annotated[str | None, Field(alias="operationsRoomId")] = None
    undeclared_event_types: Annotated[
        Literal["allow", "reject"],
        Field(
            alias="undeclaredEventTypes",
            description="What a publish gets whose event type is not in the tenant's catalog (GET /event-types): `allow` (published, unchecked) or `reject` (422 `undeclared_event_type`).",
        ),
    ] = "allow"
    created_at: Annotated[str, Field(alias="createdAt")]
    updated_at: Annotated[str, Field(alias="updatedAt")]


class RoomList(ApiModel):
    rooms: Annotated[list[Room], Field(validate_default=True)] = []
    next_cursor: Annotated[
        str | None,
        Field(alias="nextCursor", description="Pass as `cursor` for the next page; null at the end."),
    ] = None


class RotatedSecret(ApiModel):
    signing_secret: Annotated[str, Field(alias="signingSecret", description="The new secret, shown once.")]
    previous_secrets_valid_until: Annotated[
        str | None,
        Field(
            alias="previousSecretsValidUntil",
            description="Until then every webhook carries a signature with the old secret too.",
        ),
    ] = None


class SchedulePreview(ApiModel):
    subscription_id: Annotated[str, Field(alias="subscriptionId")]
    policy: EffectivePolicy
    attempts: list[ScheduledAttempt] = Field([], validate_default=True)
    note: str


class ScheduledAttempt(ApiModel):
    attempt: int
    delay_ms: Annotated[
        int, Field(alias="delayMs", description="Wait before this attempt (0 for the first delivery).")
    ]
    since_publish_ms: Annotated[
        int,
        Field(alias="sincePublishMs", description="When it falls if every earlier attempt failed at once."),
    ]
    cut_by_expiry: Annotated[
        bool,
        Field(
            alias="cutByExpiry",
            description="Falls at or after the room's expiry: never made; expired instead.",
        ),
    ]


class SchemaError(ApiModel):
    path: Annotated[str, Field(description="Where in the payload: `payload.items[2].price`.")]
    message: str


class Subscription(ApiModel):
    delivery_delay_ms: Annotated[int | None, Field(alias="deliveryDelayMs")] = None
    delivery_delay_multiplier: Annotated[float | None, Field(alias="deliveryDelayMultiplier")] = None
    delivery_attempts: Annotated[int | None, Field(alias="deliveryAttempts")] = None
    failover_subscription_id: Annotated[
        str | None,
        Field(
            alias="failoverSubscriptionId",
            description="Another subscription of the room that gets the message instead of dead.",
        ),
    ] = None
    max_delay_ms: Annotated[int | None, Field(alias="maxDelayMs")] = None
    jitter: float | None = None
    retry_schedule_ms: Annotated[list[int] | None, Field(alias="retryScheduleMs")] = None
    id: str
    room_id: Annotated[str, Field(alias="roomId")]
    type: Literal["PUSH", "PULL"]
    status: Literal["active", "paused", "disabled"]
    event_types: Annotated[list[EventType], Field(alias="eventTypes", validate_default=True)] = []
    filter_policy: Annotated[
        dict[str, Any] | None,
        Field(
            alias="filterPolicy",
            description="Its filter policy (docs/filters.md); null: every payload of its event types.",
        ),
    ] = None
    consumer_id: Annotated[
        str | None, Field(alias="consumerId", description="The customer it belongs to; null: none named.")
    ] = None
    push_url: Annotated[str | None, Field(alias="pushUrl")] = None
    destination: Annotated[
        dict[str, str] | None,
        Field(description="PUSH: its AWS destination (`kind`, `arn`, `roleArn`, `externalId`); null: a URL."),
    ] = None
    timeout_ms: Annotated[int | None, Field(alias="timeoutMs")] = None
    ack_wait_ms: Annotated[int | None, Field(alias="ackWaitMs")] = None
    max_concurrency: Annotated[int | None, Field(alias="maxConcurrency")] = None
    rate_limit_per_second: Annotated[float | None, Field(alias="rateLimitPerSecond")] = None
    disable_after_failing_ms: Annotated[int | None, Field(alias="disableAfterFailingMs")] = None
    recovery_probes: Annotated[
        bool | None,
        Field(alias="recoveryProbes", description="PUSH: whether an automatic disable probes it."),
    ] = None
    ordered: Annotated[
        bool, Field(description="Whether it gets a key's messages one at a time, in order.")
    ] = False
    on_dead_key: Annotated[Literal["pause", "skip"], Field(alias="onDeadKey")] = "pause"
    format: Annotated[
        Literal["standard", "cloudevents"] | None, Field(description="PUSH: how its webhooks look.")
    ] = None
    cloud_events_mode: Annotated[
        Literal["structured", "binary"] | None,
        Field(alias="cloudEventsMode", description="PUSH, format cloudevents only."),
    ] = None
    validation_handshake: Annotated[
        bool | None,
        Field(
            alias="validationHandshake",
            description="PUSH: whether its receiver is asked first (on create, on a URL change).",
        ),
    ] = None
    transformation: Annotated[
        str | None, Field(description="PUSH: its transformation's source; null: none.")
    ] = None
    transformation_version: Annotated[
        int | None,
        Field(
            alias="transformationVersion",
            description="PUSH: the version of its transformation (GET …/transformation for the previous one).",
        ),
    ] = None
    disabled_reason: Annotated[
        str | None, Field(alias="disabledReason", description="Why it is disabled; null otherwise.")
    ] = None
    disabled_at: Annotated[str | None, Field(alias="disabledAt")] = None
    probing_since: Annotated[
        str | None,
        Field(
            alias="probingSince",
            description="PUSH: disabled automatically and probed since then (its deliveries wait); null otherwise.",
        ),
    ] = None
    failing_since: Annotated[
        str | None,
        Field(
            alias="failingSince",
            description="PUSH: when its current run of failed attempts began (every attempt since failed); null while healthy. A failure soon after a success shows only once the attempts have kept failing for 5 s, or disableAfterFailingMs when shorter (then from the first).",
        ),
    ] = None
    slow_since: Annotated[
        str | None,
        Field(
            alias="slowSince",
            description="PUSH: since when its endpoint answers slowly (a request took over 1 s): its deliveries run in the slow lane, apart from other endpoints'. Null once it answers within 0.5 s again (docs/delivery-semantics.md).",
        ),
    ] = None
    created_at: Annotated[str, Field(alias="createdAt")]
    updated_at: Annotated[str, Field(alias="updatedAt")]


class SubscriptionCreated(Subscription):
    signing_secret: Annotated[
        str | None,
        Field(
            alias="signingSecret",
            description="PUSH only, shown once: verify webhook signatures with it (Standard Webhooks).",
        ),
    ] = None


class SubscriptionList(ApiModel):
    subscriptions: Annotated[list[Subscription], Field(validate_default=True)] = []
    next_cursor: Annotated[
        str | None,
        Field(alias="nextCursor", description="Pass as `cursor` for the next page; null at the end."),
    ] = None


class SubscriptionMatch(ApiModel):
    subscription_id: Annotated[str, Field(alias="subscriptionId")]
    type: Literal["PUSH", "PULL"]
    status: Literal["active", "paused", "disabled"]
    matched: Annotated[bool, Field(description="Whether publishing this message now would route it here.")]
    reason: Annotated[
        str | None,
        Field(
            description="Why not: the room refuses the message, the subscription is disabled, its event types do not accept it, or its filter's first failed condition (`payload.amount: 50 is not >= 100`). Null when it matched."
        ),
    ] = None


class TestEventSent(ApiModel):
    message_id: Annotated[
        str,
        Field(
            alias="messageId",
            description="The test message: its deliveries and attempts are read like any other's.",
        ),
    ]
    event_type: Annotated[str, Field(alias="eventType")]
    event_version: Annotated[str, Field(alias="eventVersion")]
    payload: Any = None


class TransformationTestResult(ApiModel):
    outcome: Annotated[
        Literal["transformed", "cancelled", "failed"],
        Field(
            description="`transformed`: the delivery would carry `payload`; `cancelled`: it would end `filtered`; `failed`: the attempt would fail with `error` (and be retried)."
        ),
    ]
    version: Annotated[int | None, Field(description="The version run; null: a candidate source.")] = None
    payload: Any | None = None
    url: str | None = None
    method: str | None = None
    headers: dict[str, str] | None = None
    error: str | None = None


class TransformationVersion(ApiModel):
    version: Annotated[int, Field(description="Counts up from 1 for each subscription; never reused.")]
    source: str
    created_at: Annotated[str, Field(alias="createdAt")]


class TransformationView(ApiModel):
    current: Annotated[
        TransformationVersion | None, Field(description="What runs on each delivery; null: none.")
    ] = None
    previous: Annotated[
        TransformationVersion | None,
        Field(description="What a rollback makes current again; null: none kept."),
    ] = None


class Validated(ApiModel):
    valid: Annotated[
        bool, Field(description="True when the payload meets its version's schema, or there is none.")
    ]
    checked: Annotated[bool, Field(description="Whether that version has a schema to check against.")]
    errors: Annotated[
        list[SchemaError], Field(description="At most 20, in the schema's order.", validate_default=True)
    ] = []
    details_cut_short: Annotated[
        bool,
        Field(
            alias="detailsCutShort",
            description="True when `errors` may not be all of them: collecting every error of this payload would cost more than a check may (then the first error is given, or none).",
        ),
    ] = False


class WebhookMessage(ApiModel):
    message_id: Annotated[str, Field(alias="messageId")]
    room_id: Annotated[str, Field(alias="roomId")]
    subscription_id: Annotated[str, Field(alias="subscriptionId")]
    event_type: Annotated[str, Field(alias="eventType")]
    event_version: Annotated[str, Field(alias="eventVersion")]
    correlation_id: Annotated[str, Field(alias="correlationId")]
    published_at: Annotated[str, Field(alias="publishedAt")]
    attempt: Annotated[int, Field(description="0 for the first delivery.")]
    payload: Annotated[Any, Field(description="The payload as published: any JSON.")] = None

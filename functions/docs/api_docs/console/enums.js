// Generated from functions/docs/api_docs/openapi.json by `make sdk-models`
// (python -m roomcast_dev.sdk_models): do not edit. `make template-inputs` and
// tests/unit/test_generated_clients.py fail while it is stale.

// The roomcast API's enumerations, each a frozen array of its values in the API's order
// (docs/decisions/0044-generated-sdk-models.md).

// DeliveryView.status
export const DELIVERY_STATUSES = Object.freeze(["scheduled", "waiting", "pending", "retrying", "delivered", "dead", "expired", "cleared", "cancelled", "aborted", "filtered"]);

// AttemptView.event
export const ATTEMPT_EVENTS = Object.freeze(["post", "send", "pull", "ack", "nack", "ack_wait_expired"]);

// JobView.kind
export const JOB_KINDS = Object.freeze(["clear-deliveries", "purge-dead-letters", "replay-dead-letters", "delete-room", "retry-deliveries"]);

// JobView.state
export const JOB_STATES = Object.freeze(["running", "succeeded", "failed"]);

// SubscriptionResponse.type
export const SUBSCRIPTION_TYPES = Object.freeze(["PUSH", "PULL"]);

// SubscriptionResponse.status
export const SUBSCRIPTION_STATUSES = Object.freeze(["active", "paused", "disabled"]);

// SubscriptionResponse.onDeadKey
export const ON_DEAD_KEY_CHOICES = Object.freeze(["pause", "skip"]);

// PushSubscriptionCreate.format
export const WEBHOOK_FORMATS = Object.freeze(["standard", "cloudevents"]);

// TransformationTestResult.outcome
export const TRANSFORMATION_OUTCOMES = Object.freeze(["transformed", "cancelled", "failed"]);

// DestinationBody.kind
export const DESTINATION_KINDS = Object.freeze(["sqs", "eventbridge", "sns"]);

// PushSubscriptionCreate.cloudEventsMode
export const CLOUD_EVENTS_MODES = Object.freeze(["structured", "binary"]);

// OrderingKeyView.status
export const ORDERING_KEY_STATUSES = Object.freeze(["flowing", "paused"]);

// NackOutcome.outcome
export const NACK_OUTCOMES = Object.freeze(["retry", "dead", "expired"]);

// RoomResponse.undeclaredEventTypes
export const UNDECLARED_EVENT_TYPES_CHOICES = Object.freeze(["allow", "reject"]);

// EventTypeView.validation
export const VALIDATION_MODES = Object.freeze(["reject", "warn", "off"]);

// MetricsResponse.resolution
export const METRICS_RESOLUTIONS = Object.freeze(["1m", "1h"]);

// AlertRuleView.state
export const ALERT_STATES = Object.freeze(["ok", "firing"]);

// AlertEventView.state
export const ALERT_CHANGES = Object.freeze(["firing", "resolved"]);

// an alert rule's condition.in
export const WATCHED_SUBSCRIPTION_STATES = Object.freeze(["active", "failing", "paused", "disabled"]);

// an API key's scopes
export const API_KEY_SCOPES = Object.freeze(["admin", "manage", "read", "publish", "consume"]);

// the webhook-delivery header of a webhook's answer
export const DELIVERY_CONTROLS = Object.freeze(["abort", "disable"]);

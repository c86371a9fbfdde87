"""Defaults and upper bounds of the delivery policy, in one place (documented in docs/limits.md)."""

from __future__ import annotations

from typing import Final

from roomcast.platform.clock import DAY_MS, HOUR_MS, SECOND_MS

# Room defaults: five redeliveries at +1 s, +3 s, +7 s, +15 s, +31 s.
DEFAULT_DELIVERY_DELAY_MS: Final = 1_000
DEFAULT_DELIVERY_DELAY_MULTIPLIER: Final = 2.0
DEFAULT_DELIVERY_ATTEMPTS: Final = 5

# SQS keeps a message at most 14 days: a PULL message nobody reads is gone then, expired or not.
MAX_MESSAGE_EXPIRATION_MS: Final = 14 * DAY_MS
MAX_DELIVERY_DELAY_MS: Final = 1 * DAY_MS
MAX_DELIVERY_DELAY_MULTIPLIER: Final = 10.0
MAX_DELIVERY_ATTEMPTS: Final = 50
# No single wait is ever longer than this, whatever the formula says.
MAX_SINGLE_DELAY_MS: Final = 7 * DAY_MS
MIN_MAX_DELAY_MS: Final = 1 * SECOND_MS
MAX_RETRY_SCHEDULE_LENGTH: Final = MAX_DELIVERY_ATTEMPTS

# PUSH request timeout; the push function's own timeout (template) is longer: a request never outlives it.
DEFAULT_PUSH_TIMEOUT_MS: Final = 10 * SECOND_MS
MIN_PUSH_TIMEOUT_MS: Final = 1 * SECOND_MS
MAX_PUSH_TIMEOUT_MS: Final = 30 * SECOND_MS

# PULL ack wait (SQS visibility timeout, whole seconds; SQS allows at most 12 h).
DEFAULT_ACK_WAIT_MS: Final = 30 * SECOND_MS
MIN_ACK_WAIT_MS: Final = 1 * SECOND_MS
MAX_ACK_WAIT_MS: Final = 12 * HOUR_MS

# PUSH flow control (docs/decisions/0016-flow-control.md).
MAX_CONCURRENCY: Final = 100
MAX_RATE_LIMIT_PER_SECOND: Final = 1_000
MIN_RATE_LIMIT_PER_SECOND: Final = 0.000001  # "> 0", within DynamoDB's number precision
# Auto-disable: a PUSH subscription whose every attempt failed for this long is disabled.
DEFAULT_DISABLE_AFTER_FAILING_MS: Final = 5 * DAY_MS
MIN_DISABLE_AFTER_FAILING_MS: Final = 1 * SECOND_MS
MAX_DISABLE_AFTER_FAILING_MS: Final = 30 * DAY_MS

MAX_NAME_LENGTH: Final = 128
MAX_EVENT_TYPES: Final = 100
# A write of the event-type catalog (POST /event-types, PATCH /event-types/{name}) counts as this many
# requests of the tenant's rate: counting its schemas' cost may take up to ~1 s (ADR 0043).
CATALOG_WRITE_WEIGHT: Final = 20
MAX_VERSIONS_PER_EVENT_TYPE: Final = 50
MAX_PUSH_URL_LENGTH: Final = 2_048
MAX_SUBSCRIPTIONS_PER_ROOM: Final = 200
# A failover's chain (the failover, its failover, ...): delivery hands a message on at most 10
# times, and a change is written with one condition per subscription of the chain (ADR 0020).
MAX_FAILOVER_CHAIN_LENGTH: Final = 10
# Every live signing secret signs every webhook: 3 keep the signature header small (ADR 0020).
MAX_LIVE_SIGNING_SECRETS: Final = 3
# API keys a tenant may hold at once (rotation needs two; a team per service needs a few more).
MAX_API_KEYS_PER_TENANT: Final = 20
DEFAULT_PAGE_SIZE: Final = 50
MAX_PAGE_SIZE: Final = 100
# Dead letters replayed (or purged) per call when no ids are given.
REPLAY_BATCH: Final = 100

# A message's payload, serialized as compact JSON. SQS takes 1 MiB and DynamoDB 400 KB per item;
# 128 KiB leaves room for the envelope and keeps a PULL batch of 10 within SQS's limits.
MAX_PAYLOAD_BYTES: Final = 128 * 1024
# An Idempotency-Key names one publish (and one message) for this long.
IDEMPOTENCY_WINDOW_MS: Final = 24 * HOUR_MS
# A publish request body; bigger bodies are refused before they are parsed.
MAX_PUBLISH_BODY_BYTES: Final = 256 * 1024
# A batch publish: at most this many messages, and a body of at most 1 MiB (each payload keeps its
# own 128 KiB limit). 1 MiB is what one SQS batch call carries, keeps a batch's work well inside
# the function's 29 s, and far below Lambda's 6 MB request limit.
MAX_PUBLISH_BATCH_MESSAGES: Final = 100
MAX_PUBLISH_BATCH_BODY_BYTES: Final = 1024 * 1024
# A management request body: an event type with all its schemas (20 × 32 KiB as compact JSON) fits
# twice over, whitespace and all; anything larger is refused before it is parsed.
MAX_MANAGEMENT_BODY_BYTES: Final = 2 * 1024 * 1024

# How long the outbox's tasks wait to outlive every request running when they were sent: above
# the publish function's 29 s timeout (API Gateway's), with margin; SQS delays at most 15 minutes
# (roomcast.outbox.tasks; template: OutboxSettleSeconds).
DEFAULT_OUTBOX_SETTLE_SECONDS: Final = 60
MAX_OUTBOX_SETTLE_SECONDS: Final = 900

# -- the event-type catalog (issue 26) -------------------------------------------------------------
MAX_CATALOG_EVENT_TYPES: Final = 500  # per tenant, archived ones included
MAX_SCHEMA_BYTES: Final = 32 * 1024  # one version's JSON Schema, as compact JSON
MAX_SCHEMA_VERSIONS: Final = 20  # schemas of one event type
MAX_DESCRIPTION_LENGTH: Final = 1_024
MAX_SCHEMA_ERRORS: Final = 20  # what a refusal or a warned message names, at most
# The catalog's export (GET /catalog/openapi.json): under Lambda's 6 MB response, with room to spare;
# a larger one is refused (422 export_too_large) and can be exported a few event types at a time.
MAX_EXPORT_BYTES: Final = 5 * 1024 * 1024
# How deep a schema's JSON may nest (a payload may nest deeper: a recursive schema follows it).
MAX_SCHEMA_DEPTH: Final = 64
# The work a rule may cause, in evaluation units (about 20 ns of one core each; ADR 0043): the most
# one payload value may cost against a schema, and what checking one payload may cost in all (a
# payload whose check would cost more is refused, 422 ``schema_check_too_costly``: ~50 ms).
MAX_SCHEMA_COST_PER_VALUE: Final = 100_000
SCHEMA_CHECK_BUDGET: Final = 2_500_000
# What a batch publish's checks may cost together (~100 ms); a message past it: publish it again.
SCHEMA_REQUEST_BUDGET: Final = 2 * SCHEMA_CHECK_BUDGET
# A refusal lists each error (quoting its value) only for a payload this small and a check this
# cheap; past them, the first error without its value (or only the verdict), "details cut short".
SCHEMA_DETAILS_BUDGET: Final = 10_000
SCHEMA_DETAILS_VALUES: Final = 2_000

# Alert rules (docs/alerts.md): how many a tenant may have.
MAX_ALERT_RULES: Final = 100

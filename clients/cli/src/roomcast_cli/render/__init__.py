"""Human output: rich renderables built from the API's JSON (camelCase dicts), with no I/O, so each
is tested on its own (tests/unit/test_cli_render.py). Commands call ``render.<view>``; the views
live by subject, and this package names the ones the rest of the CLI uses:

- ``text``: small values as strings (times, excerpts, one-line JSON, event types);
- ``blocks``: tables of plain-text cells, ``field  value`` details, list pages, one-time secrets;
- ``resources``: rooms, subscriptions, their schedule, secrets and paused keys, API keys, portal
  sessions;
- ``messages``: publish answers, messages, deliveries, dead letters, pulls, receipts, webhooks;
- ``timeline``: `messages show`'s timeline of each destination's attempts;
- ``filters``: the subscriptions a message was filtered out of, and `filters test`'s verdicts;
- ``catalog``: the event-type catalog, a payload's check, a warned message's schema errors;
- ``metrics``: metrics over time, a row per point with activity, a summary and a sparkline;
- ``alerts``: the alerts firing and recent, the alert rules, a new rule's one-time secret.
"""

from roomcast_cli.render.alerts import alert_rule_details, alert_rules_table, alerts_view, snoozed_rule
from roomcast_cli.render.blocks import details, line
from roomcast_cli.render.catalog import event_type_details, event_types_table, schema_error_lines, validated
from roomcast_cli.render.filters import filter_test_table, filtered_out_lines
from roomcast_cli.render.messages import (
    cancelled_message,
    dead_letters_table,
    deliveries_table,
    job_result,
    messages_table,
    publish_batch_result,
    publish_result,
    pulled_messages,
    receipts_result,
    replay_result,
    webhook_line,
)
from roomcast_cli.render.metrics import metrics_view
from roomcast_cli.render.resources import (
    api_keys_table,
    created_api_key,
    paused_keys_table,
    portal_session,
    rooms_table,
    rotated_secret,
    schedule_table,
    subscription_details,
    subscriptions_table,
)
from roomcast_cli.render.text import EXCERPT_CHARS, FINAL_STATUSES, compact_json, deliveries_summary
from roomcast_cli.render.timeline import build_timeline, message_timeline

__all__ = [
    "EXCERPT_CHARS",
    "FINAL_STATUSES",
    "alert_rule_details",
    "alert_rules_table",
    "alerts_view",
    "api_keys_table",
    "build_timeline",
    "cancelled_message",
    "compact_json",
    "created_api_key",
    "dead_letters_table",
    "deliveries_summary",
    "deliveries_table",
    "details",
    "event_type_details",
    "event_types_table",
    "filter_test_table",
    "filtered_out_lines",
    "job_result",
    "line",
    "message_timeline",
    "messages_table",
    "metrics_view",
    "paused_keys_table",
    "portal_session",
    "publish_batch_result",
    "publish_result",
    "pulled_messages",
    "receipts_result",
    "replay_result",
    "rooms_table",
    "rotated_secret",
    "schedule_table",
    "schema_error_lines",
    "snoozed_rule",
    "subscription_details",
    "subscriptions_table",
    "validated",
    "webhook_line",
]

"""Management function: rooms, subscriptions, filter dry runs, the event-type catalog, message
status, signing secrets, schedules, ordering keys, metrics, alerts, dead letters, jobs, API keys
and portal sessions. One package per resource; each route's models and OpenAPI live beside it."""

from __future__ import annotations

from typing import Any

from management_api import dependencies
from management_api.alerts.routes import routes as alert_routes
from management_api.api_keys.routes import routes as api_key_routes
from management_api.dead_letters.routes import routes as dead_letter_routes
from management_api.deliveries.routes import routes as delivery_routes
from management_api.event_types.routes import routes as event_type_routes
from management_api.filters.routes import routes as filter_routes
from management_api.jobs.routes import routes as job_routes
from management_api.messages.routes import routes as message_routes
from management_api.metrics.routes import routes as metrics_routes
from management_api.ordering_keys.routes import routes as ordering_key_routes
from management_api.portal_reach import subscription_in_reach
from management_api.portal_sessions.routes import routes as portal_session_routes
from management_api.rooms.routes import routes as room_routes
from management_api.schedule.routes import routes as schedule_routes
from management_api.signing_secrets.routes import routes as secret_routes
from management_api.subscriptions.routes import routes as subscription_routes
from management_api.test_events.routes import routes as test_event_routes
from management_api.transformations.routes import routes as transformation_routes
from roomcast import wiring
from roomcast.access import AccessGate
from roomcast.api import http_handler, new_api
from roomcast.platform import limits

ROUTES = (
    room_routes,
    subscription_routes,
    transformation_routes,
    filter_routes,
    event_type_routes,
    message_routes,
    delivery_routes,
    secret_routes,
    test_event_routes,
    schedule_routes,
    ordering_key_routes,
    metrics_routes,
    alert_routes,
    dead_letter_routes,
    job_routes,
    api_key_routes,
    portal_session_routes,
)
app = new_api(
    *(r.router for r in ROUTES),
    # API Gateway sends POST here to the publish function, every other method to this one.
    served_elsewhere=[("POST", "/rooms/{roomId}/messages"), ("POST", "/rooms/{roomId}/messages/batch")],
)


def _flush_log(request_id: str) -> None:
    if dependencies.delivery_log.cache_info().currsize:  # only requests that reached the data log records
        dependencies.delivery_log().flush(request_id)


def request_weight(event: dict[str, Any]) -> int:
    """A write of the event-type catalog counts as CATALOG_WRITE_WEIGHT requests of the tenant's
    rate: each of its schemas is counted before it is saved, up to ~1 s of CPU in all
    (docs/decisions/0043-bounded-rule-work.md); so does making or deleting an alert rule, which
    writes the one partition all tenants share (docs/decisions/0047-alerts.md); every other
    request counts as one."""
    method = str(event.get("requestContext", {}).get("http", {}).get("method", "")).upper()
    path = str(event.get("rawPath", "")).rstrip("/")
    catalog_write = (method == "POST" and path == "/event-types") or (
        method == "PATCH" and path.startswith("/event-types/") and path.count("/") == 2
    )
    rule_pointer_write = (method == "POST" and path == "/alert-rules") or (
        method == "DELETE" and path.startswith("/alert-rules/")
    )
    return limits.CATALOG_WRITE_WEIGHT if catalog_write or rule_pointer_write else 1


lambda_handler = http_handler(
    app,
    _flush_log,
    wiring.tenant_throttle,
    max_body_bytes=limits.MAX_MANAGEMENT_BODY_BYTES,
    request_weight=request_weight,
    # Portal sessions reach only this function's routes (ADR 0048).
    gate=AccessGate(sessions=dependencies.portal_session_table, subscription_reach=subscription_in_reach),
)

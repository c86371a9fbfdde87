"""Management function: rooms, subscriptions, filter dry runs, the event-type catalog, message
status, signing secrets, schedules, ordering keys, dead letters, jobs and API keys. One package per resource;
each route's models and OpenAPI live beside it."""

from __future__ import annotations

from management_api import dependencies
from management_api.api_keys.routes import routes as api_key_routes
from management_api.dead_letters.routes import routes as dead_letter_routes
from management_api.deliveries.routes import routes as delivery_routes
from management_api.event_types.routes import routes as event_type_routes
from management_api.filters.routes import routes as filter_routes
from management_api.jobs.routes import routes as job_routes
from management_api.messages.routes import routes as message_routes
from management_api.ordering_keys.routes import routes as ordering_key_routes
from management_api.rooms.routes import routes as room_routes
from management_api.schedule.routes import routes as schedule_routes
from management_api.signing_secrets.routes import routes as secret_routes
from management_api.subscriptions.routes import routes as subscription_routes
from roomcast.api.handlers import http_handler, new_api
from roomcast.domain import limits

ROUTES = (
    room_routes,
    subscription_routes,
    filter_routes,
    event_type_routes,
    message_routes,
    delivery_routes,
    secret_routes,
    schedule_routes,
    ordering_key_routes,
    dead_letter_routes,
    job_routes,
    api_key_routes,
)
app = new_api(
    *(r.router for r in ROUTES),
    # API Gateway sends POST here to the publish function, every other method to this one.
    served_elsewhere=[("POST", "/rooms/{roomId}/messages"), ("POST", "/rooms/{roomId}/messages/batch")],
)


def _flush_log(request_id: str) -> None:
    if dependencies.delivery_log.cache_info().currsize:  # only requests that reached the data log records
        dependencies.delivery_log().flush(request_id)


lambda_handler = http_handler(app, _flush_log, max_body_bytes=limits.MAX_MANAGEMENT_BODY_BYTES)

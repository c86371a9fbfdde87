"""The catalog as an OpenAPI 3.1 document of ``webhooks``: one operation per event type and version,
the body a subscriber receives (roomcast's webhook envelope, with the payload's schema inside) and
the Standard Webhooks headers that sign it. Subscribers generate their receivers' code from it.
Pure: built from the catalog's event types and schemas, nothing read here."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from roomcast.event_types import EventType
from roomcast.webhooks import receiver_responses, signing_parameters, webhook_body_schema


def webhooks_document(
    tenant_id: str, event_types: Sequence[tuple[EventType, Mapping[str, dict[str, Any]]]]
) -> dict[str, Any]:
    """``event_types``: each event type with its schemas by version (archived ones left out)."""
    webhooks: dict[str, Any] = {}
    for event_type, schemas in sorted(event_types, key=lambda entry: entry[0].name):
        for version, schema in sorted(schemas.items()):
            webhooks[f"{event_type.name} v{version}"] = {"post": _operation(event_type, version, schema)}
    updated = max((event_type.updated_at for event_type, _ in event_types), default="empty")
    return {
        "openapi": "3.1.0",
        "info": {
            "title": f"roomcast webhooks of tenant {tenant_id}",
            "version": updated,
            "description": "The messages a roomcast PUSH subscription receives, one webhook per event type "
            "and version of the tenant's catalog. Verify the signature before trusting a body; answer "
            "2xx to acknowledge, 410 to disable the subscription; anything else is retried. A "
            "`webhook-delivery: abort` or `disable` answer header stops this message or the subscription.",
        },
        "webhooks": webhooks,
    }


def _operation(event_type: EventType, version: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    payload = dict(schema)
    # Its own resource: the schema's "#/…" references resolve inside it, not in this document.
    payload.setdefault("$id", f"urn:roomcast:event-type:{event_type.name}:{version}")
    description = event_type.description or f"{event_type.name}, version {version}."
    return {
        "operationId": re.sub(r"[^A-Za-z0-9]+", "_", f"{event_type.name}_v{version}"),
        "summary": f"{event_type.name} version {version}",
        "description": description,
        "deprecated": event_type.deprecated,
        "parameters": signing_parameters(),
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": _envelope(event_type.name, version, payload)}},
        },
        "responses": receiver_responses(),
    }


def _envelope(name: str, version: str, payload: dict[str, Any]) -> dict[str, Any]:
    return webhook_body_schema({"const": name}, {"const": version}, payload)

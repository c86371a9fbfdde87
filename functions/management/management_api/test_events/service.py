"""Sending one subscription a test event: a real message, published to that subscription alone
(whatever its event types and filter policy), signed, retried and logged like any other."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from management_api.test_events.models import PING
from roomcast.catalog import CatalogTable
from roomcast.event_types import EventTypeTable
from roomcast.messages import Message, Publication
from roomcast.platform import InvalidRequest, NotFound, now_iso
from roomcast.publishing import Publisher


@dataclass(frozen=True)
class TestEvent:
    message: Message


@dataclass
class TestEventsService:
    catalog: CatalogTable
    event_types: EventTypeTable
    publisher: Callable[[], Publisher]  # made on the first test event (the publish path is heavy)

    def send(
        self,
        tenant_id: str,
        room_id: str,
        subscription_id: str,
        event_type: str | None,
        event_version: str | None,
        payload: Any,
    ) -> Message:
        subscription = self.catalog.get_subscription(tenant_id, room_id, subscription_id)
        if event_type is None:
            event_type, event_version = PING, event_version or "1"
            payload = (
                payload
                if payload is not None
                else {"test": True, "subscriptionId": subscription.id, "sentAt": now_iso()}
            )
        else:
            event_version, sample = self._sample(tenant_id, event_type, event_version)
            payload = payload if payload is not None else sample
        publication = Publication(
            event_type, event_version, payload, destinations=(subscription.id,), test_event=True
        )
        return self.publisher().publish_message(tenant_id, room_id, publication)

    def _sample(self, tenant_id: str, name: str, version: str | None) -> tuple[str, Any]:
        """The version to send and a payload: its schema's first example, else ``{}``."""
        try:
            event_type = self.event_types.get(tenant_id, name)
        except NotFound:
            raise InvalidRequest(
                f"body.eventType: {name} is not in your catalog",
                details=[
                    {"field": "body.eventType", "problem": "not in the catalog", "type": "unknown_event_type"}
                ],
            ) from None
        versions = sorted(event_type.schema_digests, key=_version_order)
        chosen = version or (versions[-1] if versions else "1")
        digest = event_type.schema_digests.get(chosen)
        if digest is None:
            return chosen, {}
        text = self.event_types.schemas(tenant_id, [digest]).get(digest)
        examples = json.loads(text).get("examples") if text else None
        return chosen, examples[0] if isinstance(examples, list) and examples else {}


def _version_order(version: str) -> tuple[int, str]:
    return (int(version), version) if version.isdigit() else (0, version)

"""The tenant the sample events (events/*.json) name: its API key, room, PULL and PUSH
subscriptions. The tests seed it before feeding a sample to its function; ``make invoke`` seeds it
in the running local stack when it is not there yet, so a sample gets the answer it documents."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

SAMPLE_API_KEY = "rc_sample_key_for_sam_local_invoke_0000000000"
SAMPLE_API_KEY_ID = "key_00000000000000a1"
SAMPLE_TENANT = "sample"
SAMPLE_ROOM_ID = "room_0123456789abcdef0123456789abcdef"
SAMPLE_SUBSCRIPTION_ID = "sub_0123456789abcdef0123456789abcdef"
SAMPLE_PUSH_SUBSCRIPTION_ID = "sub_fedcba9876543210fedcba9876543210"
# Nothing listens on the discard port: the sample webhook fails and is scheduled for a retry.
SAMPLE_PUSH_URL = "http://127.0.0.1:9/hooks"
SAMPLE_STAMP = "2026-11-22T00:00:00.000Z"
SAMPLE_ROOM: dict[str, Any] = {
    "id": SAMPLE_ROOM_ID,
    "name": "sample",
    "messageExpirationMs": None,
    "deliveryDelayMs": 1000,
    "deliveryDelayMultiplier": 2.0,
    "deliveryAttempts": 5,
    "eventTypes": [],
    "operationsRoomId": None,
    "undeclaredEventTypes": "allow",
    "createdAt": SAMPLE_STAMP,
    "updatedAt": SAMPLE_STAMP,
}


def seed_sample_tenant(table_name: str, queue_prefix: str, dynamodb: Any = None, sqs: Any = None) -> None:
    """What the sample events refer to: the sample key, its tenant's room and a PULL subscription."""
    from roomcast.catalog.model import (
        DeliveryOverrides,
        Room,
        SigningSecret,
        Subscription,
        SubscriptionStatus,
        SubscriptionType,
    )
    from roomcast.catalog.store import CatalogTable
    from roomcast.keys.store import ApiKeyEntry, ApiKeyTable
    from roomcast.platform.credentials import hash_api_key
    from roomcast.pull.queues import QueueAdmin

    repository = CatalogTable(table_name, client=dynamodb)
    stamp = SAMPLE_STAMP
    ApiKeyTable.sharing(repository).put(
        hash_api_key(SAMPLE_API_KEY), ApiKeyEntry(SAMPLE_TENANT, SAMPLE_API_KEY_ID, "sample", stamp)
    )
    repository.create_room(
        Room(SAMPLE_ROOM_ID, SAMPLE_TENANT, "sample", None, 1000, 2.0, 5, (), stamp, stamp)
    )
    queues = QueueAdmin(queue_prefix, client=sqs).create_pull_queues(
        SAMPLE_SUBSCRIPTION_ID, SAMPLE_TENANT, SAMPLE_ROOM_ID, 30_000
    )
    pull = Subscription(
        id=SAMPLE_SUBSCRIPTION_ID,
        room_id=SAMPLE_ROOM_ID,
        tenant_id=SAMPLE_TENANT,
        type=SubscriptionType.PULL,
        status=SubscriptionStatus.ACTIVE,
        event_types=(),
        overrides=DeliveryOverrides(),
        failover_subscription_id=None,
        created_at=stamp,
        updated_at=stamp,
        ack_wait_ms=30_000,
        queue_url=queues.queue_url,
        dead_letter_queue_url=queues.dead_letter_queue_url,
    )
    repository.create_subscription(pull)
    secret = SigningSecret("whsec_c2FtcGxlLXNpZ25pbmctc2VjcmV0LTMyLWJ5dGVzLi4=")
    repository.create_subscription(
        replace(
            pull,
            id=SAMPLE_PUSH_SUBSCRIPTION_ID,
            type=SubscriptionType.PUSH,
            ack_wait_ms=None,
            queue_url=None,
            dead_letter_queue_url=None,
            push_url=SAMPLE_PUSH_URL,
            timeout_ms=2_000,
            signing_secrets=(secret,),
        )
    )


def sample_tenant_present(table_name: str, dynamodb: Any = None) -> bool:
    """Whether the sample room is in the table already."""
    from roomcast.catalog.store import CatalogTable
    from roomcast.platform.errors import NotFound

    try:
        CatalogTable(table_name, client=dynamodb).get_room(SAMPLE_TENANT, SAMPLE_ROOM_ID)
    except NotFound:
        return False
    return True

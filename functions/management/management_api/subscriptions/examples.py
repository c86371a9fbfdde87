"""A subscription as the API shows it: the documented example of its answers."""

from __future__ import annotations

from typing import Any

PUSH_EXAMPLE: dict[str, Any] = {
    "id": "sub_4f8f7d1c2b3a49e6a0c1d2e3f4a5b6c7",
    "roomId": "room_7d0c6a1e5b2f4c3d9e8a7b6c5d4e3f21",
    "type": "PUSH",
    "status": "active",
    "eventTypes": [{"name": "order.created", "versions": []}],
    "filterPolicy": {"amount": [{"numeric": [">=", 100]}], "currency": ["EUR", "USD"]},
    "pushUrl": "https://hooks.example.com/roomcast",
    "deliveryDelayMs": None,
    "deliveryDelayMultiplier": None,
    "deliveryAttempts": 8,
    "maxDelayMs": 3600000,
    "jitter": 0.2,
    "retryScheduleMs": None,
    "failoverSubscriptionId": None,
    "timeoutMs": 10000,
    "ackWaitMs": None,
    "maxConcurrency": 5,
    "rateLimitPerSecond": 20,
    "disableAfterFailingMs": 432000000,
    "recoveryProbes": True,
    "ordered": False,
    "onDeadKey": "pause",
    "disabledReason": None,
    "disabledAt": None,
    "probingSince": None,
    "createdAt": "2026-11-22T10:00:00.000Z",
    "updatedAt": "2026-11-22T10:00:00.000Z",
}

DESTINATION_EXAMPLE = {
    "kind": "sqs",
    "arn": "arn:aws:sqs:eu-west-1:111122223333:orders",
    "roleArn": "arn:aws:iam::111122223333:role/roomcast-delivery",
    "externalId": "acme-7f3c2a",
}

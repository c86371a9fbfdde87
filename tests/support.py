"""Helpers shared by the test tiers."""

from __future__ import annotations

import functools
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qsl

from roomcast_dev.samples import (
    SAMPLE_API_KEY_ID,
    SAMPLE_PUSH_SUBSCRIPTION_ID,
    SAMPLE_ROOM,
    SAMPLE_SUBSCRIPTION_ID,
    SAMPLE_TENANT,
)

PROJECT_ROOT = Path(__file__).resolve().parents[1]
EVENTS_DIR = PROJECT_ROOT / "events"


def clear_cached_factories(handler_module: ModuleType) -> None:
    """Forget everything a function made once per container (its ``@cache`` factories: stores,
    services, logs), so the next call builds them for the current environment, as a new Lambda
    execution environment would."""
    package = handler_module.__name__.partition(".")[0]
    for name, module in list(sys.modules.items()):
        if name == package or name.startswith(f"{package}."):
            for value in vars(module).values():
                if isinstance(value, functools._lru_cache_wrapper):
                    value.cache_clear()


def sample_events() -> list[Path]:
    return sorted(EVENTS_DIR.glob("*.json"))


def function_of(event_file: Path) -> str:
    """events/management-create-room.json -> ManagementFunction; slowpush-… -> SlowPushFunction."""
    name = event_file.stem.split("-", 1)[0]
    return {"slowpush": "SlowPush"}.get(name, name.capitalize()) + "Function"


def load_event(event_file: Path) -> dict[str, Any]:
    event: dict[str, Any] = json.loads(event_file.read_text(encoding="utf-8"))
    return event


class FakeLambdaContext:
    """The attributes of Lambda's context object that handlers and powertools read."""

    function_name = "test-function"
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:test-function"
    aws_request_id = "00000000-0000-0000-0000-000000000000"
    log_group_name = "/aws/lambda/test-function"
    log_stream_name = "test"

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


def api_event(
    method: str,
    path: str,
    body: Any = None,
    tenant: str = SAMPLE_TENANT,
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """An API Gateway HTTP API (v2) event as the gateway sends it after the authorizer (a query
    string after ``?`` in ``path`` is passed as the gateway passes it)."""
    path, _, query = path.partition("?")
    parameters = dict(parse_qsl(query, keep_blank_values=True))
    return {
        "version": "2.0",
        "routeKey": "ANY /{proxy+}",
        "rawPath": path,
        "rawQueryString": query,
        **({"queryStringParameters": parameters} if parameters else {}),
        "headers": {"content-type": "application/json", **(headers or {})},
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "test",
            "authorizer": {"lambda": {"tenantId": tenant}},
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "127.0.0.1",
                "userAgent": "t",
            },
            "requestId": "test-request",
            "routeKey": "ANY /{proxy+}",
            "stage": "$default",
            "time": "22/Nov/2026:00:00:00 +0000",
            "timeEpoch": 0,
        },
        "body": json.dumps(body) if body is not None else None,
        "isBase64Encoded": False,
    }


def expected_response(event_file: Path, api_document: dict[str, Any]) -> dict[str, Any]:
    """The exact answer each sample event gets, after ``seed_sample_tenant`` (ids and times by shape);
    ``api_document`` is the merged OpenAPI document the docs function serves."""
    from tests.matchers import MESSAGE_ID, ROOM_ID, TIMESTAMP

    name = event_file.name
    if name == "docs-openapi-document.json":
        return {"statusCode": 200, "body": api_document}
    if name == "authorizer-request.json":
        context = {"tenantId": SAMPLE_TENANT, "keyId": SAMPLE_API_KEY_ID, "caller": "key", "scopes": "admin"}
        return {"isAuthorized": True, "context": {**context, "rooms": "", "roomLimited": "false"}}
    if name == "metrics-stream-window.json":
        # The window's last invocation writes its tally and starts the next window empty.
        return {"state": {"v": 1, "lo": None, "hi": None, "b": {}, "o": {}}, "batchItemFailures": []}
    if name == "alerts-scheduled.json":
        return {"rules": 0, "fired": 0, "resolved": 0}  # the sample tenant has no alert rule
    if name == "outbox-stream-unsent.json":
        # The sample PULL subscription's queue exists: the unsent envelope is sent, nothing retried.
        return {"batchItemFailures": []}
    if name in ("push-sqs-batch.json", "slowpush-sqs-batch.json"):
        # The sample webhook's port refuses the connection: retried later, not a batch item failure.
        return {"batchItemFailures": []}
    if name == "management-create-room.json":
        return {
            "statusCode": 201,
            "body": {
                "id": ROOM_ID,
                "name": "orders",
                "messageExpirationMs": 3600000,
                "deliveryDelayMs": 1000,
                "deliveryDelayMultiplier": 2.0,
                "deliveryAttempts": 4,
                "eventTypes": [{"name": "order.created", "versions": ["1", "2"]}],
                "operationsRoomId": None,
                "undeclaredEventTypes": "allow",
                "createdAt": TIMESTAMP,
                "updatedAt": TIMESTAMP,
            },
        }
    if name == "management-list-rooms.json":
        return {"statusCode": 200, "body": {"rooms": [SAMPLE_ROOM], "nextCursor": None}}
    if name == "publish-message.json":
        return {
            "statusCode": 202,
            "body": {
                "messageId": MESSAGE_ID,
                "correlationId": "order-42",
                "destinations": sorted([SAMPLE_SUBSCRIPTION_ID, SAMPLE_PUSH_SUBSCRIPTION_ID]),
                "filteredOut": [],
                "schemaErrors": [],
                "publishedAt": TIMESTAMP,
                "deliverAt": None,
                "orderingKey": None,
            },
        }
    if name == "publish-batch.json":
        # The second message has no payload: refused on its own, the first is published.
        missing = {"field": "body.messages.1.payload", "problem": "Field required", "type": "missing"}
        return {
            "statusCode": 200,
            "body": {
                "results": [
                    {
                        "status": 202,
                        "messageId": MESSAGE_ID,
                        "correlationId": "order-43",
                        "destinations": sorted([SAMPLE_SUBSCRIPTION_ID, SAMPLE_PUSH_SUBSCRIPTION_ID]),
                        "filteredOut": [],
                        "schemaErrors": [],
                        "publishedAt": TIMESTAMP,
                        "deliverAt": None,
                        "orderingKey": None,
                    },
                    {
                        "status": 422,
                        "error": {
                            "code": "validation_error",
                            "message": "body.messages.1.payload: Field required",
                            "details": [missing],
                        },
                    },
                ],
                "failedCount": 1,
            },
        }
    if name == "pull-messages.json":
        return {"statusCode": 200, "body": {"messages": [], "acked": None, "ackFailed": None}}
    raise AssertionError(f"no expected response for {name}; add one here")


def actual_response(result: Any) -> Any:
    """A handler's result with an HTTP API body parsed, for comparing with ``expected_response``."""
    if isinstance(result, dict) and "statusCode" in result:
        return {"statusCode": result["statusCode"], "body": json.loads(result["body"])}
    return result


def seed_copies(repository: Any, template: Any, copies: int) -> None:
    """``copies`` more subscriptions like ``template`` (new ids) in its room, counted on the room as
    creates count them: in batches of 25, not one transaction each (moto copies the table for
    every transaction, so 200 creates take seconds apiece at the end)."""
    import dataclasses

    from roomcast.catalog import items as catalog_items
    from roomcast.catalog.keys import SUBSCRIPTION_COUNT, SUBSCRIPTIONS_VERSION
    from roomcast.platform import ids, items

    subscriptions = [dataclasses.replace(template, id=ids.new_subscription_id()) for _ in range(copies)]
    client, table = repository._client, repository._table_name
    for start in range(0, copies, 25):
        requests = [
            {"PutRequest": {"Item": items.to_attributes(catalog_items.subscription_to_item(s))}}
            for s in subscriptions[start : start + 25]
        ]
        client.batch_write_item(RequestItems={table: requests})
    # Counted, and the room's subscriptions version moved on, as a create does (repository.py).
    client.update_item(
        TableName=table,
        Key={
            "PK": {"S": items.tenant_key(template.tenant_id)},
            "SK": {"S": catalog_items.room_sort_key(template.room_id)},
        },
        UpdateExpression=f"ADD {SUBSCRIPTION_COUNT} :n, {SUBSCRIPTIONS_VERSION} :one",
        ExpressionAttributeValues={":n": {"N": str(copies)}, ":one": {"N": "1"}},
    )


def cancelled_transaction(stub: Any, *codes: str) -> None:
    """Stub DynamoDB's cancellation of the next TransactWriteItems, one reason code per item
    (``ConditionalCheckFailed``, ``TransactionConflict``, ``None``): the emulator never cancels
    but for a condition."""
    from botocore.stub import ANY

    stub.add_client_error(
        "transact_write_items",
        service_error_code="TransactionCanceledException",
        service_message="Transaction cancelled",
        http_status_code=400,
        modeled_fields={"CancellationReasons": [{"Code": code} for code in codes]},
        expected_params={"TransactItems": ANY},
    )

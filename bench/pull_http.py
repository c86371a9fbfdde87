"""PULL over the HTTP API of the local stack (bench/pull_throughput.py's second figure): a tenant's
API key, a room with one PULL subscription, messages published in batches of 100, then pull 10 +
ack 10 over HTTP until empty, again with each pull acking the ten before, and by the Python SDK's PullConsumer
(which acks that way); bare SQS on the same emulator beside each, in alternated rounds
(bench/pull_throughput.py)."""

from __future__ import annotations

from typing import Any

import requests

from bench.harness import FUNCTION_LOG
from bench.pull_throughput import (
    PULL_MESSAGES,
    PullRates,
    alternated,
    bare_sqs_rate,
    pull_acking_all,
    pull_and_ack_all,
)
from roomcast.catalog.store import CatalogTable
from roomcast_client import Client, PullConsumer
from roomcast_dev.function_worker import FUNCTION_LOG_VARIABLE
from roomcast_dev.keys import create_api_key
from roomcast_dev.stack import LocalStack


def over_http() -> PullRates:
    """The rates over HTTP and of bare SQS, on a local stack of its own."""
    FUNCTION_LOG.parent.mkdir(parents=True, exist_ok=True)
    stack = LocalStack(
        stack_name="roomcast-bench-pull",
        function_concurrency=1,
        extra_function_environment={FUNCTION_LOG_VARIABLE: str(FUNCTION_LOG.resolve())},
    )
    stack.start()
    try:
        catalog = CatalogTable(stack.output("TableName"), client=stack.client("dynamodb"))
        with requests.Session() as session:
            key = create_api_key(catalog, "bench-pull")
            session.headers["Authorization"] = f"Bearer {key}"
            api = stack.api_url

            def post(path: str, body: dict[str, Any]) -> dict[str, Any]:
                response = session.post(f"{api}{path}", json=body, timeout=60)
                response.raise_for_status()
                answer: dict[str, Any] = response.json()
                return answer

            room_id = post("/rooms", {"name": "bench-pull"})["id"]
            subscription_id = post(f"/rooms/{room_id}/subscriptions", {"type": "PULL"})["id"]
            message = {"eventType": "e", "eventVersion": "1", "payload": {"n": 1}}
            base_path = f"/rooms/{room_id}/subscriptions/{subscription_id}"

            def publish_all() -> None:
                for _ in range(PULL_MESSAGES // 100):
                    post(f"/rooms/{room_id}/messages/batch", {"messages": [message] * 100})

            def pulled(ack: list[str] | None = None) -> list[str]:
                answer = post(f"{base_path}/pull", {"maxMessages": 10} | ({"ack": ack} if ack else {}))
                return [m["receipt"] for m in answer["messages"]]

            def ack(receipts: list[str]) -> None:
                post(f"{base_path}/ack", {"receipts": receipts})

            def bare_rate() -> float:
                return bare_sqs_rate(stack.client("sqs"), "bench-reference", PULL_MESSAGES)

            def consume_all() -> int:
                """A new consumer each round: its stats count from its start."""
                with Client(api, key) as client:
                    consumer = PullConsumer(
                        client, room_id, subscription_id, lambda message: None, wait_seconds=0
                    )
                    return consumer.run(until_idle=True).acked

            return PullRates(
                alternated(publish_all, lambda: pull_and_ack_all(pulled, ack), bare_rate),
                alternated(publish_all, lambda: pull_acking_all(pulled), bare_rate),
                alternated(publish_all, consume_all, bare_rate),
            )
    finally:
        stack.stop()

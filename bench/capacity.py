"""``make capacity``: the sustainable rate of each issue-24 scenario and the limit that binds first,
from the template's settings and what a published message really costs on each DynamoDB partition,
measured on the local stack with moto metered from inside (bench/meter.py). The arithmetic is
bench/capacity_model.py; the table and what raises each limit, docs/scaling.md."""

from __future__ import annotations

import sys
import time
from typing import Any

import requests

from bench import rule_budget
from bench.capacity_model import (
    LAMBDA_CONCURRENCY,
    QUOTAS_AS_OF,
    MessageCost,
    Settings,
    TenantHold,
    Verdict,
    busy_room,
    many_tenants,
    pull_consumers,
    slow_endpoint,
    tenant_hold,
    waiting_retries,
)
from bench.cost_scenario import metered_stack
from bench.meter import METER
from roomcast.catalog.store import CatalogTable
from roomcast_dev.keys import create_api_key
from roomcast_dev.stack import LocalStack
from roomcast_dev.template import load_template
from roomcast_dev.webhook_receiver import WebhookReceiver

# (subscriptions of the room, messages published to measure it)
MEASURED = ((200, 2), (5, 20))
PAYLOAD = {"orderId": 42, "note": "x" * 200}
DELIVERY_TIMEOUT_S = 300


def template_settings() -> Settings:
    defaults = {name: spec.get("Default") for name, spec in load_template().get("Parameters", {}).items()}
    return Settings(
        push_concurrency=int(defaults["PushConcurrency"]),
        slow_push_concurrency=int(defaults["SlowPushConcurrency"]),
        # Without ReserveConcurrency the pull function is capped by the account's concurrency only.
        pull_concurrency=int(defaults["PullConcurrencyLimit"])
        if defaults["ReserveConcurrency"] == "true"
        else LAMBDA_CONCURRENCY,
        api_rate=float(defaults["ApiRateLimit"]),
        tenant_rate=float(defaults["TenantRequestsPerSecond"]),
        tenant_burst=int(defaults["TenantRequestBurst"]),
    )


def measure(stack: LocalStack, subscriptions: int, messages: int) -> MessageCost:
    """Publish ``messages`` to a room of ``subscriptions`` PUSH subscriptions and wait until every
    webhook was answered and every queue is empty; what one message cost."""
    stack.reset()
    repository = CatalogTable(stack.output("TableName"), client=stack.client("dynamodb"))
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {create_api_key(repository, 'capacity')}"
    api = stack.api_url
    with WebhookReceiver() as receiver:
        room_id = session.post(f"{api}/rooms", json={"name": "capacity"}, timeout=60).json()["id"]
        for number in range(subscriptions):
            body = {"type": "PUSH", "pushUrl": receiver.url(f"/hook/{number}")}
            session.post(f"{api}/rooms/{room_id}/subscriptions", json=body, timeout=60).raise_for_status()
        time.sleep(1)  # the set-up's last log records settle before counting starts
        METER.reset()
        message: dict[str, Any] = {"eventType": "order.created", "eventVersion": "1", "payload": PAYLOAD}
        session.post(
            f"{api}/rooms/{room_id}/messages/batch", json={"messages": [message] * messages}, timeout=60
        )
        receiver.wait_for_requests(messages * subscriptions, DELIVERY_TIMEOUT_S)
        time.sleep(3)  # the last batches' bookkeeping and log writes
    stack.flush_delivery_streams()
    _, units, _ = METER.snapshot()
    with METER.lock:
        partitions = {name: wru / messages for name, wru in METER.partition_wru.items()}
    return MessageCost(
        subscriptions=subscriptions,
        partition_wru=partitions,
        table_wru=units.get("dynamodb_wru", 0.0) / messages,
        log_bytes=units.get("firehose_bytes", 0.0) / messages,
    )


def _rate(value: float) -> str:
    return "unbounded" if value == float("inf") else f"{value:,.0f}"


def report(verdicts: list[Verdict], costs: list[MessageCost]) -> None:
    print(f"\n## Capacity (quotas: {QUOTAS_AS_OF})\n")
    for cost in costs:
        print(
            f"One message to {cost.subscriptions} subscriptions, measured: {cost.table_wru:.1f} WRU in all, "
            f"{cost.log_bytes / 1024:.1f} KiB of delivery log; WRU by partition:"
        )
        for partition, wru in sorted(cost.partition_wru.items(), key=lambda item: -item[1]):
            print(f"  {wru:>8.2f}  {partition}")
    for verdict in verdicts:
        binding = verdict.binding
        state = "sustained" if verdict.sustained else "NOT sustained"
        print(f"\n### {verdict.scenario}: {verdict.demand:,.0f} {verdict.unit} — {state}\n")
        print(f"{'limit':<64} {'allows':>12}  single key  raised by")
        for bound in sorted(verdict.bounds, key=lambda b: b.allows):
            mark = "<- binds" if bound is binding else ""
            single = "yes" if bound.single_key else "no"
            print(f"{bound.limit[:64]:<64} {_rate(bound.allows):>12}  {single:<10}  {bound.raised_by} {mark}")


# Each kind of request: a route it takes (for the weight the API gives it), and its AWS calls' time,
# sequential waits at ~10-30 ms each on AWS (docs/benchmarks.md counts them), rounded up: what a
# request holds its execution for besides its rules.
REQUESTS = {
    "publish": ("POST", "/rooms/room_x/messages", 0.1),
    "publish a batch": ("POST", "/rooms/room_x/messages/batch", 0.3),
    "filter dry run": ("POST", "/rooms/room_x/filters/test", 0.05),
    "validate a payload": ("POST", "/event-types/order.created/validate", 0.05),
    "save an event type": ("POST", "/event-types", 0.1),
}


def report_tenant_holds(settings: Settings) -> list[TenantHold]:
    """The executions one tenant holds sending each kind of request at its whole rate, every rule it
    writes at its limit (the rules' CPU measured here: bench/rule_budget.py)."""
    from management_api.handler import request_weight

    print(
        f"\n## One tenant at its rate ({settings.tenant_rate:g}/s, a burst of {settings.tenant_burst}) with"
        f" every rule at its limit, against the account's {LAMBDA_CONCURRENCY:,} executions\n"
    )
    print(f"{'request':<22} {'rules here':>10} {'weight':>6} {'on Lambda':>10} {'held':>6} {'at peak':>8}")
    holds = []
    for work in rule_budget.measure():
        method, path, io_seconds = REQUESTS[work.request]
        weight = request_weight({"rawPath": path, "requestContext": {"http": {"method": method}}})
        hold = tenant_hold(settings, work.request, work.rule_cpu_ms, io_seconds, weight)
        holds.append(hold)
        print(
            f"{hold.request:<22} {work.rule_cpu_ms:>7.0f} ms {hold.weight:>6} {hold.seconds:>8.2f} s"
            f" {hold.sustained:>6.0f} {hold.peak:>8.0f}   ({work.what})"
        )
    return holds


def main() -> int:
    settings = template_settings()
    report_tenant_holds(settings)
    with metered_stack() as stack:
        costs = [measure(stack, subscriptions, messages) for subscriptions, messages in MEASURED]
    wide, narrow = costs
    verdicts = [
        busy_room(settings, wide, 5_000),
        many_tenants(settings, narrow, 20_000, tenants=50_000),
        slow_endpoint(settings, 500, latency_s=10),
        waiting_retries(settings, 1_000_000),
        pull_consumers(settings, 1_000),
    ]
    report(verdicts, costs)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The cost model: what one million deliveries cost, from every request the emulator received.

A standard scenario runs on the local stack (the gateway, the functions in their workers, the
event source mappings long-polling as Lambda's do, the Firehose stand-in), with moto metered from
inside (bench/meter.py): 1,000 messages into a room of 5 PUSH subscriptions (5,000 deliveries), one
first attempt in ten failing (retried after 1 s), published one by one and in batches of 10. Each
request is priced with the dated table in cost_model.py; Lambda duration comes from the measured
invocations: their CPU time at the function's share of a vCPU plus their waiting as measured (an
upper bound: the emulator answers slower than AWS; ``cost_model.lambda_seconds``). SNS and
EventBridge API destinations are priced for the same scenario beside it.

cost_scenario.py runs the scenario, cost_model.py prices it; this module prints the report and
checks the target.
"""

from __future__ import annotations

import os

from bench.cost_model import (
    CLOUDWATCH_LOGS_PER_GB,
    DYNAMODB_RRU_PER_MILLION,
    DYNAMODB_WRU_PER_MILLION,
    LAMBDA_ARM64_PER_GB_SECOND,
    PRICES_AS_OF,
    Run,
    competitors,
    metrics_lines,
    price,
)
from bench.cost_provisioned import (
    DYNAMODB_RCU_HOUR,
    DYNAMODB_WCU_HOUR,
    TARGET_UTILIZATION,
    break_even_deliveries_per_second,
    consumption_per_delivery,
    usd_per_million_units,
)
from bench.cost_scenario import (
    FIRST_TRY_FAILURE_PERCENT,
    MESSAGES,
    SUBSCRIPTIONS,
    metered_stack,
    run_scenario,
)

BATCH = 10
WINDOW_COMPARED_S = 1
TARGET_USD_PER_MILLION = 1.10
METRICS_TARGET_USD_PER_MILLION = 0.05  # what the metrics may add (issue 50)


def report(run: Run) -> tuple[float, float, float]:
    """Prints the run's table; returns USD per million deliveries (the target's scope), with Lambda
    duration's upper bound, its lower bound (without the time in AWS calls), and the upper bound
    with the table in provisioned capacity at steady traffic (bench/cost_provisioned.py)."""
    lines = price(run)
    deliveries = max(run.deliveries, 1)
    print(
        f"\n### {run.name}: {run.api_requests} API requests, {run.deliveries} deliveries "
        f"({run.first_try_failures} first attempts failed), {run.seconds:.0f} s\n"
    )
    print(f"{'what':<34} {'quantity':>12} {'unit':<16} {'per delivery':>13} {'USD per 1M deliveries':>22}")
    total = 0.0
    for line in lines:
        per_million = line.usd / deliveries * 1e6
        total += per_million
        print(
            f"{line.what:<34} {line.quantity:>12.2f} {line.unit:<16} "
            f"{line.quantity / deliveries:>13.4f} {per_million:>22.3f}"
        )
    print(f"{'total':<77} {total:>22.3f}")
    compute = sum(usage.gb_seconds_lower for usage in run.functions.values())
    measured = sum(usage.gb_seconds for usage in run.functions.values())
    lower = total - (measured - compute) * LAMBDA_ARM64_PER_GB_SECOND / deliveries * 1e6
    print(
        f"{'total with Lambda duration without the AWS calls time':<77} {lower:>22.3f}  "
        f"({compute:.1f} of {measured:.1f} GB-s: the rest waited for the emulator)"
    )
    provisioned = total + _provisioned_difference(run)
    per_delivery = consumption_per_delivery(run)
    print(
        f"{'total with the table provisioned, auto scaling at ' + f'{TARGET_UTILIZATION:.0%}':<77} "
        f"{provisioned:>22.3f}  (steady traffic above "
        f"{break_even_deliveries_per_second(per_delivery):.1f} deliveries/s, the break-even)"
    )
    logs = run.log_bytes / 1024**3 * CLOUDWATCH_LOGS_PER_GB / deliveries * 1e6
    print(
        f"{'(besides: CloudWatch Logs ingestion':<34} {run.log_bytes / 1024:>12.0f} {'KB of logs':<16} "
        f"{run.log_bytes / deliveries:>13.1f} {logs:>22.3f})"
    )
    for name, usd in competitors(run).items():
        print(f"{name:<77} {usd:>22.3f}")
    print(
        "not priced: DynamoDB Streams reads (free when Lambda reads them), KMS requests (not seen by "
        "the emulator; SQS and DynamoDB cache their data keys), storage, CloudWatch metrics and alarms "
        "(per month, not per request)"
    )
    print("\nrequests the emulator received (DynamoDB with their units; how long it took to answer them):")
    for (service, operation), count in sorted(run.requests.items()):
        used = {
            name: run.units_by_operation.get((name, operation), 0.0)
            for name in ("dynamodb_wru", "dynamodb_rru")
        }
        units = " ".join(f"{v:.1f} {n.removeprefix('dynamodb_').upper()}" for n, v in used.items() if v)
        took = run.emulator_seconds.get((service, operation), 0.0)
        print(f"  {service:<16} {operation:<28} {count:>7} {took:>8.1f} s  {units}")
    print_writes_by_kind(run)
    print_metrics(run)
    print("\nLambda, per invocation (local: time, CPU of the worker, waiting for the emulator):")
    for function_id, usage in sorted(run.functions.items()):
        count = max(usage.invocations, 1)
        print(
            f"  {function_id:<18} {usage.memory_mb:>5} MB {usage.invocations:>5} invocations  "
            f"{usage.wall_ms / count:>7.1f} ms, CPU {usage.cpu_ms / count:>6.1f} ms, "
            f"AWS calls {usage.aws_wait_ms / count:>6.1f} ms, max memory used {usage.max_memory_mb:.0f} MB "
            f"-> {usage.gb_seconds:.1f} GB-s (without AWS calls {usage.gb_seconds_lower:.1f})"
        )
    return total, lower, provisioned


def _provisioned_difference(run: Run) -> float:
    """USD per million deliveries that provisioned capacity held at the target utilisation saves
    (negative) on the run's DynamoDB units, against on-demand."""
    wru, rru = run.units.get("dynamodb_wru", 0.0), run.units.get("dynamodb_rru", 0.0)
    on_demand = wru * DYNAMODB_WRU_PER_MILLION + rru * DYNAMODB_RRU_PER_MILLION
    held = wru * usd_per_million_units(DYNAMODB_WCU_HOUR) + rru * usd_per_million_units(DYNAMODB_RCU_HOUR)
    return (held - on_demand) / max(run.deliveries, 1)


def metrics_usd_per_million(run: Run) -> float:
    return sum(line.usd for line in metrics_lines(run)) / max(run.deliveries, 1) * 1e6


def print_metrics(run: Run) -> None:
    """What the metrics add (part of the total above): ADR 0046."""
    deliveries = max(run.deliveries, 1)
    print("\nthe metrics' share of it (windows of the template's default):")
    for line in metrics_lines(run):
        usd = line.usd / deliveries * 1e6
        print(f"  {line.what:<40} {line.quantity:>10.1f} {line.unit:<12} {usd:>8.4f} USD/1M")
    added, target = metrics_usd_per_million(run), METRICS_TARGET_USD_PER_MILLION
    print(f"  {'metrics, added':<40} {'':>10} {'':<12} {added:>8.4f} USD/1M (target <= {target})")


def print_writes_by_kind(run: Run) -> None:
    """Where the write units go: by kind of item written (an index's copy on a line of its own),
    with the items' billed size."""
    deliveries = max(run.deliveries, 1)
    print("\nDynamoDB write units by item kind (an index copy is billed like its item, up to 1 KB):")
    heading = f"{'writes':>7} {'bytes each':>10} {'WRU':>8} {'per delivery':>13} {'USD/1M':>7}"
    print(f"  {'item written':<58} {heading}")
    by_cost = sorted(run.writes_by_kind.items(), key=lambda entry: -entry[1].wru)
    for kind, written in by_cost:
        print(
            f"  {kind:<58} {written.writes:>7} {written.bytes_written / max(written.writes, 1):>10.0f} "
            f"{written.wru:>8.0f} {written.wru / deliveries:>13.3f} "
            f"{written.wru / deliveries * DYNAMODB_WRU_PER_MILLION:>7.3f}"
        )
    total = sum(written.wru for written in run.writes_by_kind.values())
    print(f"  {'total':<58} {'':>7} {'':>10} {total:>8.0f} {total / deliveries:>13.3f}")


def window_trade_off(default_run: Run, default_usd: float) -> None:
    """The batched scenario again with the push functions' event sources gathering for 1 s
    (PushBatchingWindowSeconds; 0 by default): what a window saves against the latency it adds."""
    parameters = {"PushBatchingWindowSeconds": str(WINDOW_COMPARED_S)}
    with metered_stack(parameters, stack_name="roomcast-bench-cost-window") as stack:
        windowed_run = run_scenario(stack, f"batches of {BATCH}, a {WINDOW_COMPARED_S} s push window", BATCH)
    lines = price(windowed_run)
    windowed = sum(line.usd for line in lines) / max(windowed_run.deliveries, 1) * 1_000_000
    print("\n### The push functions' batching window (PushBatchingWindowSeconds), batched scenario\n")
    print(
        f"{'window':>8} {'USD / 1M deliveries':>20} {'push invocations':>17} {'deliveries / invocation':>24}"
    )
    for seconds, one, usd in ((0, default_run, default_usd), (WINDOW_COMPARED_S, windowed_run, windowed)):
        invocations = one.functions["PushFunction"].invocations if "PushFunction" in one.functions else 0
        per = one.deliveries / max(invocations, 1)
        print(f"{seconds:>6} s {usd:>20.3f} {invocations:>17} {per:>24.1f}")
    print(
        f"(a window adds up to its length to every delivery at low traffic: bench/latency.py; "
        f"the window of {WINDOW_COMPARED_S} s saves {default_usd - windowed:.3f} USD per million here)"
    )


def run() -> dict[str, bool]:
    print(
        f"\n## Cost per million deliveries: {MESSAGES} messages x {SUBSCRIPTIONS} PUSH subscriptions, "
        f"{FIRST_TRY_FAILURE_PERCENT}% of first attempts failing\n"
    )
    print(f"prices: {PRICES_AS_OF}; counted from the requests the emulator received")
    with metered_stack() as stack:
        one_by_one, one_by_one_lower, _ = report(run_scenario(stack, "published one by one", 1))
        batched_run = run_scenario(stack, f"published in batches of {BATCH}", BATCH)
        batched, batched_lower, provisioned = report(batched_run)
        metrics_added = metrics_usd_per_million(batched_run)
    window_trade_off(batched_run, batched)
    print(
        f"\nbatched: {batched:.3f} USD per million deliveries (target <= {TARGET_USD_PER_MILLION}; "
        f"{batched_lower:.3f} without the AWS calls' time; {provisioned:.3f} with the table provisioned "
        f"at steady traffic); one by one: {one_by_one:.3f} ({one_by_one_lower:.3f})"
    )
    return {
        f"cost, batched 5-subscription scenario <= {TARGET_USD_PER_MILLION} USD per 1M deliveries "
        "(on-demand table, the default)": batched <= TARGET_USD_PER_MILLION,
        f"cost, the same with TableCapacityMode=provisioned at steady traffic <= {TARGET_USD_PER_MILLION}": (
            provisioned <= TARGET_USD_PER_MILLION
        ),
        f"the metrics add <= {METRICS_TARGET_USD_PER_MILLION} USD per 1M deliveries (batched scenario)": (
            metrics_added <= METRICS_TARGET_USD_PER_MILLION
        ),
    }


if __name__ == "__main__":
    os.environ.setdefault("POWERTOOLS_DEV", "false")
    run()

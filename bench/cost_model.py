"""The cost model's prices and arithmetic: public list prices (dated), what Lambda would bill for
an invocation measured locally, and every billed quantity of a scenario's run, priced. No I/O:
``cost_scenario.py`` measures the runs, ``cost.py`` prints them (tests/unit/test_cost_model.py).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from roomcast_dev.functions import InvocationTiming

# Public list prices, us-east-1, USD, from the AWS pricing pages as of 2025-06 (not re-checked
# since: update PRICES_AS_OF and the figures together). Per million units unless said otherwise.
PRICES_AS_OF = "2025-06, us-east-1, AWS public pricing pages (first tier)"
API_GATEWAY_HTTP_PER_MILLION = 1.00  # HTTP API requests
LAMBDA_REQUEST_PER_MILLION = 0.20
LAMBDA_ARM64_PER_GB_SECOND = 0.0000133334
LAMBDA_MB_PER_VCPU = 1769  # Lambda's CPU share: one vCPU at 1,769 MB, in proportion below
# DynamoDB on-demand: the prices since AWS halved them in November 2024 (re-checked for issue 29);
# provisioned capacity's, bench/cost_provisioned.py.
DYNAMODB_WRU_PER_MILLION = 0.625  # on-demand write request units (1 KB each)
DYNAMODB_RRU_PER_MILLION = 0.125  # on-demand read request units (4 KB strongly consistent)
SQS_REQUEST_PER_MILLION = 0.40  # standard queue, per 64 KB chunk
FIREHOSE_PER_GB = 0.029  # Direct PUT ingestion, each record rounded up to 5 KB
S3_PUT_PER_MILLION = 5.00
S3_GET_PER_MILLION = 0.40
SECRETS_MANAGER_CALL_PER_MILLION = 5.00
CLOUDWATCH_LOGS_PER_GB = 0.50  # ingestion (the functions' logs and EMF metrics)
SNS_PUBLISH_PER_MILLION = 0.50  # per 64 KB chunk; a PublishBatch entry is one request
SNS_HTTP_DELIVERY_PER_MILLION = 0.60
EVENTBRIDGE_EVENT_PER_MILLION = 1.00  # PutEvents entries, per 64 KB chunk
EVENTBRIDGE_API_DESTINATION_PER_MILLION = 0.20  # invocations


def lambda_seconds(timing: InvocationTiming, memory_mb: int) -> tuple[float, float]:
    """(upper, lower) bound of the seconds Lambda would bill for an invocation measured locally.

    Lambda gives a function CPU in proportion to its memory, one vCPU at 1,769 MB: below that, the
    CPU time a local core spent (every thread of the worker) takes ``1769 / memory_mb`` times as long
    there (one local core-second taken as one vCPU-second). The rest of the local time was waiting:
    for the webhooks, for the emulator (which serves every AWS call of the whole stack from one
    Python process, each slower than AWS's), for a core on this 2-core machine. The upper bound
    keeps all of that waiting; the lower bound drops the time spent in AWS calls.
    """
    stretch = max(1.0, LAMBDA_MB_PER_VCPU / memory_mb)
    cpu_seconds, wall_seconds = timing.cpu_ms / 1000, timing.duration_ms / 1000
    waiting = max(0.0, wall_seconds - cpu_seconds)
    not_for_aws = max(0.0, waiting - timing.aws_wait_ms / 1000)
    return waiting + cpu_seconds * stretch, not_for_aws + cpu_seconds * stretch


@dataclass(frozen=True)
class FunctionUsage:
    """A function's invocations in one scenario and what Lambda would bill for them."""

    memory_mb: int
    invocations: int
    wall_ms: float  # the invocations' local times, summed
    cpu_ms: float
    aws_wait_ms: float
    max_memory_mb: float  # the workers' peak resident memory: Lambda's "Max Memory Used"
    gb_seconds: float  # upper bound (lambda_seconds)
    gb_seconds_lower: float

    @classmethod
    def of(cls, timings: list[InvocationTiming], memory_mb: int) -> FunctionUsage:
        bounds = [lambda_seconds(timing, memory_mb) for timing in timings]
        memory_gb = memory_mb / 1024
        return cls(
            memory_mb=memory_mb,
            invocations=len(timings),
            wall_ms=sum(t.duration_ms for t in timings),
            cpu_ms=sum(t.cpu_ms for t in timings),
            aws_wait_ms=sum(t.aws_wait_ms for t in timings),
            max_memory_mb=max(t.max_memory_mb for t in timings),
            gb_seconds=sum(upper for upper, _ in bounds) * memory_gb,
            gb_seconds_lower=sum(lower for _, lower in bounds) * memory_gb,
        )


@dataclass(frozen=True)
class WriteKind:
    """The writes of one kind of item in a scenario (bench/meter_dynamodb.py ``item_kind``)."""

    writes: int
    wru: float
    bytes_written: int  # the larger of each item's before and after, summed: what was billed


@dataclass(frozen=True)
class Run:
    """What one scenario used."""

    name: str
    messages: int  # published
    api_requests: int
    deliveries: int
    first_try_failures: int
    requests: Counter[tuple[str, str]]
    units: dict[str, float]
    units_by_operation: dict[tuple[str, str], float]
    functions: dict[str, FunctionUsage]  # by logical id, the functions invoked
    emulator_seconds: dict[tuple[str, str], float]  # how long the emulator took to answer, by operation
    log_bytes: int
    seconds: float
    writes_by_kind: dict[str, WriteKind] = field(default_factory=dict)
    reads_by_partition: dict[str, float] = field(default_factory=dict)  # read units, ids as kinds


@dataclass(frozen=True)
class Line:
    what: str
    quantity: float
    unit: str
    usd: float


def price(run: Run) -> list[Line]:
    """Every billed quantity of the run, priced."""
    by_service: Counter[str] = Counter()
    for (service, _operation), count in run.requests.items():
        by_service[service] += count
    s3_puts = sum(c for (s, op), c in run.requests.items() if s == "s3" and op == "PutObject")
    s3_gets = sum(c for (s, op), c in run.requests.items() if s == "s3" and op != "PutObject")
    lambda_requests = sum(usage.invocations for usage in run.functions.values())
    gb_seconds = sum(usage.gb_seconds for usage in run.functions.values())
    firehose_gb = run.units.get("firehose_billed_bytes", 0.0) / 1024**3
    return [
        Line(
            "API Gateway HTTP API requests",
            run.api_requests,
            "requests",
            run.api_requests * API_GATEWAY_HTTP_PER_MILLION / 1e6,
        ),
        Line(
            "Lambda requests",
            lambda_requests,
            "invocations",
            lambda_requests * LAMBDA_REQUEST_PER_MILLION / 1e6,
        ),
        Line("Lambda duration (upper bound)", gb_seconds, "GB-s", gb_seconds * LAMBDA_ARM64_PER_GB_SECOND),
        Line(
            "DynamoDB writes",
            run.units.get("dynamodb_wru", 0.0),
            "WRU",
            run.units.get("dynamodb_wru", 0.0) * DYNAMODB_WRU_PER_MILLION / 1e6,
        ),
        Line(
            "DynamoDB reads",
            run.units.get("dynamodb_rru", 0.0),
            "RRU",
            run.units.get("dynamodb_rru", 0.0) * DYNAMODB_RRU_PER_MILLION / 1e6,
        ),
        Line(
            "SQS requests",
            run.units.get("sqs_requests", 0.0),
            "64 KB chunks",
            run.units.get("sqs_requests", 0.0) * SQS_REQUEST_PER_MILLION / 1e6,
        ),
        Line("Firehose ingestion", firehose_gb, "GB (5 KB steps)", firehose_gb * FIREHOSE_PER_GB),
        Line("S3 PUT (Firehose's objects)", s3_puts, "requests", s3_puts * S3_PUT_PER_MILLION / 1e6),
        Line("S3 GET/LIST", s3_gets, "requests", s3_gets * S3_GET_PER_MILLION / 1e6),
        Line(
            "Secrets Manager calls",
            by_service["secretsmanager"],
            "calls",
            by_service["secretsmanager"] * SECRETS_MANAGER_CALL_PER_MILLION / 1e6,
        ),
    ]


# The metrics (issue 50, ADR 0046): their function, the items they write, the partitions they read.
METRICS_FUNCTION = "MetricsFunction"
METRICS_ITEM_KINDS = ("metricsBucket", "openDeliveries")
METRICS_PARTITION = "#METRICS#"


def metrics_lines(run: Run) -> list[Line]:
    """What the metrics add to the run: their function's invocations and duration (upper bound),
    the writes of their items and the reads of their partitions, priced."""
    usage = run.functions.get(METRICS_FUNCTION)
    invocations = usage.invocations if usage is not None else 0
    gb_seconds = usage.gb_seconds if usage is not None else 0.0
    wru = sum(w.wru for kind, w in run.writes_by_kind.items() if kind.split(" ")[0] in METRICS_ITEM_KINDS)
    rru = sum(units for partition, units in run.reads_by_partition.items() if METRICS_PARTITION in partition)
    return [
        Line(
            "metrics: Lambda requests",
            invocations,
            "invocations",
            invocations * LAMBDA_REQUEST_PER_MILLION / 1e6,
        ),
        Line("metrics: Lambda duration", gb_seconds, "GB-s", gb_seconds * LAMBDA_ARM64_PER_GB_SECOND),
        Line("metrics: DynamoDB writes", wru, "WRU", wru * DYNAMODB_WRU_PER_MILLION / 1e6),
        Line("metrics: DynamoDB reads", rru, "RRU", rru * DYNAMODB_RRU_PER_MILLION / 1e6),
    ]


def competitors(run: Run) -> dict[str, float]:
    """USD per million deliveries of the same scenario on SNS and EventBridge (retries not billed
    by either: the favourable reading for them)."""
    deliveries = max(run.deliveries, 1)
    sns = (run.messages * SNS_PUBLISH_PER_MILLION + deliveries * SNS_HTTP_DELIVERY_PER_MILLION) / 1e6
    eventbridge = (
        run.messages * EVENTBRIDGE_EVENT_PER_MILLION + deliveries * EVENTBRIDGE_API_DESTINATION_PER_MILLION
    ) / 1e6
    return {
        "SNS HTTP/S (publish + delivery)": sns / deliveries * 1e6,
        "EventBridge (PutEvents + API destinations)": eventbridge / deliveries * 1e6,
    }

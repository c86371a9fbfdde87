"""moto as the local stack runs it: the patches every in-process moto of this project installs —
the local stack, the integration tests and the benches' own moto process — so that each measures
and tests the same emulator.

- DynamoDB's atomicity: one DynamoDB request at a time (``moto_atomic``);
- SQS sends and receives that do not scan the queue (``moto_fast_sends``);
- DynamoDB queries that read their partition, not the whole table (``moto_fast_queries``);
- stream reads answered as the JSON their records are (``moto_stream_reads``);
- PartiQL INSERT batches as DynamoDB runs them (``moto_partiql``);
- AssumeRole checking the role's trust policy and external ID (``moto_trust``);
- moto's package listed once, not on every request (``moto_dispatch``);
- werkzeug's line per request not logged (it is formatted even where it goes nowhere).
"""

from __future__ import annotations

import logging

from roomcast_dev.moto_atomic import make_dynamodb_atomic
from roomcast_dev.moto_dispatch import list_moto_modules_once
from roomcast_dev.moto_fast_queries import queries_read_their_partition
from roomcast_dev.moto_fast_sends import sqs_calls_without_scanning_the_queue
from roomcast_dev.moto_partiql import batch_inserts_as_dynamodb_runs_them
from roomcast_dev.moto_stream_reads import stream_reads_as_their_json
from roomcast_dev.moto_trust import assume_role_checks_trust


def patch_moto(*, atomic_dynamodb: bool = True) -> None:
    """Install the patches in this process (idempotent). ``atomic_dynamodb=False`` leaves moto's
    DynamoDB requests running side by side (a bench of calls that never race may want that)."""
    if atomic_dynamodb:
        make_dynamodb_atomic()
    sqs_calls_without_scanning_the_queue()
    queries_read_their_partition()
    stream_reads_as_their_json()
    batch_inserts_as_dynamodb_runs_them()
    list_moto_modules_once()
    assume_role_checks_trust()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)

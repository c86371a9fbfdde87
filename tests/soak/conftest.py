"""The soak's own local stack: more workers than the e2e stack, and push and outbox queues whose
visibility timeout is short enough for a killed worker's batch to come back within the run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from roomcast.catalog.store import CatalogTable
from roomcast_dev.function_worker import FUNCTION_LOG_VARIABLE
from roomcast_dev.keys import create_api_key
from roomcast_dev.stack import LocalStack
from tests.support import PROJECT_ROOT

SOAK_STACK_NAME = "roomcast-soak"
# template.yaml gives the push queue 360 s (6 x the push function's 60 s timeout, as AWS advises):
# a batch whose worker died comes back only after that, too late for a soak of minutes. The soak's
# webhooks answer within 2 s (timeoutMs <= 5 s); a batch, cold start included, took up to 12 s on
# the 2-core machine under load. A batch that outlasts the visibility is only handed out twice (a
# duplicate, never a loss): the report counts duplicates and shows the longest push invocation.
PUSH_QUEUE_VISIBILITY_SECONDS = 20
# The outbox queue's too (template: 360 s): a scheduled message's release whose outbox worker was
# killed must come back within the drain. Its jobs' steps run for up to 20 s, so a little longer.
OUTBOX_QUEUE_VISIBILITY_SECONDS = 30
# What the functions print (thousands of log lines and metrics) goes here, not into the test output.
FUNCTION_LOG = PROJECT_ROOT / ".local" / "soak" / "functions.log"


def shorten_queue_visibility(stack: LocalStack, queues: tuple[str, ...], seconds: int) -> None:
    """Both push lanes' queues: a killed slow-lane worker's envelope must come back within the
    drain too (it once came back after the template's 360 s, and the soak called it lost)."""
    assert stack.model is not None
    for queue in queues:
        queue_name = stack.model.queues[queue]["QueueName"]
        stack.sqs_client().set_queue_attributes(
            QueueUrl=stack.queue_url(queue_name), Attributes={"VisibilityTimeout": str(seconds)}
        )


@pytest.fixture(scope="module")
def soak_stack() -> Iterator[LocalStack]:
    FUNCTION_LOG.parent.mkdir(parents=True, exist_ok=True)
    FUNCTION_LOG.write_text("", encoding="utf-8")
    stack = LocalStack(
        stack_name=SOAK_STACK_NAME,
        function_concurrency=4,
        max_pollers_per_trigger=4,
        extra_function_environment={FUNCTION_LOG_VARIABLE: str(FUNCTION_LOG)},
    )
    stack.start()  # moto takes DynamoDB requests one at a time, as DynamoDB applies them (moto_atomic)
    try:
        shorten_queue_visibility(stack, ("PushQueue", "SlowPushQueue"), PUSH_QUEUE_VISIBILITY_SECONDS)
        shorten_queue_visibility(stack, ("OutboxQueue",), OUTBOX_QUEUE_VISIBILITY_SECONDS)
        yield stack
    finally:
        stack.stop()


@pytest.fixture(scope="module")
def soak_api_key(soak_stack: LocalStack) -> str:
    repository = CatalogTable(soak_stack.output("TableName"), client=soak_stack.client("dynamodb"))
    return create_api_key(repository, "soak")

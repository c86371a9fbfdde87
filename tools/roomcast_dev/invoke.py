"""``make invoke FUNCTION=<logical id> EVENT=events/<file>.json``: ``sam local invoke`` without Docker.

One function runs on one event the way ``sam local invoke`` runs it: the template's handler, code
and layers, its environment and its role's credentials (which the stack enforces,
``roomcast_dev.local_iam``), in a fresh process (a cold start), against the running local stack
(``make run``), which the function's AWS calls reach. Its logs go to stderr, its answer to stdout
as one line of JSON; a handler that raises prints ``errorType`` and ``errorMessage`` (Lambda's
shape) and exits 1. The tenant, room and subscriptions the sample events name
(``roomcast_dev.samples``) are added to the stack first when it does not have them yet, so each
sample gets the answer events/README.md documents.

    python -m roomcast_dev.invoke ManagementFunction events/management-create-room.json
    python -m roomcast_dev.invoke PullFunction - < event.json
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from roomcast_dev.functions import FunctionError, LocalFunction
from roomcast_dev.local_aws import LOCAL_REGION, aws_client, queue_url_for
from roomcast_dev.local_iam import function_roles
from roomcast_dev.samples import sample_tenant_present, seed_sample_tenant
from roomcast_dev.stack import LOCAL_PARAMETERS, LOCAL_STACK_NAME, local_function_environment
from roomcast_dev.stack_state import STATE_FILE, read_state
from roomcast_dev.template import TEMPLATE_PATH, read_stack

USAGE_ERROR = 2


def _event(source: str) -> Any:
    text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    return json.loads(text)


def invoke(function_id: str, event: Any, endpoint_url: str) -> Any:
    """``function_id``'s answer to ``event``, run in a worker of its own against ``endpoint_url``
    (FunctionError when it raises, times out or crashes)."""

    def queue_url(name: str) -> str:
        return queue_url_for(endpoint_url, name)

    model = read_stack(LOCAL_STACK_NAME, LOCAL_REGION, LOCAL_PARAMETERS, queue_url)
    spec = model.functions.get(function_id)
    if spec is None:
        raise KeyError(function_id, sorted(model.functions))
    # The function's role session, which the running stack enforces (roomcast_dev.local_iam).
    role = function_roles(TEMPLATE_PATH, LOCAL_STACK_NAME, LOCAL_REGION, LOCAL_PARAMETERS, queue_url)
    environment = {**local_function_environment(endpoint_url), **role[function_id].environment()}
    function = LocalFunction(spec, environment, max_concurrency=1)
    try:
        return function.invoke(event)
    finally:
        function.stop()


def _with_samples(state: dict[str, Any]) -> None:
    endpoint, outputs = state["endpointUrl"], state["outputs"]
    dynamodb = aws_client("dynamodb", endpoint)
    if not sample_tenant_present(outputs["TableName"], dynamodb):
        seed_sample_tenant(
            outputs["TableName"], outputs["PullQueuePrefix"], dynamodb, aws_client("sqs", endpoint)
        )
        print("added the sample events' tenant, room and subscriptions to the local stack", file=sys.stderr)


def main(argv: list[str] | None = None, answer_to: TextIO | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("function", help="the function's logical id in template.yaml, e.g. PublishFunction")
    parser.add_argument("event", help="a JSON event file (events/…), or - for standard input")
    parser.add_argument("--state-file", type=Path, default=STATE_FILE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    state = read_state(args.state_file)
    if state is None:
        print(
            "error: no local stack is running; start one with `make run` (in another terminal)",
            file=sys.stderr,
        )
        return USAGE_ERROR
    try:
        event = _event(args.event)
    except (OSError, ValueError) as error:
        print(f"error: the event {args.event}: {error}", file=sys.stderr)
        return USAGE_ERROR
    _with_samples(state)
    # The function's logs (its stdout and stderr) go to stderr; the answer alone to stdout.
    answer_to = answer_to or os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        answer = invoke(args.function, event, state["endpointUrl"])
    except KeyError as error:
        print(
            f"error: no function {args.function!r} in template.yaml: one of {', '.join(error.args[1])}",
            file=sys.stderr,
        )
        return USAGE_ERROR
    except FunctionError as error:
        print(error.trace, file=sys.stderr)
        print(
            json.dumps({"errorType": error.kind, "errorMessage": error.message}), file=answer_to, flush=True
        )
        return 1
    print(json.dumps(answer), file=answer_to, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

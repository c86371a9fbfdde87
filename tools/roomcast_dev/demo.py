"""``make demo``: one message, a PUSH and a PULL subscriber, and exponential backoff, live.

Runs against a local stack that is already running (``make run``), over HTTP through the
project's SDK (``roomcast_client``):

- starts a small webhook server on 127.0.0.1 that verifies every request's Standard Webhooks
  signature and fails the first three deliveries (500, 503 with ``Retry-After: 2``, 500);
- creates a room (retry after 1 s, each wait twice the previous one, 5 redeliveries), a PUSH
  subscription to that server and a PULL subscription, and prints the PUSH retry schedule;
- publishes one message and prints a timeline as it happens: every webhook attempt, the PULL
  consumer's pull → nack → pull → ack, and each delivery's status as the API reports it;
- prints a summary, deletes the room (its subscriptions and queue go with it) and stops.

    PYTHONPATH=layers/shared:tools .venv/bin/python -m roomcast_dev.demo

``ROOMCAST_API_KEY`` picks the key; without it the demo creates one for the tenant ``demo``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, TextIO

from roomcast_dev.demo_client import DemoError, demo_client
from roomcast_dev.demo_flow_control import show_flow_control
from roomcast_dev.demo_report import HEADER, print_schedule, print_summary
from roomcast_dev.demo_scenario import DEMO_TIMEOUT_S, Scenario
from roomcast_dev.demo_timeline import Timeline
from roomcast_dev.demo_webhook import DemoWebhook

# The demo's parts: demo_scenario (its steps), demo_webhook (the webhook server), demo_pull (the
# PULL consumer), demo_flow_control (the rate-limited room), demo_timeline and demo_report (what
# it prints), demo_client (the SDK client; a failed call as one clear message).
TENANT = "demo"


def run_demo(api_url: str, api_key: str, out: TextIO, *, timeout_s: float = DEMO_TIMEOUT_S) -> int:
    """Run the scenario against the stack at ``api_url``; 0 when everything arrived as expected."""
    timeline = Timeline(out)
    receiver = DemoWebhook(timeline)
    receiver.start()
    client = demo_client(api_url, api_key)
    scenario = Scenario(client, timeline, receiver, deadline=time.time() + timeout_s, timeout_s=timeout_s)
    code = 1
    try:
        timeline.say(HEADER.format(api_url=api_url, webhook_url=receiver.url))
        scenario.setup()
        assert scenario.schedule is not None
        print_schedule(timeline, scenario.schedule)
        scenario.publish()
        scenario.watch()
        code = print_summary(scenario)
        if code == 0:
            code = show_flow_control(scenario)
    except DemoError as error:
        timeline.say(f"\nDEMO FAILED: {error}")
    except KeyboardInterrupt:
        timeline.say("\nInterrupted; cleaning up.")
        code = 130
    finally:
        if scenario.consumer is not None:
            scenario.consumer.stop()
        scenario.cleanup()
        receiver.stop()
        client.close()
    if code == 0:
        timeline.say("Demo finished.")
    return code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.parse_args(argv)

    from roomcast_dev.stack_state import read_state

    state = read_state()
    if state is None:
        print("No roomcast local stack is running: start the local stack first: make run", file=sys.stderr)
        return 1
    api_key = os.environ.get("ROOMCAST_API_KEY") or None
    if api_key is None:
        try:
            api_key = _create_demo_key(state)
        except Exception as error:  # a stale state file, the emulator gone, ...
            print(
                f"Could not create an API key in the local stack at {state.get('apiUrl')} "
                f"({type(error).__name__}: {error}).\nIs it still running? Start it with: make run",
                file=sys.stderr,
            )
            return 1
    return run_demo(str(state["apiUrl"]), api_key, sys.stdout)


def _create_demo_key(state: dict[str, Any]) -> str:
    from roomcast.catalog.store import CatalogTable
    from roomcast_dev.keys import create_api_key
    from roomcast_dev.local_aws import aws_client

    client = aws_client("dynamodb", state["endpointUrl"])
    return create_api_key(
        CatalogTable(state["outputs"]["TableName"], client=client), TENANT, name="made by make demo"
    )


if __name__ == "__main__":
    raise SystemExit(main())

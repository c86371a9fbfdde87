"""``python -m roomcast_dev``: run the local stack until Ctrl-C (what ``make run`` does)."""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading

from roomcast.catalog.store import CatalogTable
from roomcast_dev.keys import create_api_key
from roomcast_dev.stack import LocalStack


def main() -> int:
    parser = argparse.ArgumentParser(description="roomcast local stack")
    parser.add_argument("--port", type=int, default=int(os.environ.get("ROOMCAST_PORT", "3000")))
    parser.add_argument("--moto-port", type=int, default=int(os.environ.get("ROOMCAST_MOTO_PORT", "0")))
    parser.add_argument(
        "--no-state-file",
        action="store_true",
        help="do not record this stack for make api-key, make compact and the CLI (a second stack)",
    )
    args = parser.parse_args()
    # The stack's background threads (pollers, gateway, Firehose) log what goes wrong: show it here.
    logging.basicConfig(level=logging.WARNING, format="%(message)s", stream=sys.stdout)

    stack = LocalStack(
        gateway_port=args.port, moto_port=args.moto_port, write_state_file=not args.no_state_file
    )
    stopped = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    stack.start()
    try:
        try:
            key = create_api_key(
                CatalogTable(stack.output("TableName"), client=stack.client("dynamodb")),
                "local",
                os.environ.get("ROOMCAST_API_KEY") or None,
                name="made by make run",
            )
        except ValueError as error:
            print(f"error: ROOMCAST_API_KEY: {error}", file=sys.stderr)
            return 2
        stack.record_api_key(key)
        print(
            "\nroomcast local stack is up\n"
            f"  API:         {stack.api_url}\n"
            f"  API docs:    {stack.api_url}/docs\n"
            f"  console:     {stack.api_url}/console   (sign in with the API key below)\n"
            f"  AWS (moto):  {stack.endpoint_url}\n"
            f"  tenant:      local\n"
            f"  API key:     {key}\n\n"
            f"  export ROOMCAST_URL={stack.api_url} ROOMCAST_API_KEY={key}\n\n"
            "Ctrl-C stops it.\n",
            flush=True,
        )
        stopped.wait()
    finally:
        print("stopping...", flush=True)
        stack.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

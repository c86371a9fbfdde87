"""Operator command: create an API key for a tenant.

    make api-key TENANT=acme

Writes to the running local stack (``make run``) when there is one; otherwise to a deployed
stack's table, found from the CloudFormation stack's outputs with the usual AWS credentials.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tomllib
from pathlib import Path

from botocore.exceptions import BotoCoreError, ClientError

from roomcast.catalog.store import CatalogTable
from roomcast.keys.store import ApiKeyTable, issue_api_key
from roomcast.platform.clock import now_iso
from roomcast.platform.credentials import API_KEY_PREFIX
from roomcast.platform.table import TableAccess
from roomcast_dev.template import PROJECT_ROOT

TENANT_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
MIN_API_KEY_LENGTH = 24


def create_api_key(
    table: TableAccess, tenant_id: str, api_key: str | None = None, name: str = "made by make api-key"
) -> str:
    """Store a new (or the given) key for ``tenant_id`` in ``table`` and return the key; it is
    listed and revocable through the API like a key made there (``/api-keys``)."""
    if not TENANT_PATTERN.match(tenant_id):
        raise ValueError("tenant must be 1-63 characters: lowercase letters, digits and '-'")
    if api_key is not None and (not api_key.startswith(API_KEY_PREFIX) or len(api_key) < MIN_API_KEY_LENGTH):
        raise ValueError(
            f"an API key must start with {API_KEY_PREFIX!r} and be at least {MIN_API_KEY_LENGTH} long"
        )
    _, key = issue_api_key(ApiKeyTable.sharing(table), tenant_id, name, now_iso(), api_key)
    return key


def samconfig_stack_name(path: Path = PROJECT_ROOT / "samconfig.toml") -> str:
    """The stack name `sam deploy` uses (samconfig.toml), so keys go where the stack is."""
    with path.open("rb") as handle:
        config = tomllib.load(handle)
    name = config.get("default", {}).get("global", {}).get("parameters", {}).get("stack_name")
    return str(name or "roomcast")


def _deployed_table(stack_name: str) -> str:
    import boto3

    stacks = boto3.client("cloudformation").describe_stacks(StackName=stack_name)["Stacks"]
    outputs = {o["OutputKey"]: o["OutputValue"] for o in stacks[0].get("Outputs", [])}
    return outputs["TableName"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tenant", required=True)
    parser.add_argument(
        "--stack-name", default=samconfig_stack_name(), help="deployed stack (when no local stack runs)"
    )
    args = parser.parse_args(argv)

    from roomcast_dev.local_aws import aws_environment
    from roomcast_dev.stack_state import read_state

    state = read_state()
    try:
        if state is not None:
            os.environ.update(aws_environment(state["endpointUrl"]))
            table = state["outputs"]["TableName"]
            where = f"local stack at {state['apiUrl']}"
        else:
            table = _deployed_table(args.stack_name)
            where = f"deployed stack {args.stack_name}"
        key = create_api_key(CatalogTable(table), args.tenant)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except (BotoCoreError, ClientError) as error:
        print(
            f"error: no local stack is running (make run) and the deployed stack {args.stack_name!r} "
            f"could not be reached: {error}",
            file=sys.stderr,
        )
        return 1
    print(f"# new API key for tenant {args.tenant!r} ({where}); it is shown only once:", file=sys.stderr)
    print(key)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

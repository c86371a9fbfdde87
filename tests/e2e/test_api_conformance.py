"""The running stack against its own /openapi.json, fuzzed by schemathesis with every check on:
server errors, status codes, content types, response schemas and headers, negative data refused,
positive data accepted (see schemathesis_hooks.py), unsupported methods, missing headers, auth
ignored, objects of one tenant read by another, and the stateful checks along the OpenAPI links
(a created resource is readable, a deleted one is gone)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from roomcast.catalog.store import CatalogTable
from roomcast_dev.keys import create_api_key
from roomcast_dev.stack import LocalStack
from tests.support import PROJECT_ROOT

HERE = Path(__file__).parent
# Enough to reach every operation through every phase in about a minute on two cores; `make fuzz`
# runs longer with a random seed.
MAX_EXAMPLES = int(os.environ.get("ROOMCAST_FUZZ_EXAMPLES", "20"))
SEED = os.environ.get("ROOMCAST_FUZZ_SEED", "20261122")


def test_the_api_conforms_to_its_openapi_document(empty_stack: LocalStack, tmp_path: Path) -> None:
    # Given: two tenants, so that one tenant's objects are probed with the other's key
    repository = CatalogTable(empty_stack.output("TableName"), client=empty_stack.client("dynamodb"))
    identities = [
        {
            "name": tenant,
            "fixedHeaders": [
                {"name": "Authorization", "value": f"Bearer {create_api_key(repository, tenant)}"}
            ],
        }
        for tenant in ("tenant-a", "tenant-b")
    ]
    auth_file = tmp_path / "auth.json"
    auth_file.write_text(json.dumps({"auth": identities}), encoding="utf-8")

    # When
    run = subprocess.run(  # noqa: S603 - our own virtualenv's schemathesis
        [
            str(Path(sys.executable).with_name("st")),
            "--config-file",
            str(HERE / "schemathesis.toml"),
            "run",
            f"{empty_stack.api_url}/openapi.json",
            "--checks",
            "all",
            "--auth-wfc",
            str(auth_file),
            "--max-examples",
            str(MAX_EXAMPLES),
            "--seed",
            SEED,
            "--workers",
            "2",
            "--no-color",
        ],
        env={
            **os.environ,
            "SCHEMATHESIS_HOOKS": "tests.e2e.schemathesis_hooks",
            "PYTHONPATH": str(PROJECT_ROOT),
        },
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )

    # Then: nothing found (the report names every failure, with a curl line to reproduce it)
    assert run.returncode == 0, run.stdout[-20000:] + run.stderr[-5000:]

"""Integration fixtures: handlers called in-process, against moto in server mode.

The functions get exactly their template environment (as the local stack and Lambda give it),
pointed at the emulator through AWS_ENDPOINT_URL.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any
from urllib.request import Request, urlopen

import pytest
from botocore.client import BaseClient
from moto.server import ThreadedMotoServer

from roomcast.platform import aws
from roomcast.platform.config import load_settings
from roomcast.wiring import tenant_throttle
from roomcast_dev.emulator import patch_moto
from roomcast_dev.firehose import FirehoseDelivery, install_firehose_delivery
from roomcast_dev.local_aws import LOCAL_REGION, aws_environment, queue_url_for
from roomcast_dev.openapi import write_document
from roomcast_dev.provisioning import provision_resources
from roomcast_dev.stack import LOCAL_PARAMETERS
from roomcast_dev.template import StackModel, read_stack
from tests.support import FakeLambdaContext, clear_cached_factories

TEST_STACK = "roomcast-test"
# In-process handlers answer hundreds of requests a second for one tenant (the fuzz tests): the
# tenants' request rate is off here, and tested where it is the subject (tests/unit/
# test_tenant_throttle.py, tests/e2e/test_tenant_limits.py).
INTEGRATION_PARAMETERS = {**LOCAL_PARAMETERS, "TenantRequestsPerSecond": "0", "TenantRequestBurst": "0"}
Handler = Callable[[dict[str, Any], Any], Any]


@pytest.fixture(scope="session")
def firehose_delivery() -> FirehoseDelivery:
    """Firehose's delivery to S3 as the local stack stands in for it; nothing in the background:
    a test calls ``flush()`` where Firehose's buffering interval would have passed."""
    return FirehoseDelivery()


@pytest.fixture(scope="session")
def moto_endpoint(firehose_delivery: FirehoseDelivery) -> Iterator[str]:
    patch_moto()
    install_firehose_delivery(firehose_delivery)
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


def bare_client(moto_endpoint: str, service: str) -> Any:
    """A client of the in-process moto with no role (for the emulator patches' own tests)."""
    import boto3

    return boto3.client(
        service,  # type: ignore[call-overload]
        endpoint_url=moto_endpoint,
        region_name=LOCAL_REGION,
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )


@pytest.fixture
def moto_sqs(moto_endpoint: str) -> Any:
    """A bare SQS client of the in-process moto."""
    return bare_client(moto_endpoint, "sqs")


@pytest.fixture
def stack_model(moto_endpoint: str, firehose_delivery: FirehoseDelivery) -> StackModel:
    """The template's resources, created fresh in an emptied emulator."""
    with urlopen(Request(f"{moto_endpoint}/moto-api/reset", method="POST"), timeout=30):  # noqa: S310
        pass
    install_firehose_delivery(firehose_delivery)  # a local stack in this process may have taken it
    model = read_stack(
        TEST_STACK, LOCAL_REGION, INTEGRATION_PARAMETERS, lambda name: queue_url_for(moto_endpoint, name)
    )
    provision_resources(model, moto_endpoint)
    write_document(model)  # what `make build` does: the docs function serves it
    return model


@pytest.fixture
def function_handler(
    stack_model: StackModel, moto_endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> Callable[[str], Handler]:
    """Import a function's handler with the function's template environment."""

    def load(function_id: str) -> Handler:
        spec = stack_model.functions[function_id]
        for name, value in {**aws_environment(moto_endpoint), **spec.environment}.items():
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("POWERTOOLS_TRACE_DISABLED", "true")
        monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
        load_settings.cache_clear()
        tenant_throttle.cache_clear()  # a new container's: its tenants' allowance read afresh
        aws.reset_clients()
        module_name, _, attribute = spec.handler.rpartition(".")
        module = importlib.import_module(module_name)
        clear_cached_factories(module)
        handler: Handler = getattr(module, attribute)
        return handler

    return load


@pytest.fixture
def context() -> FakeLambdaContext:
    return FakeLambdaContext()


@pytest.fixture
def aws_calls(moto_endpoint: str) -> Iterator[Counter[str]]:
    """Every AWS operation this process makes to the tests' emulator while the test runs, counted
    by name. A local stack an end-to-end test left running in this worker has an emulator of its
    own, and its pollers' calls are not counted."""
    calls: Counter[str] = Counter()
    original = getattr(BaseClient, "_make_api_call")  # noqa: B009 - private, untyped in the stubs

    def counting(client: Any, operation: str, params: Any) -> Any:
        if client.meta.endpoint_url == moto_endpoint:
            calls[operation] += 1
        return original(client, operation, params)

    setattr(BaseClient, "_make_api_call", counting)  # noqa: B010
    yield calls
    setattr(BaseClient, "_make_api_call", original)  # noqa: B010

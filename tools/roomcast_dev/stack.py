"""The local stack: moto in server mode as AWS, the template's resources, the HTTP gateway,
the SQS pollers and the functions, all on one machine with no AWS account and no Docker.

This module starts, resets and stops them; the resources are created by ``provisioning``, and
``stack_state`` records where a running stack answers (``.local/stack.json``)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.request import Request, urlopen

from roomcast_dev.emulator import patch_moto
from roomcast_dev.event_sources import SqsPoller
from roomcast_dev.firehose import FirehoseDelivery, install_firehose_delivery, interval_from_environment
from roomcast_dev.functions import LocalFunction
from roomcast_dev.gateway import Gateway
from roomcast_dev.local_aws import LOCAL_ACCOUNT_ID, LOCAL_REGION, aws_client, aws_environment, queue_url_for
from roomcast_dev.local_iam import function_roles
from roomcast_dev.moto_iam import enforce_registered_roles, register_role
from roomcast_dev.moto_long_polls import end_every_long_poll, end_long_polls_with_their_queue
from roomcast_dev.openapi import DOCS_FUNCTION, write_document
from roomcast_dev.provisioning import provision_resources
from roomcast_dev.rate_schedules import RatePoller
from roomcast_dev.schedules import SchedulePoller
from roomcast_dev.stack_state import STATE_FILE, write_state
from roomcast_dev.stream_sources import StreamPoller
from roomcast_dev.template import TEMPLATE_PATH, StackModel, read_stack

if TYPE_CHECKING:
    from moto.server import ThreadedMotoServer
    from mypy_boto3_sqs import SQSClient

LOCAL_STACK_NAME = "roomcast-local"
# Parameters the local stack sets differently from a deployment.
# Metrics windows of 2 s: a chart or a test sees an attempt within seconds (30 s on AWS).
# Alerts evaluated every 2 s (every minute on AWS, its shortest rate).
LOCAL_PARAMETERS = {
    "AllowLoopbackPushUrls": "true",
    "MetricsWindowSeconds": "2",
    "AlertEvaluationSchedule": "rate(2 seconds)",
}
# Variables of the machine that functions see besides their template environment.
_PASSED_THROUGH = ("PATH", "HOME", "LANG", "TZ", "TMPDIR", "SYSTEMROOT")


def local_function_environment(endpoint_url: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """What a local function sees besides its template environment (which Lambda would set): the
    machine's few basics, the emulator's endpoint and credentials, tracing off."""
    return {
        **{name: os.environ[name] for name in _PASSED_THROUGH if name in os.environ},
        **aws_environment(endpoint_url),
        # Tracing needs the X-Ray daemon, which only AWS runs.
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_DEV": os.environ.get("POWERTOOLS_DEV", "false"),
        **(extra or {}),
    }


@dataclass
class LocalStack:
    """Start with ``start()``, stop with ``stop()``; ``reset()`` empties every resource."""

    gateway_port: int = 0
    moto_port: int = 0
    parameters: dict[str, str] = field(default_factory=lambda: dict(LOCAL_PARAMETERS))
    template_path: Path = TEMPLATE_PATH
    stack_name: str = LOCAL_STACK_NAME
    function_concurrency: int = 4
    max_pollers_per_trigger: int = 2
    write_state_file: bool = False
    extra_function_environment: dict[str, str] = field(default_factory=dict)
    # Each function calls AWS with its template role's credentials, and the emulator enforces the
    # role (roomcast_dev.local_iam, ADR 0036); False runs every function unrestricted.
    enforce_roles: bool = True
    # Firehose's buffering interval here (None: each stream's IntervalInSeconds); see firehose.py.
    firehose_interval_seconds: float | None = field(
        default_factory=lambda: interval_from_environment(os.environ)
    )

    def __post_init__(self) -> None:
        self._moto: ThreadedMotoServer | None = None
        self.endpoint_url = ""
        self.model: StackModel | None = None
        self.functions: dict[str, LocalFunction] = {}
        self.pollers: list[SqsPoller | StreamPoller | SchedulePoller | RatePoller] = []
        self.gateway: Gateway | None = None
        self.firehose = FirehoseDelivery(self.firehose_interval_seconds)

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> None:
        from moto.server import ThreadedMotoServer

        patch_moto()
        install_firehose_delivery(self.firehose)
        end_long_polls_with_their_queue()
        self._moto = ThreadedMotoServer(ip_address="127.0.0.1", port=self.moto_port, verbose=False)
        self._moto.start()
        host, port = self._moto.get_host_and_port()
        self.endpoint_url = f"http://{host}:{port}"
        self.model = read_stack(
            self.stack_name, LOCAL_REGION, self.parameters, self.queue_url, path=self.template_path
        )
        if DOCS_FUNCTION in self.model.functions:  # what `make build` does before `sam build`
            write_document(self.model)
        self.provision()
        self.firehose.start()
        function_environment = local_function_environment(self.endpoint_url, self.extra_function_environment)
        roles = self._enforced_roles()
        for logical_id, spec in self.model.functions.items():
            environment = {**function_environment, **roles.get(logical_id, {})}
            self.functions[logical_id] = LocalFunction(spec, environment, self.function_concurrency)
        self.gateway = Gateway(self.model.routes, self.model.authorizer, self.invoke, port=self.gateway_port)
        self.gateway.start()
        for trigger in self.model.sqs_triggers:
            queue_name = self.model.queues[trigger.queue_id]["QueueName"]
            poller = SqsPoller(
                trigger,
                queue_url=self.queue_url(queue_name),
                queue_arn=f"arn:aws:sqs:{LOCAL_REGION}:{LOCAL_ACCOUNT_ID}:{queue_name}",
                region=LOCAL_REGION,
                client_factory=self.sqs_client,
                invoke=self.invoke,
                pollers=self.max_pollers_per_trigger,
            )
            poller.start()
            self.pollers.append(poller)
        for stream_trigger in self.model.stream_triggers:
            stream_poller = StreamPoller(
                stream_trigger,
                table_name=self.model.tables[stream_trigger.table_id]["TableName"],
                region=LOCAL_REGION,
                client_factory=self.client,
                invoke=self.invoke,
            )
            stream_poller.start()
            self.pollers.append(stream_poller)
        for rate in self.model.rate_triggers:  # EventBridge's rate rules
            rate_poller = RatePoller(rate, self.invoke, LOCAL_REGION, LOCAL_ACCOUNT_ID)
            rate_poller.start()
            self.pollers.append(rate_poller)
        if self.model.schedule_groups:  # the scheduler's part: fire the functions' schedules when due
            schedule_poller = SchedulePoller(
                list(self.model.schedule_groups.values()), self.client, self.queue_url
            )
            schedule_poller.start()
            self.pollers.append(schedule_poller)
        if self.write_state_file:
            self._write_state()

    def _enforced_roles(self) -> dict[str, dict[str, str]]:
        """Each function's role credentials (by logical id), registered with the emulator's
        enforcement; none when ``enforce_roles`` is off."""
        if not self.enforce_roles:
            return {}
        roles = function_roles(
            self.template_path, self.stack_name, LOCAL_REGION, self.parameters, self.queue_url
        )
        for logical_id, role in roles.items():
            register_role(role.access_key_id, f"{self.stack_name}-{logical_id}", role.policies)
        enforce_registered_roles()
        return {logical_id: role.environment() for logical_id, role in roles.items()}

    def stop(self) -> None:
        for poller in self.pollers:
            poller.request_stop()
        end_every_long_poll()
        for poller in self.pollers:
            poller.stop()
        if self.gateway is not None:
            self.gateway.stop()
        for function in self.functions.values():
            function.stop()
        self.firehose.stop()  # what is buffered reaches the bucket before the emulator goes
        if self._moto is not None:
            self._moto.stop()
        if self.write_state_file:
            STATE_FILE.unlink(missing_ok=True)

    def reset(self) -> None:
        """Empty the emulator (moto's reset endpoint) and create the template's resources again."""
        for poller in self.pollers:
            poller.pause()
        try:
            request = Request(f"{self.endpoint_url}/moto-api/reset", method="POST")  # noqa: S310 - local URL
            with urlopen(request, timeout=30):  # noqa: S310
                pass
            # Firehose's puts come to this stack's stand-in again (a test session may have
            # installed its own in this process since): what its flush delivers is all there is
            install_firehose_delivery(self.firehose)
            self.provision()
            if self.gateway is not None:
                self.gateway.clear_authorizer_cache()
        finally:
            for poller in self.pollers:
                poller.resume()

    # -- resources ------------------------------------------------------------------------------

    def queue_url(self, queue_name: str) -> str:
        return queue_url_for(self.endpoint_url, queue_name)

    def sqs_client(self) -> SQSClient:
        client: SQSClient = self.client("sqs")
        return client

    def client(self, service: str) -> Any:
        return aws_client(service, self.endpoint_url)

    def provision(self) -> None:
        assert self.model is not None
        provision_resources(self.model, self.endpoint_url)

    def flush_delivery_streams(self) -> list[str]:
        """Deliver what the Firehose streams buffer now (as their interval would); the keys written."""
        return self.firehose.flush()

    # -- functions ------------------------------------------------------------------------------

    def invoke(self, function_id: str, event: dict[str, Any]) -> Any:
        return self.functions[function_id].invoke(event)

    @property
    def api_url(self) -> str:
        assert self.gateway is not None
        return self.gateway.url

    def output(self, name: str) -> str:
        assert self.model is not None
        return self.model.outputs[name]

    # -- the state file (write_state_file) -----------------------------------------------------------

    def record_api_key(self, api_key: str) -> None:
        """Add the local tenant's key to the state file (what ``make run`` prints, for the CLI)."""
        if self.write_state_file:
            self._write_state(api_key)

    def _write_state(self, api_key: str | None = None) -> None:
        assert self.model is not None
        write_state(self.endpoint_url, self.api_url, self.model.outputs, api_key)

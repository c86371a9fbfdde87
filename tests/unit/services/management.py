"""Management services wired to in-memory fakes, and the rooms and subscriptions tests start from."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import TypeAdapter

from management_api.dead_letters.service import DeadLettersService
from management_api.jobs.service import JobsService
from management_api.rooms.models import RoomCreate
from management_api.rooms.service import RoomsService
from management_api.signing_secrets.service import SigningSecretsService
from management_api.subscriptions.models import (
    PullSubscriptionCreate,
    PushSubscriptionCreate,
    SubscriptionCreate,
)
from management_api.subscriptions.service import SubscriptionsService
from outbox_worker.jobs import JobRunner
from roomcast.catalog.model import Room, Subscription
from roomcast.dead_letters.ports import DeadLetter
from roomcast.dead_letters.replays import Replayer
from roomcast.jobs.model import Job
from roomcast.jobs.retry_now import RetryNow
from roomcast.jobs.steps import JobSteps
from roomcast.messages.envelope import Envelope
from roomcast.messages.sender import QueueAddresses
from roomcast.outbox.queue import OutboxQueue
from roomcast.outbox.tasks import OutboxTask, RunJob, task_from_json
from roomcast.platform.clock import now_ms
from roomcast.webhooks.urls import PushUrlPolicy, Resolver
from tests.fakes import (
    FakeCatalog,
    FakeDeadLetters,
    FakeJobs,
    FakeLog,
    FakeMessages,
    FakeQueueAdmin,
    FakeSender,
)

TENANT = "tenant-a"
OTHER_TENANT = "tenant-b"
PUSH_QUEUE_URL = "https://sqs.local/push"
SLOW_PUSH_QUEUE_URL = "https://sqs.local/push-slow"
OUTBOX_QUEUE_URL = "https://sqs.local/outbox"
SETTLE_SECONDS = 60
PUBLIC_ADDRESS = "93.184.216.34"
SUBSCRIPTION_CREATE = TypeAdapter[PushSubscriptionCreate | PullSubscriptionCreate](SubscriptionCreate)


def dead_letter(subscription: Subscription, number: int) -> DeadLetter:
    """The dead letter of message ``number``: dead for the subscription after six attempts."""
    envelope = Envelope(
        message_id=f"msg_{number:032x}",
        tenant_id=subscription.tenant_id,
        room_id=subscription.room_id,
        subscription_id=subscription.id,
        event_type="order.created",
        event_version="1",
        correlation_id=f"order-{number}",
        published_at="2026-11-22T10:00:00.000Z",
        published_at_ms=1_795_435_200_000,
        expires_at_ms=None,
        attempt=5,
        due_at_ms=1_795_435_231_000,
        next_delay_ms=16_000,
        payload={"n": number},
        failovers=1,
    )
    return DeadLetter(envelope, "HTTP 503; attempts exhausted", "2026-11-22T10:00:31.000Z", 6)


def resolve_to(*addresses: str) -> Resolver:
    return lambda host, port: list(addresses)


def subscription_request(**fields: object) -> PushSubscriptionCreate | PullSubscriptionCreate:
    """A subscription body as the API validates it (JSON in; PULL unless ``type`` says otherwise)."""
    return SUBSCRIPTION_CREATE.validate_json(json.dumps({"type": "PULL", **fields}))


@dataclass
class Management:
    """The management services over one set of fakes, as the function wires them over DynamoDB/SQS."""

    catalog: FakeCatalog = field(default_factory=FakeCatalog)
    queues: FakeQueueAdmin = field(default_factory=FakeQueueAdmin)
    messages: FakeMessages = field(default_factory=FakeMessages)
    dead_letter_store: FakeDeadLetters = field(default_factory=FakeDeadLetters)
    sender: FakeSender = field(default_factory=FakeSender)
    # The outbox queue's sends (publish checks, sweeps), apart from the envelopes.
    outbox_sender: FakeSender = field(default_factory=FakeSender)
    log: FakeLog = field(default_factory=FakeLog)
    job_store: FakeJobs = field(default_factory=FakeJobs)
    allow_loopback: bool = False
    addresses: tuple[str, ...] = (PUBLIC_ADDRESS,)  # what every push URL host resolves to
    clock: Callable[[], int] = now_ms  # the jobs' retry-now clock

    @property
    def outbox(self) -> OutboxQueue:
        return OutboxQueue(self.outbox_sender, OUTBOX_QUEUE_URL, SETTLE_SECONDS)

    def outbox_tasks(self) -> list[tuple[OutboxTask, int]]:
        """The tasks sent to the outbox queue, with their delays, in order."""
        return [(task_from_json(str(o.envelope)), o.delay_seconds) for o in self.outbox_sender.sent]

    @property
    def rooms(self) -> RoomsService:
        return RoomsService(self.catalog)

    @property
    def jobs(self) -> JobsService:
        return JobsService(self.catalog, self.job_store, self.outbox)

    @property
    def replayer(self) -> Replayer:
        return Replayer(
            self.dead_letter_store, self.messages, self.sender, QueueAddresses(PUSH_QUEUE_URL), self.log
        )

    @property
    def retrier(self) -> RetryNow:
        return RetryNow(self.messages, self.sender, QueueAddresses(PUSH_QUEUE_URL), self.log, self.clock)

    @property
    def job_runner(self) -> JobRunner:
        steps = JobSteps(
            self.catalog,
            self.messages,
            self.dead_letter_store,
            self.queues,
            self.replayer,
            self.retrier,
            self.outbox,
            self.log,
        )
        return JobRunner(self.job_store, steps, self.outbox)

    def run_jobs(self) -> list[Job]:
        """Run the job tasks sent to the outbox queue (and those they send on) as the outbox
        function would; the jobs as they ended."""
        ran: list[Job] = []
        done = 0
        while jobs := [t for t, _ in self.outbox_tasks() if isinstance(t, RunJob)][done:]:
            done += len(jobs)
            ran += [job for task in jobs if (job := self.job_runner.run(task, 1)) is not None]
        return ran

    def delete_room(self, room: Room) -> Job:
        """Delete a room as the API does it: start the job, then let it run."""
        job = self.jobs.delete_room(room.tenant_id, room.id)
        self.run_jobs()
        return self.job_store.jobs[(job.tenant_id, job.id)]

    @property
    def subscriptions(self) -> SubscriptionsService:
        return SubscriptionsService(
            self.catalog,
            self.queues,
            self.outbox,
            PushUrlPolicy(allow_loopback=self.allow_loopback),
            resolve_to(*self.addresses),
        )

    @property
    def dead_letters(self) -> DeadLettersService:
        return DeadLettersService(self.catalog, self.dead_letter_store, self.replayer)

    @property
    def secrets(self) -> SigningSecretsService:
        return SigningSecretsService(self.catalog)

    def room(self, tenant_id: str = TENANT, **fields: object) -> Room:
        return self.rooms.create(
            tenant_id, RoomCreate.model_validate_json(json.dumps({"name": "orders", **fields}))
        )

    def subscription(self, room: Room, **fields: object) -> Subscription:
        return self.subscriptions.create(room.tenant_id, room.id, subscription_request(**fields)).subscription

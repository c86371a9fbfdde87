"""What the outbox function is made of, put together once per container on first use."""

from __future__ import annotations

from functools import cache, partial

from outbox_worker.jobs import JobRunner
from outbox_worker.probes import ProbeService
from outbox_worker.service import OutboxService
from roomcast.config import load_settings
from roomcast.dal.dead_letters import DeadLetterStore
from roomcast.dal.jobs import JobStore
from roomcast.dal.queues import QueueAdmin
from roomcast.dal.sender import EnvelopeSender
from roomcast.delivery import wiring
from roomcast.delivery.job_steps import JobSteps
from roomcast.delivery.replays import Replayer
from roomcast.delivery.retry_now import RetryNow
from roomcast.domain.push_urls import PushUrlPolicy

delivery_log = cache(partial(wiring.delivery_log, "outbox"))


@cache
def outbox_service() -> OutboxService:
    settings, sender = load_settings(), EnvelopeSender()
    addresses, outbox = wiring.queue_addresses(settings), wiring.outbox_queue(settings, sender)
    return OutboxService(*wiring.tables(settings), sender, addresses, delivery_log(), outbox)


@cache
def probe_service() -> ProbeService:
    settings, sender = load_settings(), EnvelopeSender()
    catalog, messages = wiring.tables(settings)
    events = wiring.operational_events(settings, catalog, messages, sender, delivery_log())
    policy = PushUrlPolicy(allow_loopback=settings.allow_loopback_push_urls)
    return ProbeService(catalog, wiring.outbox_queue(settings, sender), events, policy)


@cache
def job_runner() -> JobRunner:
    settings, sender = load_settings(), EnvelopeSender()
    catalog, messages = wiring.tables(settings)
    addresses, outbox = wiring.queue_addresses(settings), wiring.outbox_queue(settings, sender)
    dead_letters = DeadLetterStore.sharing(messages)
    replayer = Replayer(dead_letters, messages, sender, addresses, delivery_log())
    queues = QueueAdmin(settings.pull_queue_prefix)
    retrier = RetryNow(messages, sender, addresses, delivery_log())
    steps = JobSteps(catalog, messages, dead_letters, queues, replayer, retrier, outbox, delivery_log())
    return JobRunner(JobStore.sharing(messages), steps, outbox)

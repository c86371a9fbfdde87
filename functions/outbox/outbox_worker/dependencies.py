"""What the outbox function is made of, put together once per container on first use."""

from __future__ import annotations

from functools import cache, partial

from outbox_worker.jobs import JobRunner
from outbox_worker.probes import ProbeService
from outbox_worker.service import OutboxService
from roomcast import wiring
from roomcast.dead_letters.replays import Replayer
from roomcast.dead_letters.store import DeadLetterStore
from roomcast.deliver_at.store import ScheduledMessages
from roomcast.jobs.retry_now import RetryNow
from roomcast.jobs.steps import JobSteps
from roomcast.jobs.store import JobStore
from roomcast.ordering.sends import OrderedSends
from roomcast.ordering.steps import KeySteps
from roomcast.ordering.store import OrderingKeys
from roomcast.pull.queues import QueueAdmin
from roomcast.webhooks.urls import PushUrlPolicy

delivery_log = cache(partial(wiring.delivery_log, "outbox"))


@cache
def outbox_service() -> OutboxService:
    base = wiring.Basics.of(delivery_log())
    scheduled = ScheduledMessages.sharing(base.messages)
    return OutboxService(
        base.catalog,
        base.messages,
        base.sender,
        base.addresses,
        base.log,
        base.outbox(),
        marks=base.marks,
        scheduled=scheduled,
    )


@cache
def ordered_sends() -> OrderedSends:
    base = wiring.Basics.of(delivery_log())
    keys = KeySteps(OrderingKeys.sharing(base.messages))
    return OrderedSends(keys, base.catalog, base.messages, base.sender, base.addresses)


@cache
def probe_service() -> ProbeService:
    base = wiring.Basics.of(delivery_log())
    policy = PushUrlPolicy(allow_loopback=base.settings.allow_loopback_push_urls)
    return ProbeService(base.catalog, base.outbox(), base.operational_events(), policy)


@cache
def job_runner() -> JobRunner:
    base = wiring.Basics.of(delivery_log())
    messages, sender, addresses, outbox = base.messages, base.sender, base.addresses, base.outbox()
    dead_letters = DeadLetterStore.sharing(messages)
    replayer = Replayer(dead_letters, messages, sender, addresses, base.log)
    queues = QueueAdmin(base.settings.pull_queue_prefix)
    retrier = RetryNow(messages, sender, addresses, base.log)
    steps = JobSteps(base.catalog, messages, dead_letters, queues, replayer, retrier, outbox, base.log)
    return JobRunner(JobStore.sharing(messages), steps, outbox)

"""What the outbox function is made of, put together once per container on first use."""

from __future__ import annotations

from functools import cache, partial

from outbox_worker.jobs import JobRunner
from outbox_worker.probes import ProbeService
from outbox_worker.service import OutboxService
from roomcast import wiring
from roomcast.dead_letters import DeadLetterTable, Replayer
from roomcast.deliver_at import ScheduledTable
from roomcast.jobs import JobSteps, JobTable, RetryNow
from roomcast.ordering import KeySteps, OrderedSends, OrderingKeys
from roomcast.pull import QueueAdmin
from roomcast.webhooks import PushUrlPolicy

delivery_log = cache(partial(wiring.delivery_log, "outbox"))


@cache
def outbox_service() -> OutboxService:
    base = wiring.Basics.of(delivery_log())
    scheduled = ScheduledTable.sharing(base.messages)
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
    dead_letters = DeadLetterTable.sharing(messages)
    replayer = Replayer(dead_letters, messages, sender, addresses, base.log)
    queues = QueueAdmin(base.settings.pull_queue_prefix)
    retrier = RetryNow(messages, sender, addresses, base.log)
    steps = JobSteps(base.catalog, messages, dead_letters, queues, replayer, retrier, outbox, base.log)
    return JobRunner(JobTable.sharing(messages), steps, outbox)

"""The data access of a function, made once per container from its settings (a cached factory in
each function calls ``Stores.for_function``): the table, the queues, and the delivery log it
writes. Nothing is connected until first used: boto3 is imported with the first client."""

from __future__ import annotations

from dataclasses import dataclass

from roomcast.config import Settings, load_settings
from roomcast.dal.dead_letters import DeadLetterStore
from roomcast.dal.flow import FlowStore
from roomcast.dal.messages import MessageStore
from roomcast.dal.outbox_queue import OutboxQueue
from roomcast.dal.queues import QueueAdmin, QueueClient
from roomcast.dal.repository import Repository
from roomcast.dal.secrets import StackSecrets
from roomcast.dal.sender import Destinations, EnvelopeSender
from roomcast.delivery.log import DeliveryLog


@dataclass(frozen=True)
class Stores:
    catalog: Repository
    messages: MessageStore
    dead_letters: DeadLetterStore
    sender: EnvelopeSender
    destinations: Destinations
    queue_admin: QueueAdmin
    queues: QueueClient
    log: DeliveryLog
    flow: FlowStore
    secrets: StackSecrets
    outbox: OutboxQueue

    @classmethod
    def for_function(cls, function_name: str) -> Stores:
        return cls.from_settings(load_settings(), function_name)

    @classmethod
    def from_settings(cls, settings: Settings, function_name: str) -> Stores:
        table = settings.table_name
        sender = EnvelopeSender()
        return cls(
            catalog=Repository(table),
            messages=MessageStore(table),
            dead_letters=DeadLetterStore(table),
            sender=sender,
            destinations=Destinations(settings.push_queue_url),
            queue_admin=QueueAdmin(settings.pull_queue_prefix),
            queues=QueueClient(),
            log=DeliveryLog(settings.delivery_stream, function_name),
            flow=FlowStore(table),
            secrets=StackSecrets(settings.receipt_key_secret),
            outbox=OutboxQueue(sender, settings.outbox_queue_url, settings.outbox_settle_seconds),
        )

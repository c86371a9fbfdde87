"""What the pull routes depend on, put together once per container on first use (boto3 is
imported then, not at cold start)."""

from __future__ import annotations

from functools import cache
from typing import Annotated

from aws_lambda_powertools.event_handler.depends import Depends

from pull_api.service import PullService
from pull_api.work import PullWork
from roomcast.config import load_settings
from roomcast.dal.catalog import CatalogStore
from roomcast.dal.delivery_log import DeliveryLog
from roomcast.dal.messages import MessageStore
from roomcast.dal.queues import QueueClient
from roomcast.dal.secrets import StackSecrets
from roomcast.dal.sender import EnvelopeSender
from roomcast.delivery import wiring
from roomcast.domain.receipts import ReceiptSigner


@cache
def delivery_log() -> DeliveryLog:
    settings = load_settings()
    return DeliveryLog(settings.delivery_stream, "pull")


@cache
def pull_service() -> PullService:
    settings = load_settings()
    catalog, messages = CatalogStore(settings.table_name), MessageStore(settings.table_name)
    sender, log = EnvelopeSender(), delivery_log()
    events = wiring.operational_events(settings, catalog, messages, sender, log)
    endings = wiring.endings(settings, catalog, sender, log, events)
    signer = ReceiptSigner(StackSecrets(settings.receipt_key_secret).receipt_key())
    return PullService(PullWork(catalog, messages, QueueClient(), sender, endings, log, signer))


Puller = Annotated[PullService, Depends(pull_service)]

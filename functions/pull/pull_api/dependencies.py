"""What the pull routes depend on, put together once per container on first use (boto3 is
imported then, not at cold start)."""

from __future__ import annotations

from functools import cache, partial
from typing import Annotated

from aws_lambda_powertools.event_handler.depends import Depends

from pull_api.service import PullService
from pull_api.work import PullWork
from roomcast.config import load_settings
from roomcast.dal.queues import QueueClient
from roomcast.dal.secrets import StackSecrets
from roomcast.dal.sender import EnvelopeSender
from roomcast.delivery import wiring
from roomcast.domain.receipts import ReceiptSigner

delivery_log = cache(partial(wiring.delivery_log, "pull"))


@cache
def pull_service() -> PullService:
    settings, sender = load_settings(), EnvelopeSender()
    catalog, messages = wiring.tables(settings)
    _, endings = wiring.reported_endings(settings, catalog, messages, sender, delivery_log())
    signer = ReceiptSigner(StackSecrets(settings.receipt_key_secret).receipt_key())
    return PullService(PullWork(catalog, messages, QueueClient(), sender, endings, delivery_log(), signer))


Puller = Annotated[PullService, Depends(pull_service)]

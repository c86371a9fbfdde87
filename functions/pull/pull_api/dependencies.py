"""What the pull routes depend on, put together once per container on first use (boto3 is
imported then, not at cold start)."""

from __future__ import annotations

from functools import cache, partial
from typing import Annotated

from aws_lambda_powertools.event_handler.depends import Depends

from pull_api.service import PullService
from pull_api.work import PullWork
from roomcast import wiring
from roomcast.platform import StackSecrets
from roomcast.pull import QueueClient, ReceiptSigner

delivery_log = cache(partial(wiring.delivery_log, "pull"))


@cache
def pull_service() -> PullService:
    base = wiring.Basics.of(delivery_log())
    _, endings = base.reported_endings()
    signer = ReceiptSigner(StackSecrets(base.settings.receipt_key_secret).receipt_key())
    work = PullWork(
        base.catalog,
        base.messages,
        QueueClient(),
        base.sender,
        endings,
        base.log,
        signer,
        send_log=delivery_log().flush,
    )
    return PullService(work)


Puller = Annotated[PullService, Depends(pull_service)]

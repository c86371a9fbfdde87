"""What the pull routes depend on, made once per container on first use."""

from __future__ import annotations

from functools import cache
from typing import Annotated

from aws_lambda_powertools.event_handler.depends import Depends

from pull_api.service import PullService
from pull_api.work import PullWork
from roomcast.dal.stores import Stores
from roomcast.delivery.endings import Endings


@cache
def stores() -> Stores:
    return Stores.for_function("pull")


def pull_service() -> PullService:
    return PullService(PullWork.of(stores(), Endings.of(stores())))


Puller = Annotated[PullService, Depends(pull_service)]

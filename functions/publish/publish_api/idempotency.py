"""Idempotent publishing: an ``Idempotency-Key`` makes a retried publish return the first answer
without publishing twice (powertools idempotency, records in the table for 24 hours)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import BaseModel

from publish_api.models import IDEMPOTENCY_KEY_REGEX, PublishRequest, PublishResponse
from roomcast.domain import limits
from roomcast.errors import Conflict, InvalidRequest

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig
    from aws_lambda_powertools.utilities.typing import LambdaContext

IDEMPOTENCY_KEY_PATTERN = re.compile(IDEMPOTENCY_KEY_REGEX)
IDEMPOTENCY_WINDOW_SECONDS = limits.IDEMPOTENCY_WINDOW_MS // 1000


class PublishCommand(BaseModel):
    """What an idempotency key stands for: the same key with another request is refused."""

    tenantId: str
    roomId: str
    idempotencyKey: str
    request: PublishRequest


def idempotency_key(value: str | None) -> str | None:
    """The request's ``Idempotency-Key`` header, checked (400 when malformed), or None."""
    if value is None:
        return None
    if not IDEMPOTENCY_KEY_PATTERN.match(value):
        problem = "must be 1-128 letters, digits, '.', '_', ':' or '-'"
        raise InvalidRequest(
            f"Idempotency-Key {problem}",
            code="invalid_idempotency_key",
            http_status=400,
            details=[{"field": "header.Idempotency-Key", "problem": problem, "type": "invalid"}],
        )
    return value


@dataclass
class IdempotentPublisher:
    """Runs ``publish`` at most once per (tenant, room, key) within the window."""

    publish_once: Callable[..., PublishResponse]
    config: IdempotencyConfig

    @classmethod
    def build(
        cls, table_name: str, publish: Callable[[PublishCommand], PublishResponse]
    ) -> IdempotentPublisher:
        # Imported here, on the first keyed publish: powertools idempotency imports boto3.
        from aws_lambda_powertools.utilities.idempotency import (
            DynamoDBPersistenceLayer,
            IdempotencyConfig,
            idempotent_function,
        )
        from aws_lambda_powertools.utilities.idempotency.serialization.pydantic import PydanticSerializer

        from roomcast.dal.aws import dynamodb_client

        persistence = DynamoDBPersistenceLayer(
            table_name=table_name,
            key_attr="PK",
            sort_key_attr="SK",
            static_pk_value="IDEMPOTENCY#publish",
            expiry_attr="ttl",
            boto3_client=dynamodb_client(),
        )
        config = IdempotencyConfig(
            event_key_jmespath="[tenantId, roomId, idempotencyKey]",
            payload_validation_jmespath="request",
            expires_after_seconds=IDEMPOTENCY_WINDOW_SECONDS,
        )

        @idempotent_function(
            data_keyword_argument="command",
            persistence_store=persistence,
            config=config,
            output_serializer=PydanticSerializer(PublishResponse),
            key_prefix="publish",  # stable across refactors: the key does not depend on a function name
        )
        def publish_once(command: PublishCommand) -> PublishResponse:
            return publish(command)

        return cls(publish_once, config)

    def publish(self, command: PublishCommand, context: LambdaContext) -> PublishResponse:
        from aws_lambda_powertools.utilities.idempotency.exceptions import (
            IdempotencyAlreadyInProgressError,
            IdempotencyValidationError,
        )

        self.config.register_lambda_context(context)
        try:
            return self.publish_once(command=command)
        except IdempotencyValidationError as error:
            raise InvalidRequest(
                "this Idempotency-Key was used with a different request in the last 24 hours",
                code="idempotency_key_reused",
            ) from error
        except IdempotencyAlreadyInProgressError as error:
            raise Conflict("a publish with this Idempotency-Key is in progress; retry shortly") from error

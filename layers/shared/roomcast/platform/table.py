"""The base of the DynamoDB stores: the table, a client, and the loops DynamoDB makes every caller
write (pages and their positions, batches with unprocessed items) written once."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final, Self

from botocore.exceptions import ClientError

from roomcast.platform import items
from roomcast.platform.aws import dynamodb_client
from roomcast.platform.errors import Conflict
from roomcast.platform.pages import Page, Position, position_value

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient
    from mypy_boto3_dynamodb.type_defs import UpdateItemOutputTypeDef

# DynamoDB's own limits per call.
BATCH_WRITE_MAX_ITEMS: Final = 25
BATCH_GET_MAX_KEYS: Final = 100
_MAX_UNPROCESSED_ROUNDS: Final = 8

Key = dict[str, Any]


def key(partition: str, sort: str) -> Key:
    return {"PK": {"S": partition}, "SK": {"S": sort}}


class UnprocessedItems(RuntimeError):
    """DynamoDB kept refusing part of a batch (throttling): nothing may be acknowledged."""


class TableAccess:
    """A DynamoDB store: the table's name and a client (the shared lazy one unless a test or tool
    passes its own)."""

    def __init__(self, table_name: str, client: DynamoDBClient | None = None) -> None:
        self._table_name = table_name
        self._explicit_client = client

    @classmethod
    def sharing(cls, other: TableAccess) -> Self:
        """A store of another kind on the same table and client."""
        return cls(other._table_name, other._explicit_client)

    @property
    def _client(self) -> DynamoDBClient:
        return self._explicit_client or dynamodb_client()

    def _transact(self, transaction: list[dict[str, Any]]) -> int | None:
        """Run a transaction; None when it went through, else the index of the first item whose
        condition failed (-1 when DynamoDB did not say which)."""
        try:
            self._client.transact_write_items(TransactItems=transaction)  # type: ignore[arg-type]
        except ClientError as error:
            if not is_condition_failure(error):
                raise
            reasons = error.response.get("CancellationReasons", [])
            failed = [i for i, reason in enumerate(reasons) if reason.get("Code") == "ConditionalCheckFailed"]
            return failed[0] if failed else -1
        return None

    def _transact_or_conflict(self, transaction: list[dict[str, Any]], what: str) -> int | None:
        """``_transact``, with a cancellation that names no condition (-1: another transaction on
        the same items at that moment, throttling) raised as a 409: nothing was written, and
        the caller must not answer as if it had been."""
        failed = self._transact(transaction)
        if failed == -1:
            raise Conflict(f"{what} ran into another change at the same moment; nothing was written: retry")
        return failed

    def _put_new(self, item: items.Item) -> bool:
        """Put ``item`` unless an item with its key exists (False then: nothing written). A put's
        one-clause condition is far cheaper for the emulator than an update of a dozen clauses
        (~5 against ~20 ms in moto), for the same unit and wait on AWS."""
        try:
            self._client.put_item(
                TableName=self._table_name,
                Item=items.to_attributes(item),
                ConditionExpression="attribute_not_exists(PK)",
            )
        except ClientError as error:
            if is_condition_failure(error):
                return False
            raise
        return True

    def _update_if(self, item_key: Key, **request: Any) -> UpdateItemOutputTypeDef | None:
        """UpdateItem of one item of the table under its ``ConditionExpression``: the answer, or
        None when the condition did not hold (any other error raises)."""
        try:
            return self._client.update_item(TableName=self._table_name, Key=item_key, **request)
        except ClientError as error:
            if is_condition_failure(error):
                return None
            raise

    def _update_or_refusal(self, item_key: Key, **request: Any) -> items.Item | None:
        """``_update_if``, answering what refused it instead: None when written, else the item as
        it was when its ``ConditionExpression`` did not hold (returned with the refusal itself,
        ``ReturnValuesOnConditionCheckFailure``: no second call, and no other write in between)."""
        if "ConditionExpression" in request:
            request["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
        try:
            self._client.update_item(TableName=self._table_name, Key=item_key, **request)
        except ClientError as error:
            if is_condition_failure(error):
                return items.from_attributes(error.response.get("Item", {}))  # type: ignore[arg-type]
            raise
        return None

    def _insert_each(self, new_items: Sequence[dict[str, Any]]) -> list[str | None]:
        """Put each item (attribute values) unless an item with its key exists — each on its own,
        as a conditional PutItem would, but 25 to a call: one ``BatchExecuteStatement`` of PartiQL
        ``INSERT`` statements, one write unit an item as a PutItem. For each item, in order: None
        when it was written, else the code DynamoDB gave its statement (``DuplicateItem`` when
        the key exists; throttling and the like are the caller's to retry, as a single write).
        The items' keys must differ (a batch may not write one item twice)."""
        outcomes: list[str | None] = []
        for start in range(0, len(new_items), BATCH_WRITE_MAX_ITEMS):
            statements = [
                {"Statement": _insert_statement(self._table_name, list(item)), "Parameters": [*item.values()]}
                for item in new_items[start : start + BATCH_WRITE_MAX_ITEMS]
            ]
            responses = self._client.batch_execute_statement(Statements=statements)["Responses"]  # type: ignore[arg-type]
            outcomes.extend(
                (response["Error"].get("Code") or "Unknown") if "Error" in response else None
                for response in responses
            )
        return outcomes

    def _key_condition(self, partition: str, prefix: str | None) -> dict[str, Any]:
        condition: dict[str, Any] = {
            "TableName": self._table_name,
            "KeyConditionExpression": "PK = :pk",
            "ExpressionAttributeValues": {":pk": {"S": partition}},
            "ConsistentRead": True,
        }
        if prefix:
            condition["KeyConditionExpression"] += " AND begins_with(SK, :prefix)"
            condition["ExpressionAttributeValues"][":prefix"] = {"S": prefix}
        return condition

    def _query_page(
        self, partition: str, limit: int, start: Position | None, prefix: str, id_format: re.Pattern[str]
    ) -> Page[items.Item]:
        """One page of the items of a partition whose sort keys are ``prefix`` + an id of
        ``id_format``. Its position is that id alone: the start key is rebuilt from this partition
        and prefix, once the id's format is checked, so a position can only point into this list."""
        request = {**self._key_condition(partition, prefix or None), "Limit": limit}
        if start is not None:
            request["ExclusiveStartKey"] = key(partition, prefix + position_value(start, id_format))
        response = self._client.query(**request)
        found = [items.from_attributes(raw) for raw in response.get("Items", [])]
        last = response.get("LastEvaluatedKey")
        return Page(found, (last["SK"]["S"].removeprefix(prefix),) if last else None)

    def _query_all(self, partition: str, prefix: str | None = None) -> Iterator[items.Item]:
        """Every item of a partition (or of a sort-key prefix), page after page."""
        for page in self._client.get_paginator("query").paginate(**self._key_condition(partition, prefix)):
            yield from (items.from_attributes(raw) for raw in page.get("Items", []))

    def _count(self, partition: str, prefix: str | None = None) -> int:
        pages = self._client.get_paginator("query").paginate(
            **self._key_condition(partition, prefix), Select="COUNT"
        )
        return sum(page.get("Count", 0) for page in pages)

    def _batch_get(self, keys: Sequence[Key]) -> list[items.Item]:
        """Items by key, 100 keys a call, asking again for what DynamoDB left unprocessed;
        missing items are simply absent."""
        unique = list({(k["PK"]["S"], k["SK"]["S"]): k for k in keys}.values())
        found: list[items.Item] = []
        for start in range(0, len(unique), BATCH_GET_MAX_KEYS):
            request: dict[str, Any] = {
                self._table_name: {"Keys": unique[start : start + BATCH_GET_MAX_KEYS], "ConsistentRead": True}
            }
            while request:
                response = self._client.batch_get_item(RequestItems=request)
                found.extend(
                    items.from_attributes(raw)
                    for raw in response.get("Responses", {}).get(self._table_name, [])
                )
                request = dict(response.get("UnprocessedKeys", {}))
        return found

    def _batch_write(self, requests: Sequence[dict[str, Any]]) -> None:
        """Put and delete requests, 25 a call, retrying what DynamoDB left unprocessed with backoff."""
        for start in range(0, len(requests), BATCH_WRITE_MAX_ITEMS):
            pending: list[Any] = list(requests[start : start + BATCH_WRITE_MAX_ITEMS])
            for round_number in range(_MAX_UNPROCESSED_ROUNDS):
                response = self._client.batch_write_item(RequestItems={self._table_name: pending})
                pending = list(response.get("UnprocessedItems", {}).get(self._table_name, []))
                if not pending:
                    break
                time.sleep(min(0.05 * 2**round_number, 1.0))
            else:
                raise UnprocessedItems(f"DynamoDB left {len(pending)} writes unprocessed")


def _insert_statement(table_name: str, names: Sequence[str]) -> str:
    """``INSERT INTO "<table>" VALUE {'<name>': ?, …}``: the item's values go as parameters."""
    quoted_table = table_name.replace('"', '""')
    pairs = ", ".join("'{}': ?".format(name.replace("'", "''")) for name in names)
    return f'INSERT INTO "{quoted_table}" VALUE {{{pairs}}}'


def is_condition_failure(error: Exception) -> bool:
    """A conditional write (or a transaction with one) that DynamoDB refused because of its condition."""
    response = getattr(error, "response", None) or {}
    code = response.get("Error", {}).get("Code", "")
    return code in {"ConditionalCheckFailedException", "TransactionCanceledException"}

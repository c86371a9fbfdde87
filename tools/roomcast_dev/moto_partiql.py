"""PartiQL ``INSERT`` in a ``BatchExecuteStatement``, for moto in-process, as DynamoDB runs it.

roomcast writes an ack's new delivery records as one ``BatchExecuteStatement`` of ``INSERT``
statements (roomcast.platform.table ``_insert_each``; docs/decisions/0026-pull-ack-waits.md,
amendment 5). DynamoDB runs each statement of a batch on its own: an ``INSERT`` puts its item
unless an item with its primary key exists, and then that statement alone fails with the error
code ``DuplicateItem`` (API_BatchStatementError); the others are written whatever it does. moto
(5.2) cannot stand in for that:

- its ``INSERT`` ignores the statement's parameters (``VALUE {'PK': ?}`` stores the text ``?``)
  and overwrites an item that exists;
- it turns every item of every table into JSON for each statement (its PartiQL engine reads the
  tables as documents), so a statement costs time in proportion to the tables' size.

With this patch, a batch whose statements are all ``INSERT INTO "<table>" VALUE {'<name>': ?,
…}`` (the parameterised form, the one roomcast sends) is run as DynamoDB does: each statement a
put under the condition that its key is new — ``DuplicateItem`` when it is not, ``ResourceNotFound``
for a table that does not exist, ``ValidationError`` for a statement whose parameters do not match
it — with moto's own ``put_item`` (its key checks, its stream records). Any other batch is moto's.
"""

from __future__ import annotations

import re
import threading
from typing import Any

_installed = threading.Lock()
_state = {"done": False}

_NAME = r"'(?:[^']|'')+'"
_INSERT = re.compile(
    r'\s*INSERT\s+INTO\s+"(?P<table>(?:[^"]|"")+)"\s+VALUE\s+\{(?P<names>\s*'
    + _NAME
    + r"\s*:\s*\?\s*(?:,\s*"
    + _NAME
    + r"\s*:\s*\?\s*)*)\}\s*",
    re.IGNORECASE,
)
_NAMES = re.compile(r"'((?:[^']|'')+)'\s*:\s*\?")


def parameterised_insert(statement: str) -> tuple[str, list[str]] | None:
    """The table and the attribute names, in order, of ``INSERT INTO "t" VALUE {'a': ?, …}``;
    None for any other statement."""
    matched = _INSERT.fullmatch(statement)
    if matched is None:
        return None
    names = [name.replace("''", "'") for name in _NAMES.findall(matched["names"])]
    return matched["table"].replace('""', '"'), names


def batch_inserts_as_dynamodb_runs_them() -> None:
    """Patch moto's ``batch_execute_statement`` in this process (idempotent)."""
    from moto.dynamodb.models import DynamoDBBackend

    with _installed:
        if _state["done"]:
            return
        original = DynamoDBBackend.batch_execute_statement

        def batch_execute_statement(
            backend: DynamoDBBackend, statements: list[dict[str, Any]]
        ) -> list[dict[str, Any]]:
            parsed = [parameterised_insert(s.get("Statement", "")) for s in statements]
            inserts = [insert for insert in parsed if insert is not None]
            if not statements or len(inserts) < len(statements):
                return original(backend, statements)
            return [
                _run_insert(backend, table, names, statement.get("Parameters", []))
                for (table, names), statement in zip(inserts, statements, strict=True)
            ]

        DynamoDBBackend.batch_execute_statement = batch_execute_statement  # type: ignore[method-assign,assignment]
        _state["done"] = True


def _run_insert(backend: Any, table_name: str, names: list[str], parameters: list[Any]) -> dict[str, Any]:
    from moto.dynamodb.exceptions import ConditionalCheckFailed, DynamodbException

    table = backend.tables.get(table_name)
    if table is None:
        return {"Error": {"Code": "ResourceNotFound", "Message": "Requested resource not found"}}
    missing = [key for key in table.table_key_attrs if key not in names]
    if len(set(names)) != len(names):
        return _invalid("Duplicate attribute names in the inserted value")
    if len(names) != len(parameters):
        return _invalid("Number of parameters in request and statement don't match")
    if missing:
        return _invalid(f"Missing key attribute: {missing[0]}")
    try:
        backend.put_item(
            table_name,
            dict(zip(names, parameters, strict=True)),
            condition_expression="attribute_not_exists(#key)",
            expression_attribute_names={"#key": table.hash_key_attr},
        )
    except ConditionalCheckFailed:
        return {"Error": {"Code": "DuplicateItem", "Message": "Duplicate primary key exists in table"}}
    except DynamodbException as error:
        return _invalid(getattr(error, "message", str(error)))
    return {"TableName": table_name}


def _invalid(message: str) -> dict[str, Any]:
    return {"Error": {"Code": "ValidationError", "Message": message}}

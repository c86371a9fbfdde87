"""The event-type catalog's schemas (roomcast.event_types.model): what may be saved, what a
payload is told, and that nothing is ever fetched."""

from __future__ import annotations

from typing import Any

import pytest

from roomcast.event_types.model import (
    CompiledSchema,
    InvalidSchema,
    SchemaProblem,
    check_payload,
    checked_schema,
    compile_schema,
    schema_digest,
    schema_text,
)
from roomcast.platform import limits
from roomcast.platform.payloads import JsonValue


def problems(schema: CompiledSchema, payload: JsonValue) -> list[SchemaProblem]:
    return list(check_payload(schema, payload).problems)


ORDER = {
    "type": "object",
    "required": ["orderId"],
    "properties": {
        "orderId": {"type": "integer"},
        "items": {"type": "array", "items": {"type": "object", "properties": {"price": {"type": "number"}}}},
    },
}


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        ([], "must be a JSON Schema object"),
        ({"type": 5}, "not a valid JSON Schema at /type"),
        ({"$schema": "http://json-schema.org/draft-07/schema#"}, "2020-12"),
        ({"$schema": 7}, "2020-12"),
        ({"$ref": "https://example.com/schema.json"}, "roomcast fetches nothing"),
        ({"$ref": "#/$defs/missing"}, "cannot be compiled"),
        ({"description": "x" * limits.MAX_SCHEMA_BYTES}, "at most 32 KiB"),
    ],
)
def test_a_schema_that_cannot_be_saved_is_refused_naming_why(schema: Any, words: str) -> None:
    with pytest.raises(InvalidSchema) as refused:
        checked_schema("2", schema)
    assert refused.value.version == "2"
    assert words in refused.value.problem


def test_a_valid_schema_is_kept_as_sorted_compact_text_whose_digest_ignores_key_order() -> None:
    # When
    text = checked_schema("1", ORDER).text
    reordered = checked_schema("1", dict(reversed(list(ORDER.items())))).text

    # Then
    assert text == reordered == schema_text(ORDER)
    assert ", " not in text
    assert schema_digest(text) == schema_digest(reordered)
    assert len(schema_digest(text)) == 64


def test_local_references_are_resolved() -> None:
    schema = {"$defs": {"id": {"type": "integer"}}, "properties": {"orderId": {"$ref": "#/$defs/id"}}}
    validator = compile_schema(checked_schema("1", schema).text)
    assert [str(p) for p in problems(validator, {"orderId": "x"})] == [
        'payload.orderId: "x" is not of type "integer"'
    ]


def test_each_problem_names_where_in_the_payload_and_why() -> None:
    # Given
    validator = compile_schema(checked_schema("1", ORDER).text)

    # When
    found = problems(validator, {"items": [{"price": 1}, {"price": "free"}]})

    # Then
    assert [(p.path, p.message) for p in found] == [
        ("payload", '"orderId" is a required property'),
        ("payload.items[1].price", '"free" is not of type "number"'),
    ]
    assert problems(validator, {"orderId": 7}) == []


def test_at_most_twenty_problems_are_named() -> None:
    validator = compile_schema(checked_schema("1", {"items": {"type": "string"}}).text)
    assert len(problems(validator, list(range(100)))) == limits.MAX_SCHEMA_ERRORS

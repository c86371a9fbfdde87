"""Event-type catalog requests and responses (the public contract; see /openapi.json)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from roomcast.api import (
    EVENT_VERSION_PATTERN,
    NOT_NULL,
    ApiModel,
    EventTypeName,
    EventVersion,
    ResponseModel,
    examples,
)
from roomcast.platform import limits

Validation = Literal["reject", "warn", "off"]
# ``Any`` inside, not JsonValue: the body is JSON already, and a schema nested past pydantic's depth
# must reach roomcast's own check (400 invalid_schema, "nests deeper than 64 levels"), not a 422.
Schema = Annotated[
    dict[str, Any],
    Field(
        description=f"A JSON Schema (2020-12) of the payload, at most {limits.MAX_SCHEMA_BYTES // 1024} KiB; "
        "checked against the meta-schema when saved (400 `invalid_schema`): references are fragments "
        "of itself, patterns without backreferences or lookaround, its cost bounded "
        "(docs/event-types.md).",
        examples=[
            {"type": "object", "required": ["orderId"], "properties": {"orderId": {"type": "integer"}}}
        ],
    ),
]
Description = Annotated[str, Field(max_length=limits.MAX_DESCRIPTION_LENGTH)]
_SCHEMAS_HELP = "JSON Schemas of the payload by `eventVersion`."
# Each key of ``schemas`` is an eventVersion: the documented schema says so too.
_VERSION_KEYS = {"propertyNames": {"pattern": EVENT_VERSION_PATTERN, "maxLength": 32}}
_VALIDATION_HELP = (
    "What a publish whose payload breaks its version's schema gets: `reject` (422 with each error, "
    "nothing stored; in a batch, that message alone), `warn` (published; the errors are kept on the "
    "message and reported to the room's operations room), `off` (not checked)."
)
_ORDER_SCHEMA: dict[str, JsonValue] = {
    "type": "object",
    "required": ["orderId"],
    "properties": {"orderId": {"type": "integer"}},
}
_EXAMPLE = {
    "name": "order.created",
    "description": "An order was placed.",
    "validation": "reject",
    "deprecated": False,
    "archived": False,
    "schemas": {"1": _ORDER_SCHEMA},
    "versions": ["1"],
    "createdAt": "2026-11-26T10:00:00.000Z",
    "updatedAt": "2026-11-26T10:00:00.000Z",
}


class EventTypeCreate(ApiModel):
    model_config = examples(
        {"name": "order.created", "schemas": {"1": _ORDER_SCHEMA}},
        {"name": "order.created", "description": "An order was placed.", "validation": "warn", "schemas": {}},
    )

    name: EventTypeName
    description: Description = ""
    schemas: Annotated[
        dict[EventVersion, Schema],
        Field(
            max_length=limits.MAX_SCHEMA_VERSIONS, description=_SCHEMAS_HELP, json_schema_extra=_VERSION_KEYS
        ),
    ] = {}
    validation: Validation = Field(default="reject", description=_VALIDATION_HELP)
    deprecated: bool = Field(default=False, description="Still published and validated; shown as deprecated.")


class EventTypePatch(ApiModel):
    """Fields to change; in ``schemas``, a version given a schema gets it, a version given null
    loses its schema, other versions keep theirs."""

    model_config = examples({"validation": "warn"}, {"schemas": {"2": _ORDER_SCHEMA, "0": None}})

    description: Annotated[Description | None, NOT_NULL] = None
    schemas: Annotated[
        dict[EventVersion, Schema | None] | None,
        NOT_NULL,
        Field(
            max_length=limits.MAX_SCHEMA_VERSIONS,
            description="Versions to set (a schema) or remove (null).",
            json_schema_extra=_VERSION_KEYS,
        ),
    ] = None
    validation: Annotated[Validation | None, NOT_NULL] = None
    deprecated: Annotated[bool | None, NOT_NULL] = None


class EventTypeView(ResponseModel):
    model_config = examples(_EXAMPLE)

    name: str
    description: str
    validation: Validation
    deprecated: bool
    archived: bool = Field(
        description="Archived (DELETE): out of the catalog until restored; what is in flight still delivers."
    )
    schemas: dict[str, dict[str, JsonValue]] | None = Field(
        default=None, description="By version; null in lists (read one event type for its schemas)."
    )
    versions: list[str] = Field(description="The versions that have a schema.")
    createdAt: str
    updatedAt: str


class EventTypeList(BaseModel):
    model_config = examples({"eventTypes": [{**_EXAMPLE, "schemas": None}], "nextCursor": None})

    eventTypes: list[EventTypeView]
    nextCursor: str | None = Field(
        default=None, description="Pass as `cursor` for the next page; null at the end."
    )


class ValidateRequest(ApiModel):
    model_config = examples({"eventVersion": "1", "payload": {"orderId": "x"}})

    eventVersion: EventVersion
    payload: JsonValue = Field(description=f"Any JSON, at most {limits.MAX_PAYLOAD_BYTES} bytes serialized.")


class SchemaError(BaseModel):
    path: str = Field(description="Where in the payload: `payload.items[2].price`.")
    message: str


class ValidateResponse(BaseModel):
    model_config = examples(
        {
            "valid": False,
            "checked": True,
            "errors": [{"path": "payload.orderId", "message": '"x" is not of type "integer"'}],
        }
    )

    valid: bool = Field(description="True when the payload meets its version's schema, or there is none.")
    checked: bool = Field(description="Whether that version has a schema to check against.")
    errors: list[SchemaError] = Field(
        description=f"At most {limits.MAX_SCHEMA_ERRORS}, in the schema's order."
    )
    detailsCutShort: bool = Field(
        default=False,
        description="True when `errors` may not be all of them: collecting every error of this payload "
        "would cost more than a check may (then the first error is given, or none).",
    )


class CatalogDocument(BaseModel):
    """An OpenAPI 3.1 document of ``webhooks`` (docs/event-types.md, "Export")."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "openapi": "3.1.0",
                    "info": {
                        "title": "roomcast webhooks of tenant acme",
                        "version": "2026-11-26T10:00:00.000Z",
                    },
                    "webhooks": {
                        "order.created v1": {
                            "post": {
                                "operationId": "order_created_v1",
                                "summary": "order.created version 1",
                                "requestBody": {
                                    "required": True,
                                    "content": {
                                        "application/json": {
                                            "schema": {
                                                "type": "object",
                                                "properties": {"payload": _ORDER_SCHEMA},
                                            }
                                        }
                                    },
                                },
                                "responses": {"2XX": {"description": "Received: the delivery succeeded."}},
                            }
                        }
                    },
                }
            ]
        },
    )

    openapi: Literal["3.1.0"]
    info: dict[str, JsonValue]
    webhooks: dict[str, JsonValue] = Field(description="One per event type and version: `<name> v<version>`.")

"""How the SDK reads the API's JSON: the base of every model, generated (``_generated/models.py``)
or not (``Page``).

Attributes are snake_case (``room.delivery_delay_ms``) with the API's camelCase names as aliases:
models read the API's JSON, accept either name when built by hand, and
``model_dump(mode="json", by_alias=True)`` gives the API's JSON back. Fields the SDK does not know
yet are kept (``extra="allow"``), so a newer API never breaks an older SDK. Timestamps stay the
API's ISO 8601 strings (``2026-11-22T08:23:17.758Z``) so that they round-trip unchanged.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class ApiModel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")

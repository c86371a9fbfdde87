"""Domain dataclasses as camelCase fields and back: the API and the stored items name every field
the way the domain does, in camelCase. Pure (no AWS, no pydantic).

``camel_fields(room)`` → ``{"id": ..., "messageExpirationMs": ..., "eventTypes": [{...}], ...}``
(enums as their values, tuples as lists, nested dataclasses as dicts);
``from_camel_fields(Room, fields)`` builds the dataclass again, converting each value by the
field's type (enums from values, floats from ints, tuples from lists, nested dataclasses from
dicts). Keys the dataclass does not have are ignored; a missing field takes its default, or None when
it may be None (stored items leave out what is None).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from enum import Enum
from functools import cache
from typing import Any


def camel_fields(source: object) -> dict[str, Any]:
    converted = _plain(source)
    if not isinstance(converted, dict):
        raise TypeError(f"{type(source).__name__} is not a dataclass")
    return converted


def from_camel_fields[T](domain_type: type[T], fields: Mapping[str, Any]) -> T:
    values: dict[str, Any] = {}
    for name, (hint, required) in _hints(typing.cast(type, domain_type)).items():
        key = camel(name)
        if key in fields:
            values[name] = _typed(hint, fields[key])
        elif required and _optional(hint):
            values[name] = None  # stored items leave out what is None
    return domain_type(**values)


@cache
def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _plain(value: object) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {camel(f.name): _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    return value


@cache
def _hints(domain_type: type) -> dict[str, tuple[Any, bool]]:
    """Each field's type, and whether the constructor needs a value for it."""
    if not dataclasses.is_dataclass(domain_type):
        raise TypeError(f"{domain_type.__name__} is not a dataclass")
    hints = typing.get_type_hints(domain_type)
    return {
        f.name: (hints[f.name], f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
        for f in dataclasses.fields(domain_type)
    }


def _optional(hint: Any) -> bool:
    return typing.get_origin(hint) in (types.UnionType, typing.Union) and type(None) in typing.get_args(hint)


def _typed(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin, arguments = typing.get_origin(hint), typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        options = [a for a in arguments if a is not type(None)]
        return _typed(options[0], value) if len(options) == 1 else value
    if origin is tuple:
        return tuple(_typed(arguments[0], item) for item in value)
    if isinstance(hint, type):
        if isinstance(value, hint):
            return value
        if issubclass(hint, Enum) or hint is float:
            return hint(value)
        if dataclasses.is_dataclass(hint):
            return from_camel_fields(hint, value)
    return value

"""Checks a request body gets before the resolver sees it, answered in the HTTP API's own format."""

from __future__ import annotations

import base64
import binascii
import json
import re
import sys
from typing import Any

# Every response of the API says its Content-Type is the truth: a browser must not sniff a JSON
# body into HTML or script.
NOSNIFF = {"X-Content-Type-Options": "nosniff"}
# The WHATWG Encoding Standard's labels for UTF-8 (what a browser reads as UTF-8); any other
# charset would make us read the body's bytes as something they are not.
UTF8_LABELS = frozenset(
    {"utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8"}
)
# A \u escape of a UTF-16 surrogate (\ud800-\udfff): the only way a body can hold one.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# Longest text of a key or a location quoted in a message.
_QUOTED_CHARS = 200
# A media type's parameters: ``; name=token`` or ``; name="quoted \"string\""`` (RFC 9110 5.6.6).
_PARAMETER = re.compile(r';\s*([^\s;=]+)\s*=\s*("(?:[^"\\]|\\.)*"|[^;]*)')


def json_body_required(event: dict[str, Any]) -> dict[str, Any] | None:
    """Check a request body before the resolver sees it; an error response, or None when fine.

    - a body not declared JSON (curl -d sends form encoding), or declared in a charset other than
      UTF-8 → 415;
    - bytes that are not UTF-8, or JSON Python cannot parse (too deep) → 400 ``malformed_json``;
    - an integer of more digits than Python converts (``sys.get_int_max_str_digits()``, 4300) →
      400 ``integer_too_long``: valid JSON, but past what the parser reads, as nesting too deep is;
    - an object naming a key twice (``{"name": 1, "name": "x"}``: parsers disagree on which one
      counts) → 400 ``duplicate_key`` naming the key and where;
    - JSON whose top level is not an object → 422 (powertools would validate a list's first item);
    - a string or key with a lone surrogate (``"\\ud800"``: valid JSON, not text; it cannot be
      stored or sent as UTF-8) → 422 naming where it is.
    A good body's content type is normalised to ``application/json`` for powertools.
    """
    method = (event.get("requestContext", {}).get("http", {}).get("method") or "").upper()
    if method not in ("POST", "PUT", "PATCH") or not event.get("body"):
        return None
    headers = {str(name).lower(): str(value) for name, value in (event.get("headers") or {}).items()}
    content_type = headers.get("content-type", "")
    media_type = content_type.split(";", 1)[0].strip().lower()
    if media_type != "application/json" and not (
        media_type.startswith("application/") and media_type.endswith("+json")
    ):
        message = (
            f"request body must be JSON: send Content-Type: application/json (got {media_type or 'none'!r})"
        )
        return gateway_error(415, "unsupported_media_type", message)
    refused_charset = _charset_not_utf8(content_type)
    if refused_charset is not None:
        message = (
            f"request body must be UTF-8 JSON, but Content-Type says charset={_quoted(refused_charset)}: "
            "send the body as UTF-8, with Content-Type: application/json (charset=utf-8 or none)"
        )
        return gateway_error(
            415,
            "unsupported_media_type",
            message,
            [{"field": "header.content-type", "problem": message, "type": "unsupported_charset"}],
        )
    try:
        raw = (
            base64.b64decode(event["body"], validate=True)
            if event.get("isBase64Encoded")
            else event["body"].encode()
        )
        text = raw.decode("utf-8")
    except (ValueError, binascii.Error):  # UnicodeDecodeError is a ValueError
        return gateway_error(400, "malformed_json", "request body is not valid JSON (or not UTF-8)")
    objects = _ObjectsWithDuplicateKeys()
    try:
        parsed = json.loads(text, object_pairs_hook=objects.hook)
    except (json.JSONDecodeError, RecursionError):
        return gateway_error(400, "malformed_json", "request body is not valid JSON (or not UTF-8)")
    except ValueError:
        # The one ValueError the decoder raises that is not a JSONDecodeError: an integer Python
        # will not convert (parsing stops there). Its limit stays: it is what keeps a huge number
        # from costing quadratic time (CVE-2020-10735).
        limit = sys.get_int_max_str_digits()
        message = (
            f"the body holds an integer of more than {limit} digits; "
            f"roomcast accepts integers of at most {limit} digits"
        )
        return gateway_error(
            400,
            "integer_too_long",
            message,
            [{"field": "body", "problem": message, "type": "integer_too_long"}],
        )
    if objects.found:
        duplicated_in, key = duplicate_key_at(parsed)
        named = _quoted(json.dumps(key, ensure_ascii=False))
        problem = f"names the key {named} more than once; a key may appear once per object"
        return gateway_error(
            400,
            "duplicate_key",
            f"{_quoted(duplicated_in)} {problem}",
            [{"field": _quoted(duplicated_in), "problem": problem, "type": "duplicate_key"}],
        )
    if not isinstance(parsed, dict):
        return gateway_error(422, "validation_error", "request body must be a JSON object")
    # Only a \u escape can write a surrogate (UTF-8 cannot encode one): a body without one is not walked.
    where = lone_surrogate_at(parsed) if _SURROGATE_ESCAPE.search(text) else None
    if where is not None:
        message = (
            f"{_quoted(where)} holds a lone UTF-16 surrogate (\\ud800-\\udfff without its pair): not text"
        )
        return gateway_error(422, "invalid_text", message)
    event["headers"] = {
        k: v for k, v in (event.get("headers") or {}).items() if str(k).lower() != "content-type"
    }
    event["headers"]["content-type"] = "application/json"
    event["body"], event["isBase64Encoded"] = text, False
    return None


def _charset_not_utf8(content_type: str) -> str | None:
    """The ``charset`` a Content-Type names when it is not UTF-8 (quotes and case do not count),
    or None: no charset, or UTF-8."""
    for name, value in _PARAMETER.findall(content_type):
        if str(name).lower() != "charset":
            continue
        charset = str(value).strip()
        if len(charset) >= 2 and charset[0] == charset[-1] == '"':
            charset = re.sub(r"\\(.)", r"\1", charset[1:-1])
        if charset.strip().lower() not in UTF8_LABELS:
            return charset
    return None


def _quoted(text: str) -> str:
    return text if len(text) <= _QUOTED_CHARS else text[: _QUOTED_CHARS - 3] + "..."


class _DuplicateKeys(dict[str, Any]):
    """An object of the body that names ``key`` more than once (holding the last value, as
    ``json.loads`` would)."""

    key: str


class _ObjectsWithDuplicateKeys:
    """``json.loads``'s ``object_pairs_hook``: builds each object as a dict, marks one that names a
    key twice and remembers that one was seen. Where it is, is found afterwards
    (``duplicate_key_at``): the hook sees an object before its parents."""

    def __init__(self) -> None:
        self.found = False

    def hook(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        built = dict(pairs)
        if len(built) == len(pairs):
            return built
        self.found = True
        marked = _DuplicateKeys(built)
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                marked.key = key
                break
            seen.add(key)
        return marked


def duplicate_key_at(value: object, path: str = "body") -> tuple[str, str]:
    """Where in a body parsed with ``_ObjectsWithDuplicateKeys`` the first object (in document
    order) naming a key twice is, and that key. One is always reachable: an object that a repeated
    key dropped belongs to an object that is marked itself. Iterative, as ``lone_surrogate_at``."""
    pending: list[tuple[object, str]] = [(value, path)]
    while pending:
        item, where = pending.pop()
        if isinstance(item, _DuplicateKeys):
            return where, item.key
        if isinstance(item, dict):
            pending.extend((child, f"{where}.{key}") for key, child in reversed(item.items()))
        elif isinstance(item, list):
            pending.extend((item[index], f"{where}.{index}") for index in reversed(range(len(item))))
    raise ValueError("no object names a key twice")


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def lone_surrogate_at(value: object, path: str = "body") -> str | None:
    """Where in a parsed JSON value a string or a key holds a lone surrogate (``body.payload.x``),
    or None. Iterative: a body nested as deep as the parser allows cannot overflow the stack."""
    pending: list[tuple[object, str]] = [(value, path)]
    while pending:
        item, where = pending.pop()
        if isinstance(item, str):
            if _has_surrogate(item):
                return where
        elif isinstance(item, dict):
            for key, child in item.items():
                if _has_surrogate(key):
                    return f"{where} (a key)"
                pending.append((child, f"{where}.{key}"))
        elif isinstance(item, list):
            pending.extend((child, f"{where}.{index}") for index, child in enumerate(item))
    return None


def gateway_error(
    status: int, code: str, message: str, details: list[dict[str, str]] | None = None
) -> dict[str, Any]:
    """An error answered before the resolver runs, already in the HTTP API's response format."""
    body = {"error": {"code": code, "message": message, "details": details or []}}
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json", **NOSNIFF},
        "body": json.dumps(body, separators=(",", ":")),
    }


def body_too_large(event: dict[str, Any], limit_bytes: int) -> dict[str, Any] | None:
    """A 413 for a request body over ``limit_bytes``, refused before it is parsed."""
    body = event.get("body") or ""
    size = len(body) * 3 // 4 if event.get("isBase64Encoded") else len(body.encode("utf-8"))
    if size <= limit_bytes:
        return None
    return gateway_error(
        413, "payload_too_large", f"request body is {size} bytes; the limit is {limit_bytes}"
    )

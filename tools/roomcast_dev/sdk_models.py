"""The clients' share of the API's contract, generated from its OpenAPI document.

``functions/docs/api_docs/openapi.json`` (``make openapi``) is the one description of what the API
answers. From it this writes what the clients would otherwise restate by hand
(docs/decisions/0044-generated-sdk-models.md):

- the Python SDK's pydantic models of every answer and of the webhook body,
  ``clients/python/src/roomcast_client/_generated/models.py``, by datamodel-code-generator run
  with fixed options (``GENERATOR_OPTIONS``) on the answers' schemas as a reader takes them
  (``sdk_document``);
- the API's enumerations (delivery statuses, subscription types, ...) as tuples and ``StrEnum``s
  for the SDK (``_generated/enums.py``) and the CLI (``roomcast_cli/_enums.py``), and as frozen
  arrays of an ES module for the console (``functions/docs/api_docs/console/enums.js``).

Nothing in them depends on the time or the machine: the same document, generator and ruff (both
pinned in uv.lock) give the same bytes. They are committed and checked for drift like openapi.json
(docs/decisions/0035-committed-build-inputs.md): ``make template-inputs`` and
tests/unit/test_generated_clients.py fail while one is stale.

    python -m roomcast_dev.sdk_models           # rewrite the files that changed (make sdk-models)
    python -m roomcast_dev.sdk_models --check   # exit 1 when one is stale (make template-inputs)
"""

from __future__ import annotations

import argparse
import copy
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DOCUMENT_PATH = PROJECT_ROOT / "functions" / "docs" / "api_docs" / "openapi.json"
SDK_PACKAGE = PROJECT_ROOT / "clients" / "python" / "src" / "roomcast_client"
GENERATED_DIR = SDK_PACKAGE / "_generated"
SDK_MODELS = GENERATED_DIR / "models.py"
SDK_ENUMS = GENERATED_DIR / "enums.py"
SDK_GENERATED_INIT = GENERATED_DIR / "__init__.py"
CLI_ENUMS = PROJECT_ROOT / "clients" / "cli" / "src" / "roomcast_cli" / "_enums.py"
CONSOLE_ENUMS = PROJECT_ROOT / "functions" / "docs" / "api_docs" / "console" / "enums.js"

GENERATOR = "datamodel-code-generator"
# The models' base: the SDK's reading of the API's JSON (snake_case attributes, camelCase aliases,
# unknown fields kept). It is hand-written and holds no field.
BASE_CLASS = "roomcast_client._api_model.ApiModel"
GENERATOR_OPTIONS = (
    "--input-file-type=openapi",
    "--openapi-scopes=schemas",
    "--output-model-type=pydantic_v2.BaseModel",
    "--target-python-version=3.11",  # the SDK's requires-python
    "--target-pydantic-version=2",  # the SDK takes pydantic 2.6 and later
    f"--base-class={BASE_CLASS}",
    "--snake-case-field",
    "--strict-nullable",  # a default is not a null: `ordered: bool = False`
    "--enum-field-as-literal=all",
    "--use-annotated",
    "--use-standard-collections",
    "--use-union-operator",
    "--keep-model-order",
    "--disable-timestamp",
    "--no-formatters",  # ruff formats it, with the project's settings (``_formatted``)
)

# The SDK's names of the answers whose schema is named otherwise (``Room`` for ``RoomResponse``):
# the names roomcast_client has always exported. ``JobView`` keeps its name: the SDK's ``Job``
# extends it with ``finished``.
SDK_NAMES = {
    "AckResponse": "AckResult",
    "ApiKeyView": "ApiKey",
    "AttemptView": "Attempt",
    "DeadLetterView": "DeadLetter",
    "DeliveryView": "Delivery",
    "EventTypeModel": "EventType",
    "EventTypeView": "EventTypeDefinition",
    "ExtendResponse": "ExtendResult",
    "FilterTestResponse": "FilterTest",
    "FilteredOutView": "FilteredOut",
    "NackResponse": "NackResult",
    "OrderingKeyView": "OrderingKey",
    "PublishBatchAccepted": "BatchAccepted",
    "PublishBatchRefused": "BatchRefused",
    "PublishBatchResponse": "PublishBatchResult",
    "PublishResponse": "PublishResult",
    "PullResponse": "PullAndAckResult",
    "ReplayResponse": "ReplayResult",
    "RetryResponse": "RetryResult",
    "RoomResponse": "Room",
    "ScheduledAttemptView": "ScheduledAttempt",
    "SubscriptionResponse": "Subscription",
    "ValidateResponse": "Validated",
}
# What a PUSH subscription's endpoint receives: the one schema of the document outside its
# components, added to them under this name.
WEBHOOK_BODY = ("webhooks", "message", "post", "requestBody", "content", "application/json", "schema")
WEBHOOK_MODEL = "WebhookMessage"


@dataclass(frozen=True)
class Enumeration:
    """One of the API's enumerations: its names in the clients and where the document has it (a
    JSON pointer; every other place with the same values is the same enumeration). ``open``: the
    API adds values to it as it grows, so the SDK's models read it as a string (an older SDK must
    not fail on a newer status) and only the lists name its values."""

    class_name: str
    constant: str
    pointer: str
    open: bool = False


_SCHEMAS = "/components/schemas"
ENUMERATIONS = (
    Enumeration("DeliveryStatus", "DELIVERY_STATUSES", f"{_SCHEMAS}/DeliveryView/properties/status", open=True),
    Enumeration("AttemptEvent", "ATTEMPT_EVENTS", f"{_SCHEMAS}/AttemptView/properties/event", open=True),
    Enumeration("JobKind", "JOB_KINDS", f"{_SCHEMAS}/JobView/properties/kind", open=True),
    Enumeration("JobState", "JOB_STATES", f"{_SCHEMAS}/JobView/properties/state"),
    Enumeration("SubscriptionType", "SUBSCRIPTION_TYPES", f"{_SCHEMAS}/SubscriptionResponse/properties/type"),
    Enumeration(
        "SubscriptionStatus", "SUBSCRIPTION_STATUSES", f"{_SCHEMAS}/SubscriptionResponse/properties/status"
    ),
    Enumeration("OnDeadKey", "ON_DEAD_KEY_CHOICES", f"{_SCHEMAS}/SubscriptionResponse/properties/onDeadKey"),
    Enumeration("OrderingKeyStatus", "ORDERING_KEY_STATUSES", f"{_SCHEMAS}/OrderingKeyView/properties/status"),
    Enumeration("NackOutcomeKind", "NACK_OUTCOMES", f"{_SCHEMAS}/NackOutcome/properties/outcome"),
    Enumeration(
        "UndeclaredEventTypes",
        "UNDECLARED_EVENT_TYPES_CHOICES",
        f"{_SCHEMAS}/RoomResponse/properties/undeclaredEventTypes",
    ),
    Enumeration("EventTypeValidation", "VALIDATION_MODES", f"{_SCHEMAS}/EventTypeView/properties/validation"),
    Enumeration(
        "DeliveryControl",
        "DELIVERY_CONTROLS",
        "/webhooks/message/post/responses/2XX/headers/webhook-delivery/schema",
    ),
)
# Enumerations of requests only, which no client lists: a filter policy's numeric operators.
UNLISTED_ENUMS = (f"{_SCHEMAS}/NumericCondition/",)

# Keywords that bound a value rather than give its shape: an answer's values are the API's to
# bound (a limit raised later must not break an older SDK), and timestamps stay the API's strings.
_BOUNDS = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "uniqueItems",
)
# Keywords that say nothing to a reader: pydantic's titles ("Deliverydelayms") and examples.
_NOISE = ("title", "examples", "example")


class StaleDocumentError(ValueError):
    """The document lacks what the generation names (a schema, an enumeration's place), or has an
    enumeration no client has a name for."""


# -- the document as the SDK reads it -------------------------------------------------------------


def _pointer(document: dict[str, Any], pointer: str) -> Any:
    node: Any = document
    for part in pointer.removeprefix("/").split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            raise StaleDocumentError(f"openapi.json has nothing at {pointer}")
        node = node[part]
    return node


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"].rpartition("/")[2]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def answer_schema_names(document: dict[str, Any]) -> list[str]:
    """The component schemas an answer of the API reaches: those of every 2xx response's body,
    and every schema they refer to, in the document's order."""
    schemas = document["components"]["schemas"]
    pending = [
        name
        for operations in document["paths"].values()
        for operation in operations.values()
        if isinstance(operation, dict)
        for status, response in operation.get("responses", {}).items()
        if status.startswith("2")
        for name in _refs(response.get("content", {}))
    ]
    reached: set[str] = set()
    while pending:
        name = pending.pop()
        if name not in reached:
            reached.add(name)
            pending.extend(_refs(schemas[name]))
    return [name for name in schemas if name in reached]


def _is_any(schema: Any) -> bool:
    """A schema any JSON value meets (``{}``, perhaps with a description)."""
    return isinstance(schema, dict) and not set(schema) - {"description", "title"}


def _admits_null(schema: dict[str, Any]) -> bool:
    branches = schema.get("anyOf", schema.get("oneOf", []))
    return schema.get("type") == "null" or any(b.get("type") == "null" for b in branches)


class _Reader:
    """Rewrites answer schemas as a tolerant reader takes them (each rule keeps an older SDK
    working against a newer API, and is what the hand-written models did):

    - a required field that may be null, any JSON value (a payload) or a list may be absent:
      None, None and ``[]`` then;
    - an open enumeration (``Enumeration.open``) is a string;
    - no bounds, formats, titles or examples; ``additionalProperties: false`` is dropped (unknown
      fields are kept by the base class);
    - a reference to an any-JSON schema (``JsonValue``) is that schema itself, so a payload is the
      JSON value rather than a wrapper of it.
    """

    def __init__(self, document: dict[str, Any]) -> None:
        self.schemas: dict[str, Any] = document["components"]["schemas"]
        self.open_values = [
            _pointer(document, e.pointer)["enum"] for e in ENUMERATIONS if e.open
        ]

    def schema(self, node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and _is_any(self.schemas.get(ref.rpartition("/")[2])):
            return {key: value for key, value in node.items() if key == "description"}
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _BOUNDS or key in _NOISE or (key == "additionalProperties" and value is False):
                continue
            if key == "enum" and value in self.open_values:
                continue
            if key == "properties":
                out[key] = {name: self.schema(field) for name, field in value.items()}
            elif key in ("items", "additionalProperties", "not"):
                out[key] = self.schema(value)
            elif key in ("anyOf", "oneOf", "allOf", "prefixItems"):
                out[key] = [self.schema(branch) for branch in value]
            else:
                out[key] = copy.deepcopy(value)
        if "properties" in out and "required" in out:
            self._tolerate_absence(out)
        return out

    @staticmethod
    def _tolerate_absence(schema: dict[str, Any]) -> None:
        required = []
        for name in schema["required"]:
            field = schema["properties"].get(name, {})
            if field.get("type") == "array":
                field.setdefault("default", [])
            elif not (_admits_null(field) or _is_any(field)):
                required.append(name)
        schema["required"] = required


def sdk_document(document: dict[str, Any]) -> dict[str, Any]:
    """The document the SDK's models are generated from: the answers' schemas and the webhook
    body, read tolerantly (``_Reader``), and nothing else (no requests, no paths)."""
    reader = _Reader(document)
    names = [n for n in answer_schema_names(document) if not _is_any(reader.schemas[n])]
    schemas = {name: reader.schema(reader.schemas[name]) for name in names}
    webhook_body = document
    for key in WEBHOOK_BODY:
        if key not in webhook_body:
            raise StaleDocumentError(f"openapi.json has no {'/'.join(WEBHOOK_BODY)}")
        webhook_body = webhook_body[key]
    schemas[WEBHOOK_MODEL] = reader.schema(webhook_body)
    missing = sorted(set(SDK_NAMES) - set(schemas))
    if missing:
        raise StaleDocumentError(f"no answer of openapi.json has these schemas any more: {missing}")
    return {
        "openapi": document["openapi"],
        "info": {"title": document["info"]["title"], "version": document["info"]["version"]},
        "paths": {},
        "components": {"schemas": schemas},
    }


# -- the enumerations -----------------------------------------------------------------------------


def _enum_places(node: Any, pointer: str = "") -> Iterator[tuple[str, list[Any]]]:
    if isinstance(node, dict):
        if isinstance(node.get("enum"), list):
            yield pointer, node["enum"]
        for key, value in node.items():
            yield from _enum_places(value, f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _enum_places(value, f"{pointer}/{index}")


def enumerations(document: dict[str, Any]) -> list[tuple[Enumeration, list[str]]]:
    """Each enumeration with its values, in the document's order. Every enumeration of the
    document must be one of ``ENUMERATIONS`` (or of requests only, ``UNLISTED_ENUMS``): a new one,
    or one whose values differ from place to place, stops the generation until it is named."""
    found = [(e, _pointer(document, e.pointer).get("enum")) for e in ENUMERATIONS]
    for enumeration, values in found:
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise StaleDocumentError(f"openapi.json has no enumeration of strings at {enumeration.pointer}")
    known = [values for _, values in found]
    for pointer, values in _enum_places(document):
        if values not in known and not pointer.startswith(UNLISTED_ENUMS):
            raise StaleDocumentError(
                f"openapi.json has an enumeration no client names at {pointer}: {values} "
                "(name it in roomcast_dev.sdk_models.ENUMERATIONS)"
            )
    return found


def _generated_line(command: str = "#") -> str:
    return (
        f"{command} Generated from functions/docs/api_docs/openapi.json by `make sdk-models`\n"
        f"{command} (python -m roomcast_dev.sdk_models): do not edit. `make template-inputs` and\n"
        f"{command} tests/unit/test_generated_clients.py fail while it is stale.\n"
    )


def python_enums(document: dict[str, Any], owner: str) -> str:
    """The enumerations as a Python module: for each, a tuple of its values and a StrEnum."""
    lines = [
        _generated_line(),
        f'"""The roomcast API\'s enumerations, as {owner} lists and takes them: a tuple of each one\'s',
        "values in the API's order, and a StrEnum of them (docs/decisions/0044-generated-sdk-models.md).",
        '"""',
        "",
        "from enum import StrEnum",
        "from typing import Final",
    ]
    for enumeration, values in enumerations(document):
        where = enumeration.pointer.removeprefix(f"{_SCHEMAS}/").replace("/properties/", ".")
        lines += [
            "",
            "",
            f"{enumeration.constant}: Final = {tuple(values)!r}",
            "",
            "",
            f"class {enumeration.class_name}(StrEnum):",
            f'    """The values of {where} in openapi.json."""',
            "",
            *(f"    {_member(value)} = {value!r}" for value in values),
        ]
    return "\n".join(lines) + "\n"


def _member(value: str) -> str:
    name = "".join(c if c.isalnum() else "_" for c in value).upper()
    return name if name.isidentifier() else f"V_{name}"


def javascript_enums(document: dict[str, Any]) -> str:
    """The enumerations as the console's ES module: a frozen array of each one's values."""
    lines = [
        _generated_line("//"),
        "// The roomcast API's enumerations, each a frozen array of its values in the API's order",
        "// (docs/decisions/0044-generated-sdk-models.md).",
    ]
    for enumeration, values in enumerations(document):
        where = enumeration.pointer.removeprefix(f"{_SCHEMAS}/").replace("/properties/", ".")
        lines += [
            "",
            f"// {where}",
            f"export const {enumeration.constant} = Object.freeze({json.dumps(values)});",
        ]
    return "\n".join(lines) + "\n"


# -- the models -----------------------------------------------------------------------------------


def _header() -> str:
    return (
        _generated_line()
        + f"# {GENERATOR} {version(GENERATOR)}, options in roomcast_dev.sdk_models.GENERATOR_OPTIONS.\n"
        + '"""The roomcast API\'s answers and webhook body as pydantic models, generated from its OpenAPI\n'
        + "document (docs/decisions/0044-generated-sdk-models.md). roomcast_client.models exports them\n"
        + 'under the SDK\'s names; the SDK\'s own code adds behaviour only."""'
    )


def generated_models(document: dict[str, Any]) -> str:
    """The SDK's models, as datamodel-code-generator writes them and ruff formats them."""
    command = [
        sys.executable,
        "-m",
        "datamodel_code_generator",
        *GENERATOR_OPTIONS,
        f"--model-name-map={json.dumps(SDK_NAMES, sort_keys=True)}",
        f"--custom-file-header={_header()}",
    ]
    done = subprocess.run(  # noqa: S603 - the venv's own generator, fixed arguments
        command,
        input=json.dumps(sdk_document(document), indent=1),
        capture_output=True,
        text=True,
        check=False,
        cwd=PROJECT_ROOT,
        timeout=300,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{GENERATOR} failed ({done.returncode}):\n{done.stderr}")
    return _formatted(done.stdout, SDK_MODELS)


def _formatted(source: str, path: Path) -> str:
    """``source`` as ruff leaves it at ``path`` (its imports sorted and upgraded, then formatted),
    with the settings of the pyproject.toml that governs that path."""
    from ruff.__main__ import find_ruff_bin

    ruff = str(find_ruff_bin())
    for step in (
        ["check", "--fix-only", "--select=I,UP,F401", "--exit-zero"],
        ["format"],
    ):
        done = subprocess.run(  # noqa: S603 - the venv's own ruff, fixed arguments
            [ruff, *step, f"--stdin-filename={path}", "-"],
            input=source,
            capture_output=True,
            text=True,
            check=False,
            cwd=PROJECT_ROOT,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"ruff {step[0]} failed on {path}:\n{done.stderr}")
        source = done.stdout
    return source


# -- the files ------------------------------------------------------------------------------------

_GENERATED_INIT = (
    _generated_line()
    + '"""Code generated from the API\'s OpenAPI document: ``models`` (datamodel-code-generator) and\n'
    + '``enums`` (docs/decisions/0044-generated-sdk-models.md)."""\n'
)


def outputs(document_path: Path = DOCUMENT_PATH) -> dict[Path, str]:
    """Every generated file and what it holds, made from the document at ``document_path``."""
    document = json.loads(document_path.read_text(encoding="utf-8"))
    return {
        SDK_GENERATED_INIT: _GENERATED_INIT,
        SDK_MODELS: generated_models(document),
        SDK_ENUMS: python_enums(document, "the SDK"),
        CLI_ENUMS: python_enums(document, "the CLI"),
        CONSOLE_ENUMS: javascript_enums(document),
    }


def stale(files: dict[Path, str]) -> list[Path]:
    """The files whose content on disk is not ``files``' (missing ones included)."""
    return [
        path for path, text in files.items() if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is stale")
    args = parser.parse_args(argv)
    files = outputs()
    changed = stale(files)
    if args.check:
        for path in changed:
            print(f"stale: {path.relative_to(PROJECT_ROOT)} (run make sdk-models)", file=sys.stderr)
        return 1 if changed else 0
    for path in changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[path], encoding="utf-8")
        print(f"wrote {path.relative_to(PROJECT_ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

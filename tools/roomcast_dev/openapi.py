"""The published OpenAPI document, merged from every API function's own resolver.

Each function that template.yaml routes HTTP API requests to documents its routes on its
resolver (``app`` in its handler module). This merges those documents (powertools' OpenAPIMerge,
conflicts are errors) and writes the result where the docs function serves it from. The file is
committed, so a plain ``sam build`` ships it, and checked for drift
(docs/decisions/0035-committed-build-inputs.md); ``make openapi`` and ``make build`` rewrite it, and
so does the local stack on start.

    python -m roomcast_dev.openapi [--out PATH]
    python -m roomcast_dev.openapi --check   # exit 1 when the file is stale (make template-check)
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from roomcast_dev.template import PROJECT_ROOT, StackModel, read_stack

DOCS_FUNCTION = "DocsFunction"
DOCUMENT_PATH = PROJECT_ROOT / "functions" / "docs" / "api_docs" / "openapi.json"


def api_functions(model: StackModel) -> list[str]:
    """The functions HTTP API routes lead to (the authorizer and the docs function serve none)."""
    routed = {route.function_id for route in model.routes if route.function_id != DOCS_FUNCTION}
    return sorted(routed)


def function_resolver(model: StackModel, function_id: str) -> Any:
    """The resolver ``app`` of a function's handler module, imported with the function's code path."""
    spec = model.functions[function_id]
    for path in (str(spec.code_path), *(str(p) for p in spec.layer_paths)):
        if path not in sys.path:
            sys.path.append(path)
    module_name, _, _ = spec.handler.rpartition(".")
    return importlib.import_module(module_name).app


def merged_document(model: StackModel) -> dict[str, Any]:
    from aws_lambda_powertools.event_handler.openapi.merge import OpenAPIMerge
    from aws_lambda_powertools.event_handler.openapi.models import HTTPBearer, Tag

    from roomcast.api import openapi

    merge = OpenAPIMerge(
        title=openapi.TITLE,
        version=openapi.API_VERSION,
        summary=openapi.SUMMARY,
        description=openapi.DESCRIPTION,
        tags=[Tag(name=name, description=description) for name, description in openapi.TAGS],
        security_schemes={
            openapi.SECURITY_SCHEME: HTTPBearer(
                description="Authorization: Bearer <API key>", bearerFormat="rc_…"
            )
        },
        security=[{openapi.SECURITY_SCHEME: []}],
        on_conflict="error",
    )
    for function_id in api_functions(model):
        merge.add_schema(function_resolver(model, function_id).get_openapi_schema())
    document: dict[str, Any] = json.loads(merge.get_openapi_json_schema())
    add_links(document)
    # What a PUSH subscription's endpoint receives and may answer (roomcast.webhooks.contract).
    from roomcast.webhooks.contract import message_webhook, ping_webhook

    document["webhooks"] = {"message": message_webhook(), "ping": ping_webhook()}
    return document


def add_links(document: dict[str, Any]) -> None:
    """OpenAPI links by convention, across functions: the success answer of a create (201, 202)
    links to every operation on the new resource — its id from the answer (the field named like
    the path parameter, else ``id``), the other ids from the request's path."""
    operations = [(path, op) for path, ops in document["paths"].items() for op in ops.values()]
    for path, operation in operations:
        created = next(
            (operation["responses"][s] for s in ("201", "202") if s in operation["responses"]), None
        )
        if created is None:
            continue
        fields = _response_fields(document, created)
        for target_path, target in operations:
            parameters = _link_parameters(path, target_path, fields)
            if parameters is not None:
                link = {
                    "operationId": target["operationId"],
                    "parameters": parameters,
                    "description": target["summary"],
                }
                created.setdefault("links", {}).setdefault(target["operationId"], link)


def _response_fields(document: dict[str, Any], response: dict[str, Any]) -> set[str]:
    schema = response.get("content", {}).get("application/json", {}).get("schema", {})
    if "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rpartition("/")[2]]
    return set(schema.get("properties", {}))


def _link_parameters(path: str, target_path: str, fields: set[str]) -> dict[str, str] | None:
    """How ``target_path``'s parameters come from a create on ``path``; None when it is not under
    the created resource or needs an id neither gives."""
    if not target_path.startswith(f"{path}/{{"):
        return None
    created = target_path[len(path) + 2 :].partition("}")[0]
    parameters: dict[str, str] = {}
    for name in re.findall(r"{(\w+)}", target_path):
        if name == created:
            parameters[name] = f"$response.body#/{name if name in fields else 'id'}"
        elif f"{{{name}}}" in path:
            parameters[name] = f"$request.path.{name}"
        else:
            return None
    return parameters


def document_text(model: StackModel) -> str:
    """The merged document as the file holds it."""
    return json.dumps(merged_document(model), indent=2, sort_keys=False) + "\n"


def is_current(model: StackModel, path: Path = DOCUMENT_PATH) -> bool:
    return path.is_file() and path.read_text(encoding="utf-8") == document_text(model)


def write_document(model: StackModel, path: Path = DOCUMENT_PATH) -> Path:
    """Write the merged document (only when it changed, so a running stack's file is stable)."""
    text = document_text(model)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="write the merged OpenAPI document")
    parser.add_argument("--out", type=Path, default=DOCUMENT_PATH)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the file is stale")
    args = parser.parse_args(argv)
    model = read_stack("roomcast", "us-east-1", {}, lambda name: f"https://sqs.invalid/{name}")
    if args.check:
        if is_current(model, args.out):
            return 0
        print(f"stale: {args.out} (run make openapi)", file=sys.stderr)
        return 1
    print(f"wrote {write_document(model, args.out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

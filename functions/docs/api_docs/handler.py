"""Docs function: GET /openapi.json and GET /docs (Swagger UI), without an API key.

The OpenAPI document is not declared here: every API function documents its own routes, and the
build merges their resolvers' documents into ``openapi.json`` beside this module
(``python -m roomcast_dev.openapi``, run by ``make build`` and by the local stack;
docs/decisions/0015-one-home-per-route.md). This function only serves that file.
"""

from __future__ import annotations

from functools import cache
from http import HTTPStatus
from pathlib import Path
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.utilities.typing import LambdaContext

from roomcast.api.errors import error_response, install_error_handlers
from roomcast.observability import logger

DOCUMENT_PATH = Path(__file__).with_name("openapi.json")

app = APIGatewayHttpResolver()
install_error_handlers(app)


@cache
def openapi_json() -> str | None:
    """The merged document, or None when the build did not produce one."""
    try:
        return DOCUMENT_PATH.read_text(encoding="utf-8")
    except FileNotFoundError:
        logger.error("openapi.json was not built into this function", extra={"path": str(DOCUMENT_PATH)})
        return None


@cache
def swagger_html(document: str) -> str:
    from aws_lambda_powertools.event_handler.openapi import swagger_ui
    from aws_lambda_powertools.event_handler.openapi.swagger_ui import generate_swagger_html

    assets = Path(swagger_ui.__file__).parent
    return generate_swagger_html(
        document.replace("</", "<\\/"),
        (assets / "swagger-ui-bundle.min.js").read_text(encoding="utf-8"),
        (assets / "swagger-ui.min.css").read_text(encoding="utf-8"),
        None,  # type: ignore[arg-type]  # None inlines the bundled assets (no CDN)
        None,
        False,
    )


def _not_built() -> Response[Any]:
    return error_response(
        HTTPStatus.SERVICE_UNAVAILABLE,
        "document_not_built",
        "the API document was not built into this deployment: build with `make build`",
    )


@app.get("/openapi.json", include_in_schema=False)
def openapi_document() -> Response[Any]:
    document = openapi_json()
    if document is None:
        return _not_built()
    return Response(status_code=HTTPStatus.OK, content_type=content_types.APPLICATION_JSON, body=document)


@app.get("/docs", include_in_schema=False)
def swagger_ui() -> Response[Any]:
    document = openapi_json()
    if document is None:
        return _not_built()
    return Response(
        status_code=HTTPStatus.OK, content_type="text/html; charset=utf-8", body=swagger_html(document)
    )


def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return app.resolve(event, context)

"""The OpenAPI document and Swagger UI, built on first request only.

powertools' OpenAPI models cost ~30 ms to import, so the document is not configured at
cold start (enable_swagger would import them); it is generated once per container on demand.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver

TITLE = "roomcast"
API_VERSION = "1"
SUMMARY = "Rooms and subscriptions: signed webhooks and pull queues without running brokers."


@cache
def openapi_json(app: APIGatewayHttpResolver) -> str:
    from aws_lambda_powertools.event_handler.openapi.models import HTTPBearer

    from management_api.documented_routes import document_other_functions

    document_other_functions(app)
    return app.get_openapi_json_schema(
        title=TITLE,
        version=API_VERSION,
        summary=SUMMARY,
        security_schemes={"apiKey": HTTPBearer(description="Authorization: Bearer <API key>")},
        security=[{"apiKey": []}],
    )


@cache
def swagger_html(app: APIGatewayHttpResolver) -> str:
    from aws_lambda_powertools.event_handler.openapi import swagger_ui
    from aws_lambda_powertools.event_handler.openapi.swagger_ui import generate_swagger_html

    assets = Path(swagger_ui.__file__).parent
    return generate_swagger_html(
        openapi_json(app).replace("</", "<\\/"),
        (assets / "swagger-ui-bundle.min.js").read_text(encoding="utf-8"),
        (assets / "swagger-ui.min.css").read_text(encoding="utf-8"),
        None,  # type: ignore[arg-type]  # None inlines the bundled assets (no CDN)
        None,
        False,
    )

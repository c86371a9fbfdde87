"""Docs function: GET /openapi.json, GET /docs (Swagger UI) and GET /console (the operator console),
without an API key; and the origin's root, ``/`` (a redirect to the console), and ``/favicon.ico``
(the console's icon), which the gateway would otherwise answer 404 and 401.

The OpenAPI document is not declared here: every API function documents its own routes, and the
build merges their resolvers' documents into ``openapi.json`` beside this module
(``python -m roomcast_dev.openapi``: ``make openapi``, and the local stack on start; committed and
checked for drift, docs/decisions/0015-one-home-per-route.md and 0035-committed-build-inputs.md).
This function only serves that file.

The portal page, ``/portal/{sessionId}`` (docs/portal.md), is one more static page of that
directory, framed only by the origins its tenant lists (``portal_page``).
The console is the static files in ``console/`` beside this module (docs/console.md): a page, its
ES modules, one style sheet, an icon and the chart library it vendors (``console/vendor/``), served
under a strict Content-Security-Policy. They hold no secret: the page asks for an API key and calls
the API from the browser with it. ``/docs`` and ``/openapi.json`` share the console's origin, so they
get policies as strict as what they hold allows.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from http import HTTPStatus
from pathlib import Path
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver, Response, content_types
from aws_lambda_powertools.utilities.typing import LambdaContext

from api_docs import portal_page
from roomcast.api import error_response, install_error_handlers, with_nosniff
from roomcast.platform import logger

DOCUMENT_PATH = Path(__file__).with_name("openapi.json")
CONSOLE_DIRECTORY = Path(__file__).with_name("console")
CONSOLE_PAGE = "index.html"
PORTAL_PAGE = portal_page.PORTAL_PAGE  # served at /portal/{sessionId}
# The console's ES modules: the page loads console.js, which imports the others ("./api.js").
CONSOLE_MODULES = (
    "console.js",
    "api.js",
    "enums.js",  # generated from openapi.json (make sdk-models)
    "dom.js",
    "format.js",
    "feedback.js",
    "refresh.js",
    "header.js",
    "timeline.js",
    "forms.js",
    "filters.js",
    "router.js",
    "sign-in.js",
    "view-rooms.js",
    "view-room.js",
    "view-subscription.js",
    "view-subscription-panels.js",
    "view-message.js",
    "view-catalog.js",
    "view-event-type.js",
    "metrics.js",
    "charts.js",
    "health.js",
    "alerts.js",
    "view-access.js",
    "portal.js",  # the portal page's one module (it imports dom.js)
)
# Libraries vendored unchanged in console/vendor/<library>/ (with their LICENSE and where they came
# from), served under their own file name: /console/{asset} is one path segment.
CONSOLE_VENDORED = {
    "uPlot.esm.js": "vendor/uplot/uPlot.esm.js",  # uPlot 1.6.32, the charts (charts.js)
    "uPlot.min.css": "vendor/uplot/uPlot.min.css",
}
# The only files /console/{asset} serves: a name not listed is 404, so no path reaches other files.
CONSOLE_ASSETS = {
    **dict.fromkeys(CONSOLE_MODULES, "text/javascript; charset=utf-8"),
    "console.css": "text/css; charset=utf-8",
    "portal.css": "text/css; charset=utf-8",
    "favicon.svg": "image/svg+xml; charset=utf-8",  # the page's icon; /favicon.ico serves it too
    "uPlot.esm.js": "text/javascript; charset=utf-8",
    "uPlot.min.css": "text/css; charset=utf-8",
}
# Everything the page loads or calls is on its own origin; no inline script or style, no frames,
# no plugins, and no form is ever submitted by the browser itself (so a key typed into a form can
# never end up in a URL, whatever happens to the script).
CONSOLE_SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; "
        "frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    # Small files: the browser asks again each time and gets 304 while the ETag holds.
    "Cache-Control": "no-cache",
}

# What ``/`` redirects to (the console), and says in its body to a client that does not follow.
ROOT_LINKS = {"console": "/console", "docs": "/docs", "openapi": "/openapi.json"}
# /favicon.ico is the console's icon, kept a day: browsers ask for it on every page of the origin.
FAVICON = "favicon.svg"
FAVICON_CACHE_CONTROL = "public, max-age=86400"

# /openapi.json is a document, never a page: nothing in it may load or run, nor be framed.
DOCUMENT_SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}
# /docs is powertools' Swagger UI page: its bundle, its style sheet and the script that starts it
# are inline (nothing from a CDN), so its policy allows exactly those by hash (``docs_policy``) and
# otherwise says what the console's says. Swagger UI's icons are data: URLs in its style sheet;
# "Try it out" calls the API on this origin.
_INLINE = re.compile(r"<(script|style)>(.*?)</\1>", re.DOTALL)

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


@cache
def docs_policy(page: str) -> str:
    """The Content-Security-Policy of the Swagger UI ``page``: its own inline scripts and style
    sheet, by their SHA-256, and nothing else."""
    hashes: dict[str, list[str]] = {"script": [], "style": []}
    for tag, content in _INLINE.findall(page):
        digest = base64.b64encode(hashlib.sha256(content.encode("utf-8")).digest()).decode("ascii")
        hashes[tag].append(f"'sha256-{digest}'")
    return (
        f"default-src 'none'; script-src {' '.join(hashes['script'])}; "
        f"style-src {' '.join(hashes['style'])}; img-src 'self' data:; connect-src 'self'; "
        "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def _not_built() -> Response[Any]:
    return error_response(
        HTTPStatus.SERVICE_UNAVAILABLE,
        "document_not_built",
        "the API document was not built into this deployment: build with `make build`",
    )


@dataclass(frozen=True)
class StaticFile:
    body: str
    content_type: str
    etag: str


def console_path(name: str) -> Path:
    """Where a served console file is: beside the page, or a vendored library's in vendor/."""
    return CONSOLE_DIRECTORY / CONSOLE_VENDORED.get(name, name)


@cache
def console_file(name: str, content_type: str) -> StaticFile | None:
    try:
        body = console_path(name).read_text(encoding="utf-8")
    except FileNotFoundError:
        logger.error("a console file was not packaged with this function", extra={"file": name})
        return None
    etag = '"' + hashlib.sha256(body.encode("utf-8")).hexdigest()[:32] + '"'
    return StaticFile(body, content_type, etag)


def _serve_console_file(name: str, content_type: str, cache_control: str | None = None) -> Response[Any]:
    static = console_file(name, content_type)
    if static is None:
        return error_response(
            HTTPStatus.SERVICE_UNAVAILABLE,
            "console_not_packaged",
            f"the console's {name} is missing from this deployment: build with `make build`",
        )
    headers = {**CONSOLE_SECURITY_HEADERS, "ETag": static.etag}
    if cache_control is not None:
        headers["Cache-Control"] = cache_control
    if_none_match = app.current_event.headers.get("if-none-match") or ""
    if static.etag in (tag.strip() for tag in if_none_match.split(",")):
        return Response(status_code=HTTPStatus.NOT_MODIFIED, headers=headers, body="")
    return Response(
        status_code=HTTPStatus.OK, content_type=static.content_type, body=static.body, headers=headers
    )


@app.get("/console", include_in_schema=False)
def console_page() -> Response[Any]:
    return _serve_console_file(CONSOLE_PAGE, "text/html; charset=utf-8")


@app.get("/console/<asset>", include_in_schema=False)
def console_asset(asset: str) -> Response[Any]:
    content_type = CONSOLE_ASSETS.get(asset)
    if content_type is None:
        return error_response(HTTPStatus.NOT_FOUND, "not_found", "the console has no such file")
    return _serve_console_file(asset, content_type)


@app.get("/portal/<sessionId>", include_in_schema=False)
def portal(sessionId: str) -> Response[Any]:
    """The customers' portal page (docs/portal.md), framed only by its tenant's origins."""
    static = console_file(PORTAL_PAGE, "text/html; charset=utf-8")
    if static is None:
        return error_response(
            HTTPStatus.SERVICE_UNAVAILABLE,
            "console_not_packaged",
            "the portal page is missing: build with `make build`",
        )
    headers = portal_page.portal_headers(sessionId, CONSOLE_SECURITY_HEADERS)
    return Response(
        status_code=HTTPStatus.OK, content_type=static.content_type, body=static.body, headers=headers
    )


@app.get("/", include_in_schema=False)
def root() -> Response[Any]:
    """A person who opens the API's URL lands on the console; a client that does not follow
    redirects reads where the console and the reference are (a 302, not a 301: browsers keep a 301
    for good, and the root may serve something else one day)."""
    return Response(
        status_code=HTTPStatus.FOUND,
        content_type=content_types.APPLICATION_JSON,
        body=json.dumps(ROOT_LINKS),
        headers={**DOCUMENT_SECURITY_HEADERS, "Location": ROOT_LINKS["console"], "Cache-Control": "no-cache"},
    )


@app.get("/favicon.ico", include_in_schema=False)
def favicon() -> Response[Any]:
    """Browsers ask an origin for /favicon.ico on its pages that name no icon (/docs, the JSON
    answers): the console's SVG icon, which they read by its content type, whatever the name."""
    return _serve_console_file(FAVICON, CONSOLE_ASSETS[FAVICON], FAVICON_CACHE_CONTROL)


@app.get("/openapi.json", include_in_schema=False)
def openapi_document() -> Response[Any]:
    document = openapi_json()
    if document is None:
        return _not_built()
    return Response(
        status_code=HTTPStatus.OK,
        content_type=content_types.APPLICATION_JSON,
        body=document,
        headers=DOCUMENT_SECURITY_HEADERS,
    )


@app.get("/docs", include_in_schema=False)
def swagger_ui() -> Response[Any]:
    document = openapi_json()
    if document is None:
        return _not_built()
    page = swagger_html(document)
    headers = {
        **CONSOLE_SECURITY_HEADERS,
        "Content-Security-Policy": docs_policy(page),
        "Cache-Control": "no-cache",
    }
    return Response(
        status_code=HTTPStatus.OK, content_type="text/html; charset=utf-8", body=page, headers=headers
    )


def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return with_nosniff(app.resolve(event, context))

"""/docs and /openapi.json as the docs function serves them, on the console's origin: each under a
policy as strict as what it holds allows, never framed, never sniffed; and the origin's root, a
redirect to the console, and /favicon.ico, the console's icon. The browser test of /docs under its
policy is in tests/e2e/test_console.py."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api_docs import handler, portal_page
from tests.support import FakeLambdaContext, api_event

DOCUMENT = {"openapi": "3.1.0", "info": {"title": "roomcast", "version": "1"}, "paths": {}}


@pytest.fixture(autouse=True)
def built_document(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    path = tmp_path / "openapi.json"
    path.write_text(json.dumps(DOCUMENT), encoding="utf-8")
    monkeypatch.setattr(handler, "DOCUMENT_PATH", path)
    handler.openapi_json.cache_clear()
    yield
    handler.openapi_json.cache_clear()


def get(path: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    context: Any = FakeLambdaContext()
    response: dict[str, Any] = handler.lambda_handler(api_event("GET", path, headers=headers), context)
    return response


def _policy(headers: dict[str, str]) -> dict[str, str]:
    return dict(part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";"))


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def test_the_docs_page_runs_only_its_own_inline_scripts_and_style() -> None:
    # When
    response = get("/docs")

    # Then: the policy allows exactly the page's inline code, by hash, and loads nothing else
    assert response["statusCode"] == 200
    page = response["body"]
    scripts = re.findall(r"<script>(.*?)</script>", page, flags=re.DOTALL)
    styles = re.findall(r"<style>(.*?)</style>", page, flags=re.DOTALL)
    assert (len(scripts), len(styles)) == (2, 1)  # Swagger UI's bundle and its start; its style sheet
    assert ("<script src" in page, "<link" in page) == (False, False)  # nothing from a CDN
    policy = _policy(response["headers"])
    assert policy["script-src"].split() == [_sha256(script) for script in scripts]
    assert policy["style-src"].split() == [_sha256(style) for style in styles]
    assert policy["default-src"] == policy["object-src"] == policy["frame-ancestors"] == "'none'"
    assert policy["connect-src"] == "'self'"
    assert "unsafe" not in response["headers"]["Content-Security-Policy"]


@pytest.mark.parametrize("path", ["/docs", "/openapi.json"])
def test_docs_and_document_are_never_framed_or_sniffed(path: str) -> None:
    # When
    response = get(path)

    # Then
    headers = response["headers"]
    assert response["statusCode"] == 200
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert _policy(headers)["frame-ancestors"] == "'none'"


def test_the_document_may_load_and_run_nothing() -> None:
    # When
    response = get("/openapi.json")

    # Then
    assert json.loads(response["body"]) == DOCUMENT
    assert _policy(response["headers"])["default-src"] == "'none'"


@pytest.mark.parametrize("path", ["/console/nothing.js", "/nowhere"])
def test_the_docs_functions_errors_are_not_sniffed_either(path: str) -> None:
    # When
    response = get(path)

    # Then
    assert response["statusCode"] == 404
    assert response["headers"]["X-Content-Type-Options"] == "nosniff"


def test_the_root_sends_a_person_to_the_console_and_tells_a_client_where_things_are() -> None:
    # When: someone opens the API's URL itself
    response = get("/")

    # Then: a redirect to the console (302: a browser would keep a 301 for good), and a body that
    # names the console and the reference for a client that does not follow redirects
    assert response["statusCode"] == 302
    headers = response["headers"]
    assert headers["Location"] == "/console"
    assert headers["Content-Type"] == "application/json"
    assert json.loads(response["body"]) == {
        "console": "/console",
        "docs": "/docs",
        "openapi": "/openapi.json",
    }
    # under the document's headers: nothing in it may load or run, nor be framed or sniffed
    for name, value in handler.DOCUMENT_SECURITY_HEADERS.items():
        assert headers[name] == value, name


def test_favicon_ico_is_the_consoles_icon_kept_for_a_day() -> None:
    # Given
    icon = handler.CONSOLE_DIRECTORY / "favicon.svg"
    handler.console_file.cache_clear()

    # When: a browser asks the origin for its icon, then again with the ETag it got
    response = get("/favicon.ico")
    again = get("/favicon.ico", headers={"if-none-match": response["headers"]["ETag"]})

    # Then: the console's SVG (not a 401), under the console's headers, cached a day then revalidated
    assert response["statusCode"] == 200
    headers = response["headers"]
    assert headers["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert response["body"] == icon.read_text(encoding="utf-8")
    assert headers["Cache-Control"] == "public, max-age=86400"
    for name, value in handler.CONSOLE_SECURITY_HEADERS.items():
        if name != "Cache-Control":
            assert headers[name] == value, name
    assert (again["statusCode"], again["body"]) == (304, "")


class _Sessions:
    def __init__(self, tenant: str | None) -> None:
        self.tenant = tenant

    def get(self, tenant_id: str | None, session_id: str) -> Any:
        from roomcast.portal import PortalReach, PortalSession

        if self.tenant is None:
            return None
        return PortalSession(self.tenant, PortalReach(session_id, "acme", ("r",), None, False, 0), "")


class _Settings:
    def __init__(self, settings: Any) -> None:
        self.settings = settings

    def get(self, tenant_id: str) -> Any:
        return self.settings


SESSION = "ps_" + "a" * 32


def _portal(monkeypatch: pytest.MonkeyPatch, tenant: str | None, settings: Any) -> dict[str, Any]:
    monkeypatch.setattr(portal_page, "portal_store", lambda: (_Sessions(tenant), _Settings(settings)))
    return get(f"/portal/{SESSION}")


def test_the_portal_page_may_be_framed_only_by_its_tenants_origins(monkeypatch: pytest.MonkeyPatch) -> None:
    from roomcast.portal import PortalSettings

    # Given: a tenant that lists one origin and has a logo on a CDN
    settings = PortalSettings(
        "Acme", "https://cdn.example.com/a/logo.svg", "#0a7d5a", ("https://app.example.com",)
    )

    # When
    response = _portal(monkeypatch, "t", settings)

    # Then
    assert response["statusCode"] == 200
    assert "portal.js" in response["body"]
    policy = _policy(response["headers"])
    assert policy["frame-ancestors"] == "https://app.example.com"
    assert policy["img-src"] == "'self' https://cdn.example.com"
    assert policy["script-src"] == "'self'"
    assert "X-Frame-Options" not in response["headers"]


@pytest.mark.parametrize(
    ("tenant", "settings"),
    [(None, None), ("t", "defaults")],
)
def test_an_unknown_session_or_a_tenant_that_lists_no_origin_is_never_framed(
    monkeypatch: pytest.MonkeyPatch, tenant: str | None, settings: Any
) -> None:
    from roomcast.portal import DEFAULT_PORTAL_SETTINGS

    response = _portal(monkeypatch, tenant, DEFAULT_PORTAL_SETTINGS if settings else None)
    assert _policy(response["headers"])["frame-ancestors"] == "'none'"
    assert response["headers"]["X-Frame-Options"] == "DENY"


def test_a_logo_host_that_could_add_a_directive_is_left_out_of_the_policy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from roomcast.portal import PortalSettings

    settings = PortalSettings("Acme", "https://cdn.example.com;script-src:*/x.svg", "#0a7d5a", ())
    policy = _portal(monkeypatch, "t", settings)["headers"]["Content-Security-Policy"]
    assert "img-src 'self';" in policy
    assert "script-src 'self';" in policy

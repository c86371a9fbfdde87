"""The operator console's files as the docs function serves them: a fixed allow-list under a strict
policy, revalidated by ETag; the page loads no inline code and the script keeps the key out of
URLs and local storage. The browser tests are in tests/e2e/test_console.py."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from api_docs import handler
from roomcast_dev.template import read_stack
from tests.support import FakeLambdaContext, api_event

CONSOLE = Path(handler.__file__).with_name("console")


@pytest.fixture(autouse=True)
def fresh_files() -> Iterator[None]:
    handler.console_file.cache_clear()
    yield
    handler.console_file.cache_clear()


def get(path: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    context: Any = FakeLambdaContext()
    response: dict[str, Any] = handler.lambda_handler(api_event("GET", path, headers=headers), context)
    return response


def test_the_page_is_served_under_a_strict_policy() -> None:
    # When
    response = get("/console")

    # Then
    assert response["statusCode"] == 200
    headers = response["headers"]
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    policy = dict(part.strip().split(" ", 1) for part in headers["Content-Security-Policy"].split(";"))
    assert policy["default-src"] == policy["script-src"] == policy["style-src"] == "'self'"
    assert policy["connect-src"] == "'self'"
    assert policy["form-action"] == policy["object-src"] == policy["frame-ancestors"] == "'none'"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["Cache-Control"] == "no-cache"
    assert "<title>roomcast console</title>" in response["body"]


@pytest.mark.parametrize(
    ("asset", "content_type"),
    [
        ("console.js", "text/javascript; charset=utf-8"),
        ("console.css", "text/css; charset=utf-8"),
        ("favicon.svg", "image/svg+xml; charset=utf-8"),
    ],
)
def test_each_asset_is_served_with_its_type(asset: str, content_type: str) -> None:
    # When
    response = get(f"/console/{asset}")

    # Then
    assert response["statusCode"] == 200
    assert response["headers"]["Content-Type"] == content_type
    assert response["headers"]["X-Content-Type-Options"] == "nosniff"
    assert response["body"] == (CONSOLE / asset).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "asset", ["index.html", "..", "..%2Fhandler.py", "handler.py", "openapi.json", "CONSOLE.JS"]
)
def test_a_file_off_the_allow_list_is_not_found(asset: str) -> None:
    # When
    response = get(f"/console/{asset}")

    # Then
    assert response["statusCode"] == 404
    assert '"code":"not_found"' in response["body"].replace(" ", "")


def test_an_unchanged_file_is_not_sent_again() -> None:
    # Given
    etag = get("/console/console.js")["headers"]["ETag"]

    # When
    again = get("/console/console.js", headers={"if-none-match": etag})
    changed = get("/console/console.js", headers={"if-none-match": '"something-else"'})

    # Then
    assert (again["statusCode"], again["body"]) == (304, "")
    assert again["headers"]["ETag"] == etag
    assert changed["statusCode"] == 200


def test_a_deployment_without_the_files_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Given
    monkeypatch.setattr(handler, "CONSOLE_DIRECTORY", tmp_path)

    # When
    response = get("/console")

    # Then
    assert response["statusCode"] == 503
    assert "console_not_packaged" in response["body"]


def test_the_page_loads_only_allowed_files_and_no_inline_code() -> None:
    # Given
    page = (CONSOLE / "index.html").read_text(encoding="utf-8")

    # When
    loaded = re.findall(r'(?:src|href)="([^"#]+)"', page)
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", page, flags=re.DOTALL)

    # Then
    assert sorted(loaded) == sorted(f"console/{asset}" for asset in handler.CONSOLE_ASSETS)
    assert scripts == [""]  # the module, by src
    assert "<style" not in page
    assert not re.search(r"\s(style|on[a-z]+)=", page)


def test_the_script_keeps_the_key_in_session_storage_and_writes_no_html() -> None:
    # Given: the script without its comments
    script = re.sub(r"(?m)^\s*//.*$", "", (CONSOLE / "console.js").read_text(encoding="utf-8"))

    # Then
    assert "sessionStorage.setItem(KEY_STORAGE" in script
    assert "Authorization: `Bearer ${" in script
    for forbidden in (
        "localStorage",
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "eval(",
    ):
        assert forbidden not in script, forbidden


def test_the_template_routes_the_console_to_the_docs_function_without_a_key() -> None:
    # When
    stack = read_stack("roomcast-test", "us-east-1", {}, queue_url=lambda name: f"http://q/{name}")
    routes = {(route.method, route.path): route for route in stack.routes}

    # Then
    for path in ("/console", "/console/{asset}"):
        assert routes[("GET", path)].function_id == "DocsFunction"
        assert routes[("GET", path)].authorized is False

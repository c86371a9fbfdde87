"""The operator console's files as the docs function serves them: a fixed allow-list under a strict
policy, revalidated by ETag, that holds every ES module the page loads and nothing outside the
console's folder; the page loads no inline code and the scripts keep the key out of URLs and local
storage. The scripts in a browser: tests/unit/test_console_browser.py (every request answered by
the test) and tests/e2e/test_console.py (against the stack)."""

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
MODULES = sorted(path.name for path in CONSOLE.glob("*.js"))


def imports_of(module: str) -> list[str]:
    """What a console module imports, as written: `import ... from "./x.js"` and `import "./x.js"`
    (a vendored library imports nothing: test_a_vendored_library_is_served_unchanged_with_its_licence)."""
    if module in handler.CONSOLE_VENDORED:
        return []
    return re.findall(r'\b(?:from|import)\s*\(?\s*"([^"]+)"', (CONSOLE / module).read_text(encoding="utf-8"))


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
    "asset",
    [
        "index.html",
        "..",
        "..%2Fhandler.py",
        "handler.py",
        "__init__.py",
        "openapi.json",
        "CONSOLE.JS",
        "API.JS",
        "..%2Fconsole%2Fapi.js",
        "api",
    ],
)
def test_a_file_off_the_allow_list_is_not_found(asset: str) -> None:
    # When
    response = get(f"/console/{asset}")

    # Then
    assert response["statusCode"] == 404
    assert '"code":"not_found"' in response["body"].replace(" ", "")


@pytest.mark.parametrize("module", MODULES)
def test_every_console_module_is_served_as_javascript_under_the_page_policy(module: str) -> None:
    # When
    response = get(f"/console/{module}")

    # Then: a module is refused unless its type is JavaScript, and it gets the page's headers
    assert response["statusCode"] == 200
    headers = response["headers"]
    assert headers["Content-Type"] == "text/javascript; charset=utf-8"
    for name, value in handler.CONSOLE_SECURITY_HEADERS.items():
        assert headers[name] == value, name
    assert response["body"] == (CONSOLE / module).read_text(encoding="utf-8")


def test_the_allow_list_is_the_console_folder_and_nothing_outside_it() -> None:
    # Given: every file in the folder but the pages, which /console and /portal/{sessionId} serve
    files = {path.name for path in CONSOLE.iterdir() if path.is_file()} - {
        handler.CONSOLE_PAGE,
        handler.PORTAL_PAGE,
    }

    # Then: each listed name is a plain file name in the folder, or a vendored library's file in
    # vendor/, and each file of the folder is listed
    assert set(handler.CONSOLE_ASSETS) == files | set(handler.CONSOLE_VENDORED)
    for asset in handler.CONSOLE_ASSETS:
        path = handler.console_path(asset).resolve()
        assert path.is_file(), asset
        if asset in handler.CONSOLE_VENDORED:
            assert path.parent.parent == (CONSOLE / "vendor").resolve(), asset
            assert path.name == asset
        else:
            assert path.parent == CONSOLE.resolve(), asset
    assert set(handler.CONSOLE_MODULES) == set(MODULES)


@pytest.mark.parametrize("asset", sorted(handler.CONSOLE_VENDORED))
def test_a_vendored_library_is_served_unchanged_with_its_licence(asset: str) -> None:
    # Given
    path = handler.console_path(asset)

    # When
    response = get(f"/console/{asset}")

    # Then: as it is in vendor/, under the page's headers, beside its licence and where it came from
    assert response["statusCode"] == 200
    assert response["body"] == path.read_text(encoding="utf-8")
    for name, value in handler.CONSOLE_SECURITY_HEADERS.items():
        assert response["headers"][name] == value, name
    assert (path.parent / "LICENSE").read_text(encoding="utf-8").startswith("The MIT License")
    readme = (path.parent / "README.md").read_text(encoding="utf-8")
    assert "npm pack uplot@1.6.32" in readme
    assert asset in readme
    # and a module of it loads nothing else (the policy would refuse another origin anyway)
    assert not re.search(r"^\s*import\b", response["body"], flags=re.MULTILINE)


@pytest.mark.parametrize("module", MODULES)
def test_a_module_imports_only_served_modules_beside_it(module: str) -> None:
    # When
    imported = imports_of(module)

    # Then: "./x.js" resolves beside the importer, under /console/, which serves x.js
    for specifier in imported:
        folder, _, name = specifier.rpartition("/")
        assert folder == ".", specifier
        assert handler.CONSOLE_ASSETS.get(name) == "text/javascript; charset=utf-8", specifier


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


def _loaded_by(page_name: str) -> tuple[list[str], str]:
    """What a page loads (``console/<file>``), its modules' imports followed, and the page."""
    page = (CONSOLE / page_name).read_text(encoding="utf-8")
    loaded = [file.removeprefix("../") for file in re.findall(r'(?:src|href)="([^"#]+)"', page)]
    pending = [file.removeprefix("console/") for file in loaded if file.endswith(".js")]
    while pending:
        for specifier in imports_of(pending.pop()):
            if f"console/{specifier[2:]}" not in loaded:
                loaded.append(f"console/{specifier[2:]}")
                pending.append(specifier[2:])
    return loaded, page


@pytest.mark.parametrize("page_name", [handler.CONSOLE_PAGE, handler.PORTAL_PAGE])
def test_the_pages_load_only_allowed_files_and_no_inline_code(page_name: str) -> None:
    # When: what the page loads, and what its modules import, one after the other
    loaded, page = _loaded_by(page_name)
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", page, flags=re.DOTALL)

    # Then
    assert set(loaded) <= {f"console/{asset}" for asset in handler.CONSOLE_ASSETS}
    assert scripts == [""]  # the module, by src
    assert "<style" not in page
    assert not re.search(r"\s(style|on[a-z]+)=", page)


def test_every_served_file_is_loaded_by_one_of_the_pages() -> None:
    loaded = {file for page in (handler.CONSOLE_PAGE, handler.PORTAL_PAGE) for file in _loaded_by(page)[0]}
    assert sorted(loaded) == sorted(f"console/{asset}" for asset in handler.CONSOLE_ASSETS)


def test_the_scripts_keep_the_key_in_session_storage_and_write_no_html() -> None:
    # Given: every module without its comments
    script = "\n".join(
        re.sub(r"(?m)^\s*//.*$", "", (CONSOLE / module).read_text(encoding="utf-8")) for module in MODULES
    )

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


def test_the_console_manual_names_every_file_of_the_console() -> None:
    # Given: the table of docs/console.md's "Files"
    manual = (Path(__file__).resolve().parents[2] / "docs" / "console.md").read_text(encoding="utf-8")
    files_section = manual.split("\n## Files\n", 1)[1].split("\n## ", 1)[0]

    # When
    named = set(re.findall(r"^\| ([^|]+) \|", files_section, flags=re.MULTILINE))
    named_files = {name for cell in named for name in re.findall(r"`([\w.-]+\.\w+)`", cell)}

    # Then: a module added, renamed or removed is said there too (and each vendored file served)
    assert named_files == {path.name for path in CONSOLE.iterdir() if path.is_file()} | set(
        handler.CONSOLE_VENDORED
    )

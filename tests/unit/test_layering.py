"""The shape of the shared layer (docs/architecture.md, "Capabilities"; docs/decisions/0045): one
package per capability, in an order — a capability uses only those below it — and through their
entry points only (the names its ``__init__`` declares), never their insides; the functions use the
layer only through entry points, and never each other; no port module imports an adapter; a
capability's rules import nothing of AWS; and no production module is longer than 300 lines
(issue 23: one idea per module)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from roomcast.platform.entry_points import declared_entry_points

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "layers" / "shared"
PACKAGE = LAYER / "roomcast"
FUNCTIONS = ROOT / "functions"
# Lowest first: a capability may use those before it, never those after it.
CAPABILITIES = [
    "platform",
    "filters",
    "event_types",
    "transformations",
    "destinations",
    "catalog",
    "webhooks",
    "messages",
    "pull",
    "log",
    "flow",
    "deliver_at",
    "outbox",
    "dead_letters",
    "ordering",
    "operations",
    "endings",
    "publishing",
    "jobs",
    "metrics",
    "alerts",
    "portal",
    "access",
    "keys",
    "api",
    "wiring",  # the top: what puts the capabilities together for the functions
]
AWS_PACKAGES = ("boto3", "botocore", "mypy_boto3")
# A capability's rules: pure, whatever the capability (its model, its rules, its policy).
RULE_MODULES = ("model.py", "rules.py", "policy.py")
MAX_MODULE_LINES = 300
# Production code (the tests are not production code; generated files are not committed).
PRODUCTION = ("layers", "functions", "tools", "bench", "glue_jobs", "clients")
SOURCE_SUFFIXES = (".py", ".js", ".css", ".html")


def _imports(path: Path) -> Iterator[tuple[str, list[str]]]:
    """Every roomcast import of a module, anywhere in it: (module, names imported from it)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module, [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            yield from ((alias.name, []) for alias in node.names)


def _capability(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "roomcast" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in CAPABILITIES else None


def _layer_module(path: Path) -> str:
    return ".".join(path.relative_to(LAYER).with_suffix("").parts).removesuffix(".__init__")


def _layer_modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "__init__.py")


@cache
def _entry_points(capability: str) -> frozenset[str]:
    return frozenset(declared_entry_points(PACKAGE / capability / "__init__.py", f"roomcast.{capability}"))


def _wrong_uses(path: Path, own: str | None) -> list[str]:
    """What a module takes from another capability other than through its entry points (a
    package's ``__init__`` takes the entry points' mechanism itself)."""
    wrong = []
    for module, names in _imports(path):
        capability = _capability(module)
        if capability is None or capability == own or capability == "wiring":
            continue
        if path.name == "__init__.py" and module == "roomcast.platform.entry_points":
            continue
        if module != f"roomcast.{capability}":
            wrong.append(f"{module} (an inside of {capability})")
        wrong += [f"{module}.{n}" for n in names if n not in _entry_points(capability)]
    return wrong


def test_every_package_of_the_layer_is_a_capability_in_the_order() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages == set(CAPABILITIES) - {"wiring"}
    assert {p.stem for p in PACKAGE.glob("*.py")} == {"__init__", "wiring"}


@pytest.mark.parametrize("path", _layer_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_capability_uses_only_the_capabilities_below_it(path: Path) -> None:
    own = _capability(_layer_module(path))
    assert own is not None
    upward = [
        m
        for m, _ in _imports(path)
        if (c := _capability(m)) is not None and CAPABILITIES.index(c) > CAPABILITIES.index(own)
    ]
    assert upward == [], f"{own} uses capabilities above it"


@pytest.mark.parametrize("path", _layer_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_capability_uses_another_only_through_its_entry_points(path: Path) -> None:
    assert _wrong_uses(path, _capability(_layer_module(path))) == []


def _function_packages() -> set[str]:
    return {p.parent.name for p in FUNCTIONS.glob("*/*/__init__.py")}


@pytest.mark.parametrize(
    "path", sorted(FUNCTIONS.glob("*/*/**/*.py")), ids=lambda p: str(p.relative_to(FUNCTIONS))
)
def test_the_functions_use_the_layer_only_through_entry_points_and_never_each_other(path: Path) -> None:
    own = path.relative_to(FUNCTIONS).parts[1]
    others = [m for m, _ in _imports(path) if m.split(".")[0] in _function_packages() - {own}]
    assert others == [], "a function imports another function's code"
    assert _wrong_uses(path, None) == []


@cache
def _adapters() -> frozenset[str]:
    """Layer modules that talk to AWS: they import boto3, botocore or their types, or the clients'
    or the table's access (a package's ``__init__`` only declares: it is none)."""
    found = set()
    for path in _layer_modules():
        if path.name == "__init__.py":
            continue
        imported = list(_imported_modules(path))
        if any(m.split(".")[0].startswith(AWS_PACKAGES) for m in imported) or any(
            m in ("roomcast.platform.aws", "roomcast.platform.table") for m in imported
        ):
            found.add(_layer_module(path))
    return frozenset(found)


def _imported_modules(path: Path) -> Iterator[str]:
    """The modules a module imports, an entry point resolved to the module that holds it."""
    for module, names in _imports(path):
        capability = _capability(module)
        if capability is None or capability == "wiring" or module != f"roomcast.{capability}":
            yield module
            continue
        declared = declared_entry_points(PACKAGE / capability / "__init__.py", module)
        yield from (declared[n][0] if n in declared else module for n in names)


@pytest.mark.parametrize("path", sorted(PACKAGE.glob("*/ports.py")), ids=lambda p: p.parent.name)
def test_no_port_imports_an_adapter(path: Path) -> None:
    assert [m for m in _imported_modules(path) if m in _adapters()] == []
    assert _layer_module(path) not in _adapters()


@pytest.mark.parametrize(
    "path",
    sorted(p for name in RULE_MODULES for p in PACKAGE.glob(f"*/{name}"))
    + sorted((PACKAGE / "filters").glob("*.py")),
    ids=lambda p: str(p.relative_to(PACKAGE)),
)
def test_a_capabilitys_rules_import_nothing_of_aws(path: Path) -> None:
    assert [m for m, _ in _imports(path) if m.split(".")[0].startswith(AWS_PACKAGES)] == []


@pytest.mark.parametrize("capability", CAPABILITIES[:-1])
def test_every_entry_point_a_package_declares_exists(capability: str) -> None:
    package = f"roomcast.{capability}"
    declared = declared_entry_points(PACKAGE / capability / "__init__.py", package)
    for name, (module, attribute) in declared.items():
        assert (PACKAGE / capability / f"{module.rsplit('.', 1)[-1]}.py").exists(), name
        if attribute is not None:
            assert hasattr(__import__(module, fromlist=[attribute]), attribute), f"{package}.{name}"


def test_no_production_module_is_longer_than_300_lines() -> None:
    # Given: every source file of production code
    sources = [
        p
        for folder in PRODUCTION
        for p in (ROOT / folder).rglob("*")
        if p.suffix in SOURCE_SUFFIXES
        and p.is_file()
        and ".aws-sam" not in p.parts
        and "build" not in p.parts
        and "_generated" not in p.parts
        and "vendor" not in p.parts  # third-party code vendored unchanged (the console's uPlot)
    ]

    # When
    long = {
        str(p.relative_to(ROOT)): n
        for p in sources
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }

    # Then
    assert sources
    assert long == {}

"""The floors of the code (docs/architecture.md, "Floors"): a module imports only from its own floor
or a lower one, the functions never from each other, and the domain nothing of AWS; and no
production module is longer than 300 lines (issue 23: one idea per module)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYER = ROOT / "layers" / "shared"
FUNCTIONS = ROOT / "functions"
# Lowest first. A module's floor is its package's (roomcast.<package>, or the function's package).
FLOORS: dict[str, int] = {
    "roomcast": 0,
    "roomcast.platform.errors": 0,
    "roomcast.domain": 1,
    "roomcast.platform.config": 2,
    "roomcast.platform.credentials": 2,
    "roomcast.platform.observability": 2,
    "roomcast.dal": 3,
    "roomcast.webhooks": 4,
    "roomcast.delivery": 4,
    "roomcast.api": 4,
}
FUNCTION_FLOOR = 5
AWS_PACKAGES = ("boto3", "botocore", "mypy_boto3")
MAX_MODULE_LINES = 300
# Production code (the tests are not production code; generated files are not committed).
PRODUCTION = ("layers", "functions", "tools", "bench", "glue_jobs", "clients")
SOURCE_SUFFIXES = (".py", ".js", ".css", ".html")


def _function_packages() -> set[str]:
    return {p.parent.name for p in FUNCTIONS.glob("*/*/__init__.py")}


def _floor(module: str) -> int | None:
    """The floor of a module roomcast owns (None for a third-party one)."""
    parts = module.split(".")
    if parts[0] in _function_packages():
        return FUNCTION_FLOOR
    return FLOORS.get(".".join(parts[:2]))


def _imports(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def _module_name(path: Path) -> str:
    base = LAYER if path.is_relative_to(LAYER) else path.parents[len(path.relative_to(FUNCTIONS).parts) - 2]
    return ".".join(path.relative_to(base).with_suffix("").parts).removesuffix(".__init__")


def _modules() -> list[Path]:
    return sorted([*LAYER.rglob("*.py"), *FUNCTIONS.glob("*/*/**/*.py")])


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_module_imports_only_from_its_floor_or_below(path: Path) -> None:
    # Given
    module = _module_name(path)
    floor = _floor(module)
    assert floor is not None, f"{module} has no floor: add its package to FLOORS"

    # When
    upward = [i for i in _imports(path) if (f := _floor(i)) is not None and f > floor]
    across = [
        i
        for i in _imports(path)
        if floor == FUNCTION_FLOOR and _floor(i) == FUNCTION_FLOOR and i.split(".")[0] != module.split(".")[0]
    ]

    # Then
    assert upward == [], f"{module} (floor {floor}) imports from a higher floor"
    assert across == [], f"{module} imports another function's code"


@pytest.mark.parametrize("path", sorted((LAYER / "roomcast" / "domain").rglob("*.py")), ids=lambda p: p.name)
def test_the_domain_imports_nothing_of_aws(path: Path) -> None:
    assert [i for i in _imports(path) if i.split(".")[0] in AWS_PACKAGES] == []


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

"""A capability package's entry points, imported when first used (docs/decisions/0045-capability-packages.md).

A package's ``__init__`` names its entry points once, as the imports of an ``if TYPE_CHECKING:``
block (``from roomcast.catalog.model import Room as Room``), and ends with
``__getattr__ = lazy_entry_points(__name__, __file__)`` (outside that block, so that type checkers
still see only the names it declares). At run time the first use of a name imports the module that
holds it — nothing more: a function's cold start imports only what it touches (ADR 0008), and
importing one package never pulls in the AWS clients of another.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path


def declared_entry_points(init_file: str | Path, package: str) -> dict[str, tuple[str, str | None]]:
    """What a package's ``__init__`` declares in its ``if TYPE_CHECKING:`` blocks: each exported
    name → (module, attribute), the attribute None for a submodule the package exports."""
    tree = ast.parse(Path(init_file).read_text(encoding="utf-8"))
    declared: dict[str, tuple[str, str | None]] = {}
    for node in tree.body:
        if not (
            isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        ):
            continue
        for statement in node.body:
            if isinstance(statement, ast.ImportFrom) and statement.module:
                for alias in statement.names:
                    name = alias.asname or alias.name
                    if statement.module == package:
                        declared[name] = (f"{package}.{alias.name}", None)
                    else:
                        declared[name] = (statement.module, alias.name)
    return declared


def lazy_entry_points(package: str, init_file: str) -> Callable[[str], object]:
    """The ``__getattr__`` of a package whose entry points are declared as described above."""
    table: dict[str, tuple[str, str | None]] = {}

    def __getattr__(name: str) -> object:  # noqa: N807 - the module protocol's own name
        if not table:
            table.update(declared_entry_points(init_file, package))
        found = table.get(name)
        if found is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = found
        loaded = importlib.import_module(module)
        value = loaded if attribute is None else getattr(loaded, attribute)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__

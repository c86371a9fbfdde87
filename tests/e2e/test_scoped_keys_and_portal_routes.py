"""Every route the API functions declare, as (method, OpenAPI path): the security walk's table."""

from __future__ import annotations

import json
from pathlib import Path

DOCUMENT = Path(__file__).resolve().parents[2] / "functions" / "docs" / "api_docs" / "openapi.json"


def declared_routes() -> list[tuple[str, str]]:
    """Every operation of the published document (the merged route tables of every function)."""
    document = json.loads(DOCUMENT.read_text(encoding="utf-8"))
    return sorted(
        (method.upper(), path) for path, operations in document["paths"].items() for method in operations
    )

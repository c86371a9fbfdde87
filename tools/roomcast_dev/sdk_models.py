"""The clients' share of the API's contract, generated from its OpenAPI document.

``functions/docs/api_docs/openapi.json`` (``make openapi``) is the one description of what the API
answers. From it this writes what the clients would otherwise restate by hand
(docs/decisions/0044-generated-sdk-models.md):

- the Python SDK's pydantic models of every answer and of the webhook body,
  ``clients/python/src/roomcast_client/_generated/models.py``: datamodel-code-generator, run with
  fixed options (``GENERATOR_OPTIONS``) on the document as the SDK reads it
  (``roomcast_dev.contract_reading``), its output formatted by the project's ruff;
- the API's enumerations (delivery statuses, subscription types, ...), ``roomcast_dev.contract_enums``:
  tuples and ``StrEnum``s for the SDK (``_generated/enums.py``) and the CLI
  (``roomcast_cli/_enums.py``), frozen arrays of an ES module for the console
  (``functions/docs/api_docs/console/enums.js``).

Nothing in them depends on the time or the machine: the same document, generator and ruff (both
pinned in uv.lock) make the same bytes. They are committed and checked for drift like openapi.json
(docs/decisions/0035-committed-build-inputs.md): ``make template-inputs`` and
tests/unit/test_generated_clients.py fail while one is stale.

    python -m roomcast_dev.sdk_models           # rewrite the files that changed (make sdk-models)
    python -m roomcast_dev.sdk_models --check   # exit 1 when one is stale (make template-inputs)
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

from roomcast_dev.contract_enums import generated_notice, javascript_enums, python_enums
from roomcast_dev.contract_reading import SDK_NAMES, sdk_document

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DOCUMENT_PATH = PROJECT_ROOT / "functions" / "docs" / "api_docs" / "openapi.json"
GENERATED_DIR = PROJECT_ROOT / "clients" / "python" / "src" / "roomcast_client" / "_generated"
SDK_GENERATED_INIT = GENERATED_DIR / "__init__.py"
SDK_MODELS = GENERATED_DIR / "models.py"
SDK_ENUMS = GENERATED_DIR / "enums.py"
CLI_ENUMS = PROJECT_ROOT / "clients" / "cli" / "src" / "roomcast_cli" / "_enums.py"
CONSOLE_ENUMS = PROJECT_ROOT / "functions" / "docs" / "api_docs" / "console" / "enums.js"

GENERATOR = "datamodel-code-generator"
GENERATOR_OPTIONS = (
    "--input-file-type=openapi",
    "--openapi-scopes=schemas",
    "--output-model-type=pydantic_v2.BaseModel",
    "--target-python-version=3.11",  # the SDK's requires-python
    "--target-pydantic-version=2",  # the SDK takes pydantic 2.6 and later
    # The SDK's reading of the API's JSON (camelCase aliases, unknown fields kept): hand-written,
    # and holds no field.
    "--base-class=roomcast_client._api_model.ApiModel",
    "--snake-case-field",
    "--strict-nullable",  # a default is not a null: `ordered: bool = False`
    "--enum-field-as-literal=all",
    "--use-annotated",
    "--use-standard-collections",
    "--use-union-operator",
    "--keep-model-order",
    "--disable-timestamp",
    "--no-formatters",  # the project's ruff formats it (``_formatted``)
    f"--model-name-map={json.dumps(SDK_NAMES, sort_keys=True)}",
)


def _header() -> str:
    return (
        generated_notice()
        + f"# {GENERATOR} {version(GENERATOR)}, options in roomcast_dev.sdk_models.GENERATOR_OPTIONS.\n"
        + '"""The roomcast API\'s answers and webhook body as pydantic models, generated from its OpenAPI\n'
        + "document (docs/decisions/0044-generated-sdk-models.md). roomcast_client.models exports them\n"
        + 'under the SDK\'s names; the SDK\'s own code adds behaviour only."""'
    )


def generated_models(document: dict[str, Any]) -> str:
    """The SDK's models, as datamodel-code-generator writes them and ruff formats them."""
    done = subprocess.run(  # noqa: S603 - the venv's own generator, fixed arguments
        [
            sys.executable,
            "-m",
            "datamodel_code_generator",
            *GENERATOR_OPTIONS,
            f"--custom-file-header={_header()}",
        ],
        input=json.dumps(sdk_document(document), indent=1),
        capture_output=True,
        text=True,
        check=False,
        cwd=PROJECT_ROOT,
        timeout=300,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{GENERATOR} failed ({done.returncode}):\n{done.stderr}")
    return _formatted(done.stdout, SDK_MODELS)


def _formatted(source: str, path: Path) -> str:
    """``source`` as ruff leaves it at ``path`` (imports sorted and upgraded, then formatted),
    with the settings of the pyproject.toml that governs that path."""
    for step in (["check", "--fix-only", "--select=I,UP,F401", "--exit-zero"], ["format"]):
        done = subprocess.run(  # noqa: S603 - the venv's own ruff, fixed arguments
            [sys.executable, "-m", "ruff", *step, f"--stdin-filename={path}", "-"],
            input=source,
            capture_output=True,
            text=True,
            check=False,
            cwd=PROJECT_ROOT,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"ruff {step[0]} failed on {path}:\n{done.stderr}")
        source = done.stdout
    return source


_GENERATED_INIT = (
    generated_notice()
    + '"""Code generated from the API\'s OpenAPI document: ``models`` (datamodel-code-generator) and\n'
    + '``enums`` (docs/decisions/0044-generated-sdk-models.md)."""\n'
)


def outputs(document_path: Path = DOCUMENT_PATH) -> dict[Path, str]:
    """Every generated file and what it holds, made from the document at ``document_path``."""
    document = json.loads(document_path.read_text(encoding="utf-8"))
    return {
        SDK_GENERATED_INIT: _GENERATED_INIT,
        SDK_MODELS: generated_models(document),
        SDK_ENUMS: _formatted(python_enums(document, "the SDK"), SDK_ENUMS),
        CLI_ENUMS: _formatted(python_enums(document, "the CLI"), CLI_ENUMS),
        CONSOLE_ENUMS: javascript_enums(document),
    }


def stale(files: dict[Path, str]) -> list[Path]:
    """The files whose content on disk is not ``files``' (missing ones included)."""
    return [
        path for path, text in files.items() if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if a file is stale")
    args = parser.parse_args(argv)
    files = outputs()
    changed = stale(files)
    if args.check:
        for path in changed:
            print(f"stale: {path.relative_to(PROJECT_ROOT)} (run make sdk-models)", file=sys.stderr)
        return 1 if changed else 0
    for path in changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(files[path], encoding="utf-8")
        print(f"wrote {path.relative_to(PROJECT_ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

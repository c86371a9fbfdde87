"""Cold start: the import time of each function's handler module next to a bare ``import boto3``.

Each sample is a fresh interpreter (nothing cached in memory), timed from inside the process
around the import alone, so interpreter start-up is not counted on either side. The functions
import with their template environment, as on Lambda. Target: every handler <= 1.5 x boto3.

The handlers import boto3 on first use (docs/decisions/0008-cold-start.md), so the first request
still pays for it; the second table shows that total — handler import, then boto3 and one client —
next to ``import boto3`` plus one client, so the deferral is visible rather than hidden.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
from dataclasses import dataclass

from roomcast_dev.template import read_stack

TARGET_RATIO = 1.5
_TIMER = (
    "import time, importlib, sys\n"
    "start = time.perf_counter()\n"
    "importlib.import_module(sys.argv[1])\n"
    "imported = time.perf_counter()\n"
    "import boto3\n"
    "boto3.client('dynamodb')\n"
    "print(imported - start, time.perf_counter() - start)\n"
)


@dataclass(frozen=True)
class ColdStart:
    name: str
    module: str
    import_ms: float
    with_client_ms: float
    # ``import boto3`` (+ one client) sampled in turn with this function's import, so both saw the
    # same machine: this VM's speed drifts by a third within minutes.
    boto3_import_ms: float
    boto3_with_client_ms: float


@dataclass(frozen=True)
class FunctionImport:
    """How Lambda imports a function's handler: its module, its code and layers on the path, the
    template's environment."""

    name: str
    module: str
    python_path: list[str]
    environment: dict[str, str]


def function_imports() -> list[FunctionImport]:
    """Every function of the template, as Lambda would import it."""
    model = read_stack("roomcast-bench", "us-east-1", {}, lambda name: f"https://sqs.local/{name}")
    return [
        FunctionImport(
            spec.logical_id,
            spec.handler.rpartition(".")[0],
            [str(spec.code_path), *(str(p) for p in spec.layer_paths)],
            {**spec.environment, **BASE_ENVIRONMENT},
        )
        for spec in model.functions.values()
    ]


def run_fresh(script: str, module: str, python_path: list[str], environment: dict[str, str]) -> str:
    """``script`` run in a fresh interpreter with ``module`` as its argument; its last output line."""
    env = {**os.environ, **environment, "PYTHONPATH": os.pathsep.join(python_path)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    completed = subprocess.run(
        [sys.executable, "-c", script, module], env=env, capture_output=True, text=True, check=False
    )
    if completed.returncode != 0:
        raise RuntimeError(f"importing {module} failed:\n{completed.stderr}")
    return completed.stdout.strip().splitlines()[-1]


def _sample(module: str, python_path: list[str], environment: dict[str, str]) -> tuple[float, float]:
    imported, total = run_fresh(_TIMER, module, python_path, environment).split()
    return float(imported), float(total)


def _measure(function: FunctionImport, samples: int) -> ColdStart:
    """``samples`` fresh interpreters importing the handler, each right after one importing boto3."""
    handler = (function.module, function.python_path, function.environment)
    _sample(*handler)  # warm the bytecode cache, as a deployed package has it
    runs, references = [], []
    for _ in range(samples):
        references.append(_sample("boto3", [], BASE_ENVIRONMENT))
        runs.append(_sample(*handler))
    return ColdStart(
        function.name,
        function.module,
        statistics.median(r[0] for r in runs) * 1000,
        statistics.median(r[1] for r in runs) * 1000,
        statistics.median(r[0] for r in references) * 1000,
        statistics.median(r[1] for r in references) * 1000,
    )


BASE_ENVIRONMENT = {"AWS_DEFAULT_REGION": "us-east-1", "POWERTOOLS_TRACE_DISABLED": "true"}


def measure(samples: int = 15) -> list[ColdStart]:
    """Every function's handler import, each next to ``import boto3`` sampled in turn with it."""
    return [_measure(function, samples) for function in function_imports()]


def report(results: list[ColdStart]) -> bool:
    print("\n## Cold start: handler module import vs `import boto3` (median of fresh interpreters)\n")
    print("(`import boto3` is sampled in turn with each function's import: each row has its own)\n")
    header = f"{'function':<22} {'module':<24} {'import ms':>9} {'boto3 ms':>9} {'x boto3':>8}"
    print(f"{header}   target <= {TARGET_RATIO}x")
    ok = True
    for result in results:
        ratio = result.import_ms / result.boto3_import_ms
        ok = ok and ratio <= TARGET_RATIO
        verdict = "ok" if ratio <= TARGET_RATIO else "OVER TARGET"
        print(
            f"{result.name:<22} {result.module:<24} {result.import_ms:>9.1f}"
            f" {result.boto3_import_ms:>9.1f} {ratio:>8.2f}   {verdict}"
        )
    print("\nFirst request's set-up: handler import + import boto3 + one client, vs boto3 + one client")
    for result in results:
        ratio = result.with_client_ms / result.boto3_with_client_ms
        print(
            f"{result.name:<22} {result.module:<24} {result.with_client_ms:>9.1f}"
            f" {result.boto3_with_client_ms:>9.1f} {ratio:>8.2f}"
        )
    return ok

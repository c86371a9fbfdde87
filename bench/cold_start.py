"""Cold start: the import time of each function's handler module next to a bare ``import boto3``.

Each sample is a fresh interpreter (nothing cached in memory), timed from inside the process
around the import alone, so interpreter start-up is not counted on either side. The functions
import with their template environment, as on Lambda. Target: every handler ≤ 1.5x boto3.
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
    "print(time.perf_counter() - start)\n"
)


@dataclass(frozen=True)
class ColdStart:
    name: str
    module: str
    median_ms: float
    ratio: float | None = None


def _import_seconds(module: str, python_path: list[str], environment: dict[str, str]) -> float:
    env = {**os.environ, **environment, "PYTHONPATH": os.pathsep.join(python_path)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    completed = subprocess.run(
        [sys.executable, "-c", _TIMER, module], env=env, capture_output=True, text=True, check=False
    )
    if completed.returncode != 0:
        raise RuntimeError(f"importing {module} failed:\n{completed.stderr}")
    return float(completed.stdout.strip().splitlines()[-1])


def _median_ms(module: str, python_path: list[str], environment: dict[str, str], samples: int) -> float:
    _import_seconds(module, python_path, environment)  # warm the bytecode cache, as a deployed package has it
    # Interleaving is done by the caller; here: plain repeated fresh processes.
    return statistics.median(_import_seconds(module, python_path, environment) for _ in range(samples)) * 1000


def measure(samples: int = 15) -> list[ColdStart]:
    model = read_stack("roomcast-bench", "us-east-1", {}, lambda name: f"https://sqs.local/{name}")
    reference = ColdStart("import boto3", "boto3", _median_ms("boto3", [], {}, samples))
    results = [reference]
    for spec in model.functions.values():
        module = spec.handler.rpartition(".")[0]
        python_path = [str(spec.code_path), *(str(p) for p in spec.layer_paths)]
        environment = {
            **spec.environment,
            "AWS_DEFAULT_REGION": "us-east-1",
            "POWERTOOLS_TRACE_DISABLED": "true",
        }
        median = _median_ms(module, python_path, environment, samples)
        results.append(ColdStart(spec.logical_id, module, median, median / reference.median_ms))
    return results


def report(results: list[ColdStart]) -> bool:
    print("\n## Cold start: handler module import vs `import boto3` (median of fresh interpreters)\n")
    print(f"{'function':<24} {'module':<34} {'import ms':>10} {'x boto3':>8}  target <= {TARGET_RATIO}x")
    ok = True
    for result in results:
        ratio = "" if result.ratio is None else f"{result.ratio:.2f}"
        verdict = ""
        if result.ratio is not None:
            verdict = "ok" if result.ratio <= TARGET_RATIO else "OVER TARGET"
            ok = ok and result.ratio <= TARGET_RATIO
        print(f"{result.name:<24} {result.module:<34} {result.median_ms:>10.1f} {ratio:>8}  {verdict}")
    return ok

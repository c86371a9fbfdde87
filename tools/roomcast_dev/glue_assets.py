"""The Glue jobs' script as `sam deploy` ships it: one file, ``glue_jobs/bundled/roomcast_jobs.py``.

A Glue job runs one script, its ``Command.ScriptLocation``, which ``sam deploy`` uploads when it is
a local path; nothing uploads ``--extra-py-files``. So the script carries the code it runs: a zip of
the ``roomcast_glue`` package and both entrypoints (``glue_jobs/<job>.py``), base64 on one line.
When it runs it puts the zip on the import path (Python imports from a zip as from a folder) and
runs the job its ``--roomcast-job`` argument names as ``__main__``, with the job's own arguments.
Both jobs share the script. It is committed, like ``uv.lock``, and checked for drift
(docs/decisions/0035-committed-build-inputs.md). The zip is stored, not compressed, with fixed
dates, so the same sources give the same bytes on every machine.

    python -m roomcast_dev.glue_assets           # rewrite the script if it changed (make glue-scripts)
    python -m roomcast_dev.glue_assets --check   # exit 1 when it is stale (make template-check)
"""

from __future__ import annotations

import argparse
import base64
import io
import sys
import zipfile
from pathlib import Path

GLUE_JOBS_DIR = Path(__file__).resolve().parents[2] / "glue_jobs"
BUNDLE = GLUE_JOBS_DIR / "bundled" / "roomcast_jobs.py"
PACKAGE = "roomcast_glue"
JOBS = ("compact_job", "analytics_job")
JOB_ARGUMENT = "--roomcast-job"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can hold: no build's time in the bytes

_SCRIPT = '''\
# Generated from glue_jobs/ by `make glue-scripts` (python -m roomcast_dev.glue_assets): edit the
# sources there, not this file; `make template-check` and tests/unit/test_template.py fail while
# it is stale.
"""The roomcast Glue jobs as Glue runs them: both jobs' ScriptLocation, one file `sam deploy`
uploads. ARCHIVE is a zip of glue_jobs/roomcast_glue/ and the jobs' entrypoints; it goes on the
import path and the job named by {argument} runs as __main__ with the other arguments
(docs/decisions/0035-committed-build-inputs.md)."""

import atexit
import base64
import os
import runpy
import sys
import tempfile

JOBS = ({jobs})
ARCHIVE = "{archive}"


def job_and_arguments(argv: list[str]) -> tuple[str, list[str]]:
    """The job {argument} names, and the arguments without it."""
    at = argv.index("{argument}")
    job = argv[at + 1]
    if job not in JOBS:
        raise SystemExit(f"{argument} must be one of {{JOBS}}, not {{job!r}}")
    return job, argv[:at] + argv[at + 2 :]


if __name__ == "__main__":
    handle, archive = tempfile.mkstemp(prefix="roomcast_glue-", suffix=".zip")
    with os.fdopen(handle, "wb") as written:
        written.write(base64.b64decode(ARCHIVE))
    atexit.register(os.unlink, archive)
    sys.path.insert(0, archive)
    job, sys.argv = job_and_arguments(sys.argv)
    runpy.run_module(job, run_name="__main__", alter_sys=True)
'''


def sources() -> dict[str, bytes]:
    """What the jobs import, by path in the zip: the package's modules, then the entrypoints."""
    paths = [*sorted((GLUE_JOBS_DIR / PACKAGE).rglob("*.py")), *(GLUE_JOBS_DIR / f"{j}.py" for j in JOBS)]
    return {path.relative_to(GLUE_JOBS_DIR).as_posix(): path.read_bytes() for path in paths}


def archive() -> bytes:
    """The sources as a zip whose bytes depend on nothing else."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zipped:
        for name, content in sources().items():
            entry = zipfile.ZipInfo(name, date_time=_ZIP_DATE)
            entry.external_attr = 0o644 << 16
            zipped.writestr(entry, content)
    return buffer.getvalue()


def script() -> str:
    """The one-file script both Glue jobs run."""
    encoded = base64.b64encode(archive()).decode("ascii")
    jobs = ", ".join(f'"{job}"' for job in JOBS)
    return _SCRIPT.format(jobs=jobs, archive=encoded, argument=JOB_ARGUMENT)


def is_current() -> bool:
    return BUNDLE.is_file() and BUNDLE.read_text(encoding="utf-8") == script()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if the script is stale")
    args = parser.parse_args(argv)
    shown = BUNDLE.relative_to(GLUE_JOBS_DIR.parent)
    if args.check:
        if not is_current():
            print(f"stale: {shown} (run make glue-scripts)", file=sys.stderr)
            return 1
        return 0
    if not is_current():
        BUNDLE.parent.mkdir(exist_ok=True)
        BUNDLE.write_text(script(), encoding="utf-8")
        print(f"wrote {shown}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The Glue jobs' script as `sam deploy` ships it: one file, ``glue_jobs/bundled/roomcast_jobs.py``.

A Glue job runs one script, its ``Command.ScriptLocation``, which ``sam deploy`` uploads when it is
a local path; nothing uploads ``--extra-py-files``. So the script carries the code it runs: a zip of
the ``roomcast_glue`` package and both entrypoints (``glue_jobs/<job>.py``), base64 on one line.
When it runs it puts the zip on the import path (Python imports from a zip as from a folder) and
runs ``roomcast_glue.launch``, which runs the job its ``--roomcast-job`` argument names as
``__main__``, with the job's own arguments.
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

from roomcast_glue.launch import JOB_ARGUMENT, JOBS

GLUE_JOBS_DIR = Path(__file__).resolve().parents[2] / "glue_jobs"
BUNDLE = GLUE_JOBS_DIR / "bundled" / "roomcast_jobs.py"
PACKAGE = "roomcast_glue"
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can hold: no build's time in the bytes

# The script's code stays under six lines: what it does is in roomcast_glue.launch (in the zip).
_SCRIPT = '''\
# Generated from glue_jobs/ by `make glue-scripts` (python -m roomcast_dev.glue_assets): edit the
# sources there, not this file; `make template-check` and tests/unit/test_template.py fail while
# it is stale.
"""The roomcast Glue jobs as Glue runs them: both jobs' ScriptLocation, one file `sam deploy`
uploads. ARCHIVE is a zip of glue_jobs/roomcast_glue/ and the jobs' entrypoints: written to a
temporary file first on the import path, then roomcast_glue.launch runs the job {argument}
names (docs/decisions/0035-committed-build-inputs.md)."""

import base64, pathlib, runpy, sys, tempfile

ARCHIVE = "{archive}"

if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(tempfile.mkdtemp(prefix="roomcast_glue-"), "roomcast_glue.zip")))
    pathlib.Path(sys.path[0]).write_bytes(base64.b64decode(ARCHIVE))
    runpy.run_module("roomcast_glue.launch", run_name="__main__", alter_sys=True)
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
    return _SCRIPT.format(archive=encoded, argument=JOB_ARGUMENT)


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

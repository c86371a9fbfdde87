"""How the Glue jobs' one-file script runs a job (docs/decisions/0035-committed-build-inputs.md).

Both jobs run the same script, ``glue_jobs/bundled/roomcast_jobs.py``: it puts its zip of this
package and the entrypoints on the import path and runs this module, which runs the job that
``--roomcast-job`` (a default argument of each Glue job) names, as ``__main__``, with the job's
other arguments.
"""

from __future__ import annotations

import runpy
import sys

JOB_ARGUMENT = "--roomcast-job"
JOBS = ("compact_job", "analytics_job")


def job_and_arguments(argv: list[str]) -> tuple[str, list[str]]:
    """The job ``--roomcast-job`` names, and the arguments without it; SystemExit when it names
    none of ours."""
    at = argv.index(JOB_ARGUMENT) if JOB_ARGUMENT in argv else len(argv)
    job = argv[at + 1] if at + 1 < len(argv) else ""
    if job not in JOBS:
        raise SystemExit(f"{JOB_ARGUMENT} must name one of {', '.join(JOBS)}, not {job!r}")
    return job, argv[:at] + argv[at + 2 :]


if __name__ == "__main__":
    job, sys.argv = job_and_arguments(sys.argv)
    runpy.run_module(job, run_name="__main__", alter_sys=True)

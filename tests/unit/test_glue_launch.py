"""The Glue jobs' one-file script runs the job its --roomcast-job argument names, with the rest."""

from __future__ import annotations

import pytest

from roomcast_glue.launch import JOB_ARGUMENT, job_and_arguments


def test_the_named_job_runs_with_the_other_arguments_in_their_order() -> None:
    argv = ["script.py", "--source", "s3://b", JOB_ARGUMENT, "analytics_job", "--date", "yesterday"]

    assert job_and_arguments(argv) == (
        "analytics_job",
        ["script.py", "--source", "s3://b", "--date", "yesterday"],
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["script.py", "--source", "s3://b"],
        ["script.py", JOB_ARGUMENT],
        ["script.py", JOB_ARGUMENT, "os"],
        ["script.py", JOB_ARGUMENT, "roomcast_glue.transforms"],
    ],
)
def test_no_job_or_another_module_is_refused_with_the_choices(argv: list[str]) -> None:
    with pytest.raises(SystemExit, match="compact_job, analytics_job"):
        job_and_arguments(argv)

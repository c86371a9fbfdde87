"""The job runner over fakes: a step that keeps failing ends the job `failed` on its last try (and
is handed back before that), the budget hands the rest of a job on through the outbox queue, and
a second run of the same task advances the job once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import pytest

from outbox_worker.jobs import JobRunner
from roomcast.jobs.model import JOB_STEP_TRIES, Job, JobKind, JobState, Progress
from roomcast.jobs.steps import JobSteps
from roomcast.outbox.queue import OutboxQueue
from roomcast.outbox.tasks import RunJob, task_from_json
from tests.fakes import FakeJobs, FakeSender

NOW_MS = 1_795_435_200_000


@dataclass
class ScriptedSteps:
    """Answers each step with the next progress (an exception is raised)."""

    script: list[Progress | Exception]
    taken: list[int] = field(default_factory=list)

    def advance(self, job: Job) -> Progress:
        self.taken.append(job.steps)
        answer = self.script.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


def _runner(steps: ScriptedSteps, budget_seconds: float = 20.0) -> tuple[JobRunner, FakeJobs, FakeSender]:
    jobs, sender = FakeJobs(), FakeSender()
    job = Job("job_1", "acme", JobKind.CLEAR_DELIVERIES, "room_1", "sub_1", NOW_MS, NOW_MS)
    jobs.create(job)
    runner = JobRunner(
        jobs, cast(JobSteps, steps), OutboxQueue(sender, "https://sqs.local/outbox", 60), clock=lambda: NOW_MS
    )
    runner.budget_seconds = budget_seconds
    return runner, jobs, sender


def test_a_failing_step_is_handed_back_until_its_last_try_then_the_job_ends_failed() -> None:
    # Given
    runner, jobs, _ = _runner(ScriptedSteps([RuntimeError("throttled")] * JOB_STEP_TRIES))
    task = RunJob("acme", "job_1")

    # When / Then: handed back (raised) while tries are left, the job still running
    for tries in range(1, JOB_STEP_TRIES):
        with pytest.raises(RuntimeError):
            runner.run(task, tries)
        assert jobs.jobs[("acme", "job_1")].state is JobState.RUNNING
    ended = runner.run(task, JOB_STEP_TRIES)

    # Then
    assert ended is not None
    assert (ended.state, ended.error, ended.finished_at_ms) == (
        JobState.FAILED,
        "RuntimeError: throttled",
        NOW_MS,
    )
    assert jobs.jobs[("acme", "job_1")] == ended


def test_a_spent_budget_hands_the_rest_on_and_the_counts_add_up() -> None:
    # Given: two pages of work, and no time to do more than one per run
    pages = [Progress({"cleared": 100}, "p1", done=False), Progress({"cleared": 40}, None, done=True)]
    runner, _, sender = _runner(ScriptedSteps(list(pages)), budget_seconds=0.0)

    # When
    first = runner.run(RunJob("acme", "job_1"), 1)
    [sent] = sender.sent
    second = runner.run(task_from_json(str(sent.envelope)), 1)  # type: ignore[arg-type]

    # Then
    assert first is not None
    assert (first.state, first.position, first.counts) == (JobState.RUNNING, "p1", {"cleared": 100})
    assert second is not None
    assert (second.state, second.counts, second.steps) == (JobState.SUCCEEDED, {"cleared": 140}, 2)


def test_a_second_run_of_the_same_step_does_not_advance_the_job_twice() -> None:
    # Given: two runs that read the job at the same step
    steps = ScriptedSteps([Progress({"cleared": 5}, None, done=True)] * 2)
    runner, jobs, _ = _runner(steps)
    read_first = jobs.get("acme", "job_1")
    original_get = jobs.get
    jobs.get = lambda tenant_id, job_id: read_first  # type: ignore[method-assign]

    # When
    winner = runner.run(RunJob("acme", "job_1"), 1)
    loser = runner.run(RunJob("acme", "job_1"), 1)

    # Then: one saved; the other's save lost and it stopped
    jobs.get = original_get  # type: ignore[method-assign]
    assert winner is not None
    assert loser is None
    assert jobs.jobs[("acme", "job_1")].counts == {"cleared": 5}

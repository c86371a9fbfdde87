"""Running a job (roomcast.jobs.model) one task at a time: read its record, do steps
(roomcast.jobs.steps) and save each over the step it read, until it is done or the
budget is spent; then the task sends itself on. A step that raises hands the task back to SQS
(it comes again after the queue's visibility timeout); the last try ends the job ``failed``."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from roomcast.jobs import JOB_STEP_TRIES, Job, JobRecords, JobSteps
from roomcast.outbox import OutboxQueue, RunJob
from roomcast.platform import logger, now_ms

# How long one invocation works on a job before it hands the rest on (well inside the function's
# 60 s timeout; one step is a page: a few seconds at most).
JOB_BUDGET_SECONDS: Final = 20.0


@dataclass
class JobRunner:
    jobs: JobRecords
    steps: JobSteps
    outbox: OutboxQueue
    clock: Callable[[], int] = now_ms
    monotonic: Callable[[], float] = time.monotonic
    budget_seconds: float = JOB_BUDGET_SECONDS

    def run(self, task: RunJob, tries: int) -> Job | None:
        """Go on with the task's job (``tries``: how often SQS has handed this task out); the job
        as this run left it, None when there is none."""
        job = self.jobs.get(task.tenant_id, task.job_id)
        started = self.monotonic()
        while job is not None and not job.finished:
            try:
                progress = self.steps.advance(job)
            except Exception as error:  # the job's last try: ended, not left running for ever
                if tries < JOB_STEP_TRIES:
                    raise
                logger.exception("a job failed", extra={"job": job.id, "kind": job.kind.value})
                failed = job.failed(f"{type(error).__name__}: {error}", self.clock())
                return failed if self.jobs.save(failed, job.steps) else None
            advanced = job.advanced(progress, self.clock())
            if not self.jobs.save(advanced, job.steps):
                return None  # another run of this task went on with it
            job = advanced
            if not job.finished and self.monotonic() - started > self.budget_seconds:
                self.outbox.now(task)
                return job
        return job

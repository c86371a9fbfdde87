"""The jobs' port (roomcast.jobs.store implements it on DynamoDB)."""

from __future__ import annotations

from typing import Protocol

from roomcast.jobs.model import Job


class JobRecords(Protocol):
    def create(self, job: Job) -> None: ...
    def get(self, tenant_id: str, job_id: str) -> Job | None: ...
    def save(self, job: Job, read_steps: int) -> bool: ...

"""Bulk actions as jobs: their model and store, their steps, retry-now and the removal of
subscriptions (ADR 0033).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.jobs.model import (
        JOB_STEP_TRIES as JOB_STEP_TRIES,
        Job as Job,
        JobCount as JobCount,
        JobKind as JobKind,
    )
    from roomcast.jobs.ports import JobRecords as JobRecords
    from roomcast.jobs.removal import remove_subscriptions as remove_subscriptions
    from roomcast.jobs.retry_now import RetryNow as RetryNow, require_push as require_push
    from roomcast.jobs.steps import JobSteps as JobSteps
    from roomcast.jobs.store import JobTable as JobTable

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)

"""The outbox: tasks for later (publish checks, releases, sweeps) and the outbox's queue (ADR 0018,
ADR 0028).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.outbox.queue import OutboxQueue as OutboxQueue
    from roomcast.outbox.schedules import ReleaseSchedules as ReleaseSchedules
    from roomcast.outbox.tasks import (
        ROOM_DELETED as ROOM_DELETED,
        SUBSCRIPTION_DELETED as SUBSCRIPTION_DELETED,
        Probe as Probe,
        PublishCheck as PublishCheck,
        Release as Release,
        RunJob as RunJob,
        Sweep as Sweep,
        task_from_json as task_from_json,
    )

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)

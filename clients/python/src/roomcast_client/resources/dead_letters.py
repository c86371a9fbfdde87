"""``client.dead_letters``: a subscription's dead letters: list, replay (named ones, or all in a
time range: a job), purge (a job)."""

from __future__ import annotations

from collections.abc import Sequence

from roomcast_client._core import Call, query, read_model
from roomcast_client._executors import E, Resource, operation, paginated
from roomcast_client.job import Job
from roomcast_client.models import DeadLetter, Page, ReplayResult
from roomcast_client.resources.common import page_call, subscription_path


def _dead_letters_path(room_id: str, subscription_id: str) -> str:
    return f"{subscription_path(room_id, subscription_id)}/dead-letters"


class DeadLetters(Resource[E]):
    @operation
    def list(
        self, room_id: str, subscription_id: str, *, limit: int | None = None, cursor: str | None = None
    ) -> Call[Page[DeadLetter]]:
        path = _dead_letters_path(room_id, subscription_id)
        return page_call(path, DeadLetter, "deadLetters", limit=limit, cursor=cursor)

    iter = paginated(list.build)

    @operation
    def replay(self, room_id: str, subscription_id: str, message_ids: Sequence[str]) -> Call[ReplayResult]:
        """Deliver these dead letters again (at most 100), before the call returns."""
        path = f"{_dead_letters_path(room_id, subscription_id)}/replay"
        body = {"messageIds": list(message_ids)}
        return Call("POST", path, read_model(ReplayResult), json=body, retry_safe=False)

    @operation
    def replay_all(
        self, room_id: str, subscription_id: str, *, since: str | None = None, until: str | None = None
    ) -> Call[Job]:
        """Start a job that delivers again every dead letter that died in [since, until] (ISO 8601;
        either end open) until now: the job (``client.jobs.wait(job.id)``)."""
        path = f"{_dead_letters_path(room_id, subscription_id)}/replay"
        return Call("POST", path, read_model(Job), json=query(since=since, until=until), retry_safe=False)

    @operation
    def purge(self, room_id: str, subscription_id: str) -> Call[Job]:
        """Start a job that deletes every dead letter of the subscription: the job."""
        return Call("DELETE", _dead_letters_path(room_id, subscription_id), read_model(Job))

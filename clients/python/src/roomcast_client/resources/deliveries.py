"""``client.deliveries``: a subscription's deliveries: list them, retry now, clear."""

from __future__ import annotations

from collections.abc import Sequence

from roomcast_client._core import Call, read_model
from roomcast_client._executors import E, Resource, operation, paginated
from roomcast_client.job import Job
from roomcast_client.models import DeliveryItem, Page, RetryResult
from roomcast_client.resources.common import page_call, subscription_path


def _deliveries_path(room_id: str, subscription_id: str) -> str:
    return f"{subscription_path(room_id, subscription_id)}/deliveries"


class Deliveries(Resource[E]):
    @operation
    def list(
        self,
        room_id: str,
        subscription_id: str,
        *,
        status: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> Call[Page[DeliveryItem]]:
        """One page of a subscription's deliveries (``status``: pending, retrying, dead…)."""
        path = _deliveries_path(room_id, subscription_id)
        return page_call(path, DeliveryItem, "deliveries", status=status, limit=limit, cursor=cursor)

    iter = paginated(list.build)

    @operation
    def retry(self, room_id: str, subscription_id: str, message_ids: Sequence[str]) -> Call[RetryResult]:
        """Attempt these messages' retrying deliveries now (at most 100), before the call returns."""
        path = f"{_deliveries_path(room_id, subscription_id)}/retry"
        return Call(
            "POST", path, read_model(RetryResult), json={"messageIds": list(message_ids)}, retry_safe=False
        )

    @operation
    def retry_all(self, room_id: str, subscription_id: str) -> Call[Job]:
        """Start a job that attempts every retrying delivery of the subscription now: the job
        (``client.jobs.wait(job.id)``; ``job.counts.retried`` says how many)."""
        path = f"{_deliveries_path(room_id, subscription_id)}/retry"
        return Call("POST", path, read_model(Job), json={}, retry_safe=False)

    @operation
    def clear(self, room_id: str, subscription_id: str) -> Call[Job]:
        """Give up the subscription's undelivered messages: none is sent from now on; the job that
        marks them ``cleared`` is answered (``client.jobs.wait(job.id)``)."""
        return Call("DELETE", _deliveries_path(room_id, subscription_id), read_model(Job))

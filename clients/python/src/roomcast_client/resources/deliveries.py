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
    def retry(
        self, room_id: str, subscription_id: str, *, message_ids: Sequence[str] | None = None
    ) -> Call[RetryResult]:
        """Attempt the subscription's retrying deliveries now (all of them, or ``message_ids``)."""
        body = {} if message_ids is None else {"messageIds": list(message_ids)}
        path = f"{_deliveries_path(room_id, subscription_id)}/retry"
        return Call("POST", path, read_model(RetryResult), json=body, retry_safe=False)

    @operation
    def clear(self, room_id: str, subscription_id: str) -> Call[Job]:
        """Give up the subscription's undelivered messages: none is sent from now on; the job that
        marks them ``cleared`` is answered (``client.jobs.wait(job.id)``)."""
        return Call("DELETE", _deliveries_path(room_id, subscription_id), read_model(Job))

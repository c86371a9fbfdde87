"""Flow control's port: the state every push invocation shares, and the types it exchanges
(roomcast.flow.store implements it on DynamoDB)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from roomcast.flow.rules import Reservation


class FlowGate(Protocol):
    def reserve_rate(self, flow: RateKey, interval_ms: int, now_ms: int, max_wait_ms: int) -> RateAnswer: ...
    def acquire_lease(
        self, flow: FlowKey, lease_id: str, max_concurrency: int, expires_at_ms: int, now_ms: int
    ) -> bool: ...
    def lease_free(self, flow: FlowKey, max_concurrency: int, now_ms: int) -> bool: ...
    def release_lease(self, flow: FlowKey, lease_id: str) -> None: ...


@dataclass(frozen=True)
class FlowKey:
    tenant_id: str
    subscription_id: str

    @property
    def partition(self) -> str:
        return f"TENANT#{self.tenant_id}#FLOW#{self.subscription_id}"


@dataclass(frozen=True)
class TenantRequestsKey:
    """The rate item of a tenant's API requests (roomcast.flow.request_limits)."""

    tenant_id: str

    @property
    def partition(self) -> str:
        return f"TENANT#{self.tenant_id}#REQUESTS"


RateKey = FlowKey | TenantRequestsKey


@dataclass(frozen=True)
class RateAnswer:
    """``reserved``: the slot at ``reservation.start_at_ms`` is this caller's. Otherwise nothing was
    written and the next slot is at least ``reservation.start_at_ms``."""

    reserved: bool
    reservation: Reservation

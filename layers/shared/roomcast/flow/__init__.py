"""Flow control: a PUSH subscription's concurrency and rate, and a tenant's request rate, over the
state every invocation shares (ADR 0016, ADR 0032).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.flow.ports import (
        FlowGate as FlowGate,
        FlowKey as FlowKey,
        TenantRequestsKey as TenantRequestsKey,
    )
    from roomcast.flow.request_limits import TOKEN_LIFE_MS as TOKEN_LIFE_MS, RequestLimit as RequestLimit
    from roomcast.flow.rules import (
        LOCAL_WAIT_MS as LOCAL_WAIT_MS,
        held_back_delay_ms as held_back_delay_ms,
        lease_ms as lease_ms,
        lease_poll_ms as lease_poll_ms,
        paused_wait_ms as paused_wait_ms,
        rate_interval_ms as rate_interval_ms,
    )
    from roomcast.flow.store import FlowTable as FlowTable

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)

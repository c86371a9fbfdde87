"""Rooms and subscriptions: their model, delivery policy and backoff, lanes, recovery and failover
rules, and their store (rooms, subscriptions and their marks on one table).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.catalog.failover import (
        check_failover as check_failover,
        checked_failover_chain as checked_failover_chain,
    )
    from roomcast.catalog.lanes import (
        SLOW_ENDPOINT_MS as SLOW_ENDPOINT_MS,
        Lane as Lane,
        is_fast_again as is_fast_again,
        lane_of as lane_of,
        moves_lane as moves_lane,
        takeover_delay_ms as takeover_delay_ms,
    )
    from roomcast.catalog.model import (
        CloudEventsMode as CloudEventsMode,
        DeliveryOverrides as DeliveryOverrides,
        EventTypeFilter as EventTypeFilter,
        OnDeadKey as OnDeadKey,
        Room as Room,
        SigningSecret as SigningSecret,
        Subscription as Subscription,
        SubscriptionStatus as SubscriptionStatus,
        SubscriptionType as SubscriptionType,
        WebhookFormat as WebhookFormat,
        accepts_event as accepts_event,
    )
    from roomcast.catalog.policy import (
        DeliveryPolicy as DeliveryPolicy,
        FailureOutcome as FailureOutcome,
        NextStep as NextStep,
        ScheduledAttempt as ScheduledAttempt,
        after_failure as after_failure,
        effective_policy as effective_policy,
        expires_at as expires_at,
        is_expired as is_expired,
        schedule as schedule,
    )
    from roomcast.catalog.ports import (
        Catalog as Catalog,
        FailoverLink as FailoverLink,
        RoomRecords as RoomRecords,
        SubscriptionRecords as SubscriptionRecords,
    )
    from roomcast.catalog.recovery import (
        RECOVERED as RECOVERED,
        ping_body as ping_body,
        probe_delay_ms as probe_delay_ms,
        probe_message_id as probe_message_id,
        probing as probing,
        warning_due as warning_due,
    )
    from roomcast.catalog.store import CatalogTable as CatalogTable

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)

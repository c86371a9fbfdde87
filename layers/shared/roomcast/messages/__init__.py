"""Messages and their deliveries: the model (publication, message, delivery, attempt), the envelope
that travels on SQS, the store of messages and delivery records, and the envelope sender.

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.messages.envelope import (
        Envelope as Envelope,
        EnvelopeError as EnvelopeError,
        first_envelope as first_envelope,
    )
    from roomcast.messages.first_tries import (
        FIRST_TRIES_SORT_KEY as FIRST_TRIES_SORT_KEY,
        deliveries_in as deliveries_in,
    )
    from roomcast.messages.items import (
        DELIVERY_PREFIX as DELIVERY_PREFIX,
        MESSAGE_SORT_KEY as MESSAGE_SORT_KEY,
        ORDERED_ATTRIBUTE as ORDERED_ATTRIBUTE,
        OUTBOX_ATTRIBUTE as OUTBOX_ATTRIBUTE,
        OUTBOX_UNSENT as OUTBOX_UNSENT,
        SCHEDULED_INDEX as SCHEDULED_INDEX,
        SENDS_DONE_SORT_KEY as SENDS_DONE_SORT_KEY,
        UNSENT_ATTRIBUTE as UNSENT_ATTRIBUTE,
        delivery_from_item as delivery_from_item,
        embedded_deliveries as embedded_deliveries,
        message_from_item as message_from_item,
        message_partition_key as message_partition_key,
        message_ttl as message_ttl,
        scheduled_shard_key as scheduled_shard_key,
        sends_done_key as sends_done_key,
        ttl as ttl,
        ttl_after as ttl_after,
    )
    from roomcast.messages.model import (
        HANDED_TO_FAILOVER as HANDED_TO_FAILOVER,
        OPEN_STATUSES as OPEN_STATUSES,
        TERMINAL_STATUSES as TERMINAL_STATUSES,
        Attempt as Attempt,
        AttemptEvent as AttemptEvent,
        Delivery as Delivery,
        DeliveryStatus as DeliveryStatus,
        FilteredOut as FilteredOut,
        KeySlot as KeySlot,
        Message as Message,
        MessageFilter as MessageFilter,
        Note as Note,
        OwedFilter as OwedFilter,
        Publication as Publication,
        TrackedMessage as TrackedMessage,
        deliveries_to as deliveries_to,
    )
    from roomcast.messages.ports import (
        DeliveryPage as DeliveryPage,
        MessageExists as MessageExists,
        MessageRecords as MessageRecords,
        Outgoing as Outgoing,
        Sender as Sender,
    )
    from roomcast.messages.room_index import RoomIndex as RoomIndex
    from roomcast.messages.sender import (
        SQS_MAX_DELAY_SECONDS as SQS_MAX_DELAY_SECONDS,
        SQS_MAX_VISIBILITY_SECONDS as SQS_MAX_VISIBILITY_SECONDS,
        EnvelopeSender as EnvelopeSender,
        QueueAddresses as QueueAddresses,
        delay_seconds as delay_seconds,
    )
    from roomcast.messages.store import MessageTable as MessageTable

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)

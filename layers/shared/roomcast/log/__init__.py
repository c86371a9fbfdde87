"""The delivery log: its records and their Firehose writer (ADR 0014, docs/delivery-log.md).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.log.delivery_log import DeliveryLog as DeliveryLog
    from roomcast.log.outcomes import DeliveryOutcome as DeliveryOutcome
    from roomcast.log.ports import LogSink as LogSink
    from roomcast.log.records import Detail as Detail, LogEvent as LogEvent, LogRecord as LogRecord

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)

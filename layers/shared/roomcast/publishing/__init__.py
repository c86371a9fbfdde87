"""Publishing: routing a message to its destinations, storing it with its first records, sending
its first envelopes, keyed (idempotent) messages, and what a publish records of its sends.

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.publishing.first_sends import MessageSending as MessageSending, release_of as release_of
    from roomcast.publishing.marks import PublishMarks as PublishMarks
    from roomcast.publishing.publisher import Publisher as Publisher
    from roomcast.publishing.routing import explain_routing as explain_routing

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)

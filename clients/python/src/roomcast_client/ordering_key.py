"""An ordering key of an ordered subscription: flowing, or paused on a message that ended dead
(``client.ordering_keys``; docs/ordering-keys.md). Paused: its later messages wait behind
``dead_message_id`` until ``ordering_keys.resume``; flowing: ``in_flight`` is its message on its
way, if any. The models are the API's (generated, ``_generated/models.py``)."""

from __future__ import annotations

from roomcast_client._generated.models import OrderingKey, OrderingKeyList

__all__ = ["OrderingKey", "OrderingKeyList"]

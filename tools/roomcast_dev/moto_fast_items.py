"""Items built without re-measuring themselves, for moto in-process.

moto builds every item it stores (``Item.__init__``: each put, each updated or read-back copy)
one attribute at a time into a ``LimitedSizeDict``, whose ``__setitem__`` sums the size of every
attribute already set before adding the next: an item of n attributes is measured n times over,
~35 % of a ``PutItem``'s time in moto's model for a delivery record (a profile of the PULL bench).

With this patch an item's attributes are converted, their total size is checked once against
the same limit, and the dict is filled at once. Sizes are never negative, so the running total
passes the limit at some attribute exactly when the whole item does: the same items are refused,
with the same error. ``LimitedSizeDict.__setitem__`` is unchanged for every other write.
"""

from __future__ import annotations

import threading
from typing import Any

_installed = threading.Lock()
_state = {"done": False}
# moto's own limit (LimitedSizeDict): DynamoDB's 400 KB, measured on AWS between 409 and 410 KB.
_MOTO_ITEM_LIMIT_BYTES = 405_000


def build_items_in_one_pass() -> None:
    """Patch moto's DynamoDB ``Item`` construction in this process (idempotent)."""
    from moto.dynamodb.exceptions import ItemSizeTooLarge
    from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
    from moto.dynamodb.models.utilities import bytesize

    with _installed:
        if _state["done"]:
            return

        def item_init(
            item: Item, hash_key: DynamoType, range_key: DynamoType | None, attrs: dict[str, Any]
        ) -> None:
            item.hash_key = hash_key
            item.range_key = range_key
            converted = {key: DynamoType(value) for key, value in attrs.items()}
            size = sum(bytesize(key) + value.size() for key, value in converted.items())
            if size > _MOTO_ITEM_LIMIT_BYTES:
                raise ItemSizeTooLarge
            item.attrs = LimitedSizeDict(converted)  # dict.update: no per-key measuring

        Item.__init__ = item_init  # type: ignore[method-assign,assignment]
        _state["done"] = True

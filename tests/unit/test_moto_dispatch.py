"""The local stack's request dispatch (roomcast_dev.moto_dispatch): moto's package is listed once,
and the listing is what moto's own function gives."""

from __future__ import annotations

import os

import pytest
from moto import backends

from roomcast_dev.moto_dispatch import list_moto_modules_once


def test_moto_modules_are_listed_once_and_are_motos_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given: moto's own listing, taken before the patch
    moto_dir = os.path.dirname(backends.__file__)
    own = {name for name in os.listdir(moto_dir) if os.path.isdir(os.path.join(moto_dir, name))}
    own = {name for name in own if not name.startswith("__")}
    list_moto_modules_once()
    first = set(backends.list_of_moto_modules())
    listings: list[str] = []

    def listdir(path: str) -> list[str]:
        listings.append(path)
        return []

    monkeypatch.setattr(os, "listdir", listdir)

    # When
    again = [set(backends.list_of_moto_modules()) for _ in range(3)]

    # Then
    assert first == own
    assert {"dynamodb", "sqs"} <= first
    assert again == [first] * 3
    assert listings == []

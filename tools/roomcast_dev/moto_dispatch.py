"""Request dispatch for moto in-process without listing moto's package on every request.

moto's server finds the backend of each request by its host (``DomainDispatcherApplication.
get_backend_for_host``), and the first thing that asks is whether the host is one of moto's
modules: ``moto.backends.list_of_moto_modules()`` lists moto's package directory and stats each of
its ~200 entries, on every request, twice. On the local stack that was about 2.5 ms of every AWS
call (a third of moto's own time for a DynamoDB ``GetItem``), and every function waits on it.

With this patch the listing is read once per process: moto's package does not change while it
runs. What each request is dispatched to does not change.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable

_installed = threading.Lock()
_state = {"done": False}


def list_moto_modules_once() -> None:
    """Patch moto's server dispatch in this process (idempotent)."""
    from moto import backends

    with _installed:
        if _state["done"]:
            return
        listing = backends.list_of_moto_modules

        @functools.cache
        def modules() -> frozenset[str]:
            return frozenset(listing())

        def list_of_moto_modules() -> Iterable[str]:
            return modules()

        backends.list_of_moto_modules = list_of_moto_modules
        _state["done"] = True

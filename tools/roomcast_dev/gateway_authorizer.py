"""An HTTP API's Lambda REQUEST authorizer (payload 2.0, simple responses): the identity headers
must all be present, the function decides, and its answer is cached per identity for the
template's ``ReauthorizeEvery``."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from http import HTTPStatus
from typing import Any

from roomcast_dev.functions import FunctionError
from roomcast_dev.local_aws import LOCAL_ACCOUNT_ID
from roomcast_dev.template import Authorizer

# Diagnostics of the local stack's background threads: logged, not printed, so that they reach
# `make run`'s terminal (logging is set up there) and pytest's log capture, never a test's stdout.
_log = logging.getLogger(__name__)

Invoke = Callable[[str, dict[str, Any]], Any]


class LambdaAuthorizer:
    def __init__(self, authorizer: Authorizer, invoke: Invoke) -> None:
        self._authorizer = authorizer
        self._invoke = invoke
        self._cache: dict[str, tuple[float, dict[str, Any]]] = {}  # identity → (expiry, context)
        self._cache_lock = threading.Lock()

    def clear_cache(self) -> None:
        with self._cache_lock:
            self._cache.clear()

    def authorize(self, event: dict[str, Any]) -> tuple[HTTPStatus, dict[str, Any]]:
        """OK with the authorizer's context, or the status API Gateway refuses the request with."""
        identity = [event["headers"].get(name) for name in self._authorizer.identity_headers]
        if any(value is None or value == "" for value in identity):
            return HTTPStatus.UNAUTHORIZED, {}
        cache_key = "\n".join(str(v) for v in identity)
        now = time.monotonic()
        with self._cache_lock:
            cached = self._cache.get(cache_key)
        if cached is not None and cached[0] > now:
            return HTTPStatus.OK, cached[1]
        authorizer_event = {
            **{k: v for k, v in event.items() if k not in ("body", "isBase64Encoded")},
            "type": "REQUEST",
            "routeArn": f"arn:aws:execute-api:local:{LOCAL_ACCOUNT_ID}:local/$default/{event['routeKey']}",
            "identitySource": identity,
        }
        try:
            response = self._invoke(self._authorizer.function_id, authorizer_event)
        except FunctionError as error:
            _log.warning(f"[gateway] authorizer failed: {error}\n{error.trace}")
            return HTTPStatus.INTERNAL_SERVER_ERROR, {}
        if not isinstance(response, dict) or response.get("isAuthorized") is not True:
            return HTTPStatus.FORBIDDEN, {}
        context = response.get("context") or {}
        if self._authorizer.cache_ttl_seconds > 0:
            with self._cache_lock:
                self._cache[cache_key] = (now + self._authorizer.cache_ttl_seconds, context)
        return HTTPStatus.OK, context

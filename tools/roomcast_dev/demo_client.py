"""How ``make demo`` talks to the API: through the project's SDK (``roomcast_client``), with every
failure turned into one ``DemoError`` that names the call and says what to do about it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from roomcast_client import ApiError, Client, ResponseError, TransportError

REQUEST_TIMEOUT_S = 15.0
KEY_HINT = (
    "\n  The API refused the key. If ROOMCAST_API_KEY is set, it must be a key of this"
    "\n  stack (each `make run` starts empty): unset it and the demo creates its own key."
)


class DemoError(Exception):
    """An expected failure: reported in one clear message, without a traceback."""


def demo_client(api_url: str, api_key: str, timeout_s: float = REQUEST_TIMEOUT_S) -> Client:
    """An SDK client that does not retry: the demo reports a failed call at once, by its name."""
    return Client(api_url, api_key, timeout_s=timeout_s, max_retries=0)


@contextmanager
def calling(client: Client, method: str, path: str) -> Iterator[None]:
    """Run SDK calls, raising what goes wrong as a ``DemoError`` about ``method path``."""
    try:
        yield
    except ApiError as error:
        hint = KEY_HINT if error.status in (401, 403) else ""
        raise DemoError(
            f"{method} {path} answered {error.status}: {error.code}: {error.message}{hint}"
        ) from error
    except TransportError as error:
        api_url = client.config.base_url.rstrip("/")
        reason = type(error.__cause__ or error).__name__
        raise DemoError(
            f"{method} {path}: the API at {api_url} did not answer ({reason}). "
            "Is the local stack still running? Start it with: make run"
        ) from error
    except ResponseError as error:
        raise DemoError(f"{method} {path} answered something unexpected: {error}") from error

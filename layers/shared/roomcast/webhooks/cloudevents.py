"""CloudEvents 1.0 over HTTP (https://github.com/cloudevents/spec, HTTP protocol binding), for the
subscriptions whose ``format`` is ``cloudevents``. Pure.

- structured: the whole event is the body, ``application/cloudevents+json``;
- binary: the message's payload is the body (``application/json``), the event's attributes travel
  as ``ce-*`` headers, percent-encoded as the binding says.

Both keep the Standard Webhooks signature over the body (roomcast.webhooks.signing)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from urllib.parse import quote

from roomcast.platform import JsonValue

SPEC_VERSION = "1.0"
STRUCTURED_CONTENT_TYPE = "application/cloudevents+json; charset=utf-8"
DATA_CONTENT_TYPE = "application/json"
# Printable ASCII but space, '"' and '%', beyond what quote() always keeps (letters, digits, _.-~).
_KEPT_AS_IS = "!#$&'()*+,/:;<=>?@[\\]^`{|}"


@dataclass(frozen=True)
class CloudEvent:
    """One message to one subscription as a CloudEvent: the required attributes, ``time``, and
    roomcast's extensions (lower-case letters and digits, as the spec asks)."""

    id: str  # the message id (as webhook-id): the receiver's deduplication key
    room_id: str
    type: str  # the event type
    time: str  # when it was published (RFC 3339)
    data: JsonValue
    event_version: str
    subscription_id: str
    attempt: int
    correlation_id: str

    @property
    def source(self) -> str:
        return f"/rooms/{self.room_id}"

    def attributes(self) -> dict[str, str | int]:
        return {
            "specversion": SPEC_VERSION,
            "id": self.id,
            "source": self.source,
            "type": self.type,
            "time": self.time,
            "datacontenttype": DATA_CONTENT_TYPE,
            "eventversion": self.event_version,
            "subscriptionid": self.subscription_id,
            "attempt": self.attempt,
            "correlationid": self.correlation_id,
        }


def structured(event: CloudEvent) -> tuple[bytes, dict[str, str]]:
    """(body, headers) in structured mode."""
    document = {**event.attributes(), "data": event.data}
    return _json(document), {"content-type": STRUCTURED_CONTENT_TYPE}


def binary(event: CloudEvent) -> tuple[bytes, dict[str, str]]:
    """(body, headers) in binary mode: ``datacontenttype`` is the Content-Type itself."""
    attributes = event.attributes()
    content_type = str(attributes.pop("datacontenttype"))
    headers = {f"ce-{name}": percent_encoded(str(value)) for name, value in attributes.items()}
    return _json(event.data), {"content-type": content_type, **headers}


def percent_encoded(value: str) -> str:
    """A ``ce-*`` header value: space, ``"``, ``%`` and whatever is not printable ASCII as UTF-8
    percent-escapes (HTTP binding, 3.1.3.2); every other printable ASCII character is kept."""
    return quote(value, safe=_KEPT_AS_IS)


def _json(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")

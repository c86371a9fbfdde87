"""Every API operation, written once: each method builds a ``Call`` that the client's executor (sync or
async) runs. Request fields may be given by the API's camelCase names or in snake_case.

One module per resource family, as the API's routes are grouped: ``rooms``, ``subscriptions``,
``filters``, ``event_types``, ``messages``, ``deliveries``, ``dead_letters``, ``ordering_keys``,
``jobs``, ``metrics``, ``alerts``, ``api_keys``, ``portal`` (sessions and settings), and ``pull``
(the client's own pull, ack, nack, extend, and the calls the PULL consumer makes).
"""

from roomcast_client.resources.alerts import Alerts
from roomcast_client.resources.api_keys import ApiKeys
from roomcast_client.resources.dead_letters import DeadLetters
from roomcast_client.resources.deliveries import Deliveries
from roomcast_client.resources.event_types import EventTypes
from roomcast_client.resources.filters import Filters
from roomcast_client.resources.jobs import Jobs
from roomcast_client.resources.messages import Messages, new_idempotency_key
from roomcast_client.resources.metrics import Metrics
from roomcast_client.resources.ordering_keys import OrderingKeys
from roomcast_client.resources.portal import PortalSessions, PortalSettings
from roomcast_client.resources.pull import (
    PullOperations,
    pull_and_ack_call,
    pull_call,
    receipts_call,
    seconds_of_wait,
)
from roomcast_client.resources.rooms import Rooms
from roomcast_client.resources.subscriptions import Subscriptions

__all__ = [
    "Alerts",
    "ApiKeys",
    "DeadLetters",
    "Deliveries",
    "EventTypes",
    "Filters",
    "Jobs",
    "Messages",
    "Metrics",
    "OrderingKeys",
    "PortalSessions",
    "PortalSettings",
    "PullOperations",
    "Rooms",
    "Subscriptions",
    "new_idempotency_key",
    "pull_and_ack_call",
    "pull_call",
    "receipts_call",
    "seconds_of_wait",
]

"""The routes other functions serve (publish, pull), registered here only so that /openapi.json
describes the whole API. API Gateway never sends these paths to this function; the stubs carry
the contract alone. Imported when the document is first built, not at cold start.

No ``from __future__ import annotations`` here: powertools reads the annotations at registration.
"""

from aws_lambda_powertools.event_handler import APIGatewayHttpResolver
from aws_lambda_powertools.event_handler.exceptions import NotFoundError

from roomcast.api.publish_contract import PublishRequest, PublishResponse
from roomcast.api.pull_contract import AckResponse, NackResponse, PullRequest, PullResponse, ReceiptsRequest

BASE = "/rooms/<roomId>/subscriptions/<subscriptionId>"


def document_other_functions(app: APIGatewayHttpResolver) -> None:
    @app.post("/rooms/<roomId>/messages", status_code=202, tags=["messages"])
    def publish(roomId: str, body: PublishRequest) -> PublishResponse:
        """Publish a message to a room (optional header Idempotency-Key)."""
        raise NotFoundError

    @app.post(f"{BASE}/pull", tags=["pull"])
    def pull(roomId: str, subscriptionId: str, body: PullRequest) -> PullResponse:
        """Pull up to maxMessages (long polling up to waitSeconds)."""
        raise NotFoundError

    @app.post(f"{BASE}/ack", tags=["pull"])
    def ack(roomId: str, subscriptionId: str, body: ReceiptsRequest) -> AckResponse:
        """Acknowledge pulled messages: they are delivered."""
        raise NotFoundError

    @app.post(f"{BASE}/nack", tags=["pull"])
    def nack(roomId: str, subscriptionId: str, body: ReceiptsRequest) -> NackResponse:
        """Give pulled messages back: each returns after its backoff delay, or ends dead or expired."""
        raise NotFoundError

"""A webhook receiver on the standard library's http.server that verifies each delivery's
signature before trusting it, answering 204 (done), or 401 to a forgery.

    ROOMCAST_URL=... ROOMCAST_API_KEY=... python webhook_receiver.py ROOM_ID [PORT]

It subscribes its own URL (http://127.0.0.1:PORT/hook: the local stack accepts loopback URLs; a
deployed stack needs a public https URL) and prints each verified message until Ctrl-C.
"""

from __future__ import annotations

import queue
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from roomcast_client import Client, WebhookMessage, WebhookVerificationError, verify_webhook


class Receiver(ThreadingHTTPServer):
    def __init__(self, port: int, secret: str) -> None:
        super().__init__(("127.0.0.1", port), WebhookHandler)
        self.secret = secret
        self.received: queue.Queue[WebhookMessage] = queue.Queue()


class WebhookHandler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        try:
            # The raw bytes, exactly as received: parsing first would change what was signed.
            message = verify_webhook(self.server.secret, dict(self.headers.items()), body)
        except WebhookVerificationError:
            self.send_response(401)
            self.end_headers()
            return
        # Deliveries are at least once: a handler keyed on message.message_id does each once.
        self.server.received.put(message)
        self.send_response(204)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass


def main(
    room_id: str, port: int = 0, client: Client | None = None, count: int | None = None
) -> list[WebhookMessage]:
    """Receive until ``count`` messages arrived (None: until Ctrl-C); the messages received."""
    received: list[WebhookMessage] = []
    with client or Client() as roomcast:
        # The secret is known only once the subscription exists: start with a placeholder.
        server = Receiver(port, secret="")
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/hook"
        subscription = roomcast.subscriptions.create(room_id, push_url=url)
        assert subscription.signing_secret is not None
        server.secret = subscription.signing_secret
        print(f"subscribed {url} as {subscription.id}; publish to room {room_id}")
        try:
            while count is None or len(received) < count:
                message = server.received.get(timeout=60)
                print(f"verified {message.message_id} (attempt {message.attempt}): {message.payload}")
                received.append(message)
        except KeyboardInterrupt:
            pass
        finally:
            server.shutdown()
            server.server_close()
            roomcast.subscriptions.delete(room_id, subscription.id)
    return received


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 8080)

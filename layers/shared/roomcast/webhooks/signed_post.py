"""One signed POST to a subscription's push URL: a message's webhook (push_worker.webhook) or a
recovery probe (outbox_worker.probes), signed with every secret live at the moment. A host that
does not resolve is a network error (DNS may be down for a moment); a URL that now resolves where
roomcast never sends raises PushUrlRejected."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from roomcast.catalog import Subscription
from roomcast.webhooks.answers import HttpResult
from roomcast.webhooks.signing import webhook_headers
from roomcast.webhooks.urls import PushUrlPolicy, PushUrlUnresolvable

# roomcast.webhooks.http.post_webhook, or a test's stand-in.
PostWebhook = Callable[..., HttpResult]


def post_signed(
    post: PostWebhook,
    subscription: Subscription,
    message_id: str,
    correlation_id: str,
    body: bytes,
    policy: PushUrlPolicy,
    now_ms: int,
    traceparent: str | None = None,
    *,
    url: str | None = None,
    method: str = "POST",
    headers: Mapping[str, str] | None = None,
) -> HttpResult:
    """``traceparent``: the publish's W3C trace context, sent as the header of that name. ``url``,
    ``method`` and ``headers``: a transformation's (the subscription's URL and POST otherwise) and
    the format's (a CloudEvent's content type and ``ce-*`` headers), over the signature's."""
    secrets = [s.secret for s in subscription.signing_secrets if s.active(now_ms)]
    sent = webhook_headers(message_id, now_ms // 1000, body, secrets, correlation_id)
    if traceparent is not None:
        sent["traceparent"] = traceparent
    sent |= headers or {}
    target = url or subscription.push_url or ""
    try:
        return post(target, body, sent, subscription.request_timeout_ms, policy, method=method)
    except PushUrlUnresolvable as unresolved:
        return HttpResult(None, None, str(unresolved), 0, "")

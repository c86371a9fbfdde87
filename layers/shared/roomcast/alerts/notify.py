"""An alert's notification, sent where its rule says: a signed webhook (Standard Webhooks, the
rule's own secret), a Slack-compatible incoming webhook (``{"text": ...}``), or an e-mail through
the stack's SNS topic (a subscription per address, filtered on the rule)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from roomcast.alerts.model import AlertEvent, AlertRule, AlertState
from roomcast.platform import ms_from_iso
from roomcast.webhooks import HttpResult, PushUrlPolicy, PushUrlRejected, post_webhook, webhook_headers

NOTIFY_TIMEOUT_MS: Final = 5_000
EVENT_TYPE: Final = "roomcast.alert"
# The SNS message attribute each address's subscription filters on: the tenant and the rule.
RULE_ATTRIBUTE: Final = "alertRule"

type Post = Callable[..., HttpResult]


def body(rule: AlertRule, event: AlertEvent) -> dict[str, Any]:
    """What every notification says, as JSON: the rule, its new state and the value measured."""
    condition = rule.condition
    threshold: Any = condition.below if condition.below is not None else condition.above
    if condition.states:
        threshold = list(condition.states)
    return {
        "type": EVENT_TYPE,
        "ruleId": rule.id,
        "name": rule.name,
        "state": change_name(event.state),
        "metric": condition.metric.value,
        "value": event.value,
        "threshold": threshold,
        "windowMinutes": condition.window_minutes,
        "scope": {"roomId": rule.room_id, "subscriptionId": rule.subscription_id},
        "at": event.at,
    }


def change_name(moved_to: AlertState) -> str:
    """What a move is called: ``firing``, or ``resolved`` for a move back to ok."""
    return "firing" if moved_to is AlertState.FIRING else "resolved"


def text(rule: AlertRule, event: AlertEvent) -> str:
    """The notification in a line, for Slack and e-mail."""
    word = "FIRING" if event.state is AlertState.FIRING else "resolved"
    where = rule.subscription_id or rule.room_id or "all rooms"
    measured = f"{rule.condition.metric.value} = {event.value}"
    return f"[roomcast] {word}: {rule.name} — {measured} ({where}, {event.at})"


def rule_filter_value(rule: AlertRule) -> str:
    return f"{rule.tenant_id}#{rule.id}"


@dataclass
class Notifier:
    """Sends notifications; ``sns`` and ``topic_arn`` for e-mail (None: e-mail is not set up)."""

    policy: PushUrlPolicy
    post: Post = post_webhook
    sns: Any = None
    topic_arn: str | None = None

    def send(self, rule: AlertRule, event: AlertEvent) -> str | None:
        """Send one notification: None when it went out, else why not."""
        payload = body(rule, event)
        if rule.notify.webhook_url is not None:
            raw = json.dumps(payload, separators=(",", ":")).encode()
            notification_id = f"alert_{rule.id}_{ms_from_iso(event.at)}"
            headers = webhook_headers(
                notification_id, ms_from_iso(event.at) // 1000, raw, [rule.signing_secret], rule.id
            )
            return self._posted(rule.notify.webhook_url, raw, headers)
        if rule.notify.slack_url is not None:
            raw = json.dumps({"text": text(rule, event), "roomcast": payload}).encode()
            return self._posted(rule.notify.slack_url, raw, {"content-type": "application/json"})
        if rule.notify.email is not None:
            if self.sns is None or not self.topic_arn:
                return "e-mail notifications are not set up in this stack"
            self.sns.publish(
                TopicArn=self.topic_arn,
                Subject=text(rule, event)[:100],
                Message=json.dumps(payload, indent=2),
                MessageAttributes={
                    RULE_ATTRIBUTE: {"DataType": "String", "StringValue": rule_filter_value(rule)}
                },
            )
            return None
        return "the rule has nowhere to notify"

    def _posted(self, url: str, raw: bytes, headers: dict[str, str]) -> str | None:
        try:
            result = self.post(url, raw, headers, NOTIFY_TIMEOUT_MS, self.policy)
        except PushUrlRejected as rejected:
            return str(rejected)
        if result.status is not None and 200 <= result.status < 300:
            return None
        return result.error or f"HTTP {result.status}"

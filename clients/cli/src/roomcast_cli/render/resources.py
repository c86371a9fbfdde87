"""What a tenant sets up: rooms, subscriptions (their one-time secrets and retry schedule) and API
keys, from the API's JSON."""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text

from roomcast_cli.render.blocks import add_row, details, new_table, page_table, shown_once
from roomcast_cli.render.text import Json, event_types_text, show_time, show_value


def _room_cells(room: Json) -> tuple[str, ...]:
    return (
        room["id"],
        room["name"],
        str(room["deliveryDelayMs"]),
        show_value(room["deliveryDelayMultiplier"]),
        str(room["deliveryAttempts"]),
        show_value(room.get("messageExpirationMs")),
        event_types_text(room.get("eventTypes")),
    )


def rooms_table(page: Json) -> list[RenderableType]:
    columns = ("ID", "NAME", "DELAY MS", "MULTIPLIER", "RETRIES", "EXPIRATION MS", "EVENT TYPES")
    return page_table(page, "rooms", columns, _room_cells, empty="no rooms")


def _subscription_cells(subscription: Json) -> tuple[str, ...]:
    attempts = subscription.get("deliveryAttempts")
    return (
        subscription["id"],
        subscription["type"],
        subscription["status"],
        subscription.get("pushUrl") or "pull queue",
        event_types_text(subscription.get("eventTypes")),
        show_value(attempts) + ("" if attempts is not None else " (room's)"),
    )


def subscriptions_table(page: Json) -> list[RenderableType]:
    columns = ("ID", "TYPE", "STATUS", "TARGET", "EVENT TYPES", "RETRIES")
    return page_table(page, "subscriptions", columns, _subscription_cells, empty="no subscriptions")


def subscription_details(subscription: Json) -> list[RenderableType]:
    """A subscription; a new secret (create, rotate) is called out, since it is shown only once."""
    shown: list[RenderableType] = [details(subscription, hide=("signingSecret",))]
    secret = subscription.get("signingSecret")
    if secret:
        shown.append(shown_once("signing secret", secret))
    return shown


def rotated_secret(rotated: Json) -> list[RenderableType]:
    until = rotated.get("previousSecretsValidUntil")
    lines: list[RenderableType] = [shown_once("new signing secret", rotated["signingSecret"])]
    if until:
        lines.append(Text(f"the previous secrets keep signing until {show_time(until)} UTC"))
    return lines


def schedule_table(preview: Json) -> list[RenderableType]:
    table = new_table("ATTEMPT", "WAIT BEFORE", "SINCE PUBLISH", "")
    for attempt in preview["attempts"]:
        add_row(
            table,
            str(attempt["attempt"]),
            f"{attempt['delayMs'] / 1000:g} s",
            f"{attempt['sincePublishMs'] / 1000:g} s",
            "cut by expiry" if attempt.get("cutByExpiry") else "",
        )
    return [
        Text(f"policy of {preview['subscriptionId']}", style="bold"),
        details(preview["policy"]),
        table,
        Text(preview.get("note", ""), style="dim"),
    ]


def _api_key_cells(key: Json) -> tuple[str, ...]:
    return (
        key["keyId"],
        key.get("name") or "",
        ",".join(key.get("scopes") or ("admin",)),
        ",".join(key.get("rooms") or ()) or "every room",
        show_time(key.get("createdAt")),
        "current" if key.get("current") else "",
    )


def api_keys_table(page: Json) -> list[RenderableType]:
    headers = ("KEY ID", "NAME", "SCOPES", "ROOMS", "CREATED", "")
    return page_table(page, "apiKeys", headers, _api_key_cells, empty=None)


def portal_session(created: Json) -> list[RenderableType]:
    """A new portal session: what it reaches, and its URL and token (shown once)."""
    return [details(created, hide=("token", "url", "brand")), shown_once("portal URL", created["url"])]


def created_api_key(created: Json) -> list[RenderableType]:
    return [details(created, hide=("key",)), shown_once("API key", created["key"])]


def _paused_key_cells(key: Json) -> tuple[str, ...]:
    return (
        key["orderingKey"],
        show_time(key.get("pausedAt")),
        key.get("deadMessageId") or "",
        key.get("reason") or "",
    )


def paused_keys_table(listed: Json) -> list[RenderableType]:
    return page_table(
        listed,
        "orderingKeys",
        ("KEY", "PAUSED AT", "DEAD MESSAGE", "REASON"),
        _paused_key_cells,
        empty="no paused keys",
    )

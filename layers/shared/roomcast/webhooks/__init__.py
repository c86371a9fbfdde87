"""Webhooks: push URLs and their safety, the signed POST, Standard Webhooks signatures, a receiver's
answers and the contract a receiver implements (ADR 0012).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.webhooks.answers import (
        AnswerClass as AnswerClass,
        DeliveryControl as DeliveryControl,
        HttpResult as HttpResult,
        classify as classify,
        is_gone as is_gone,
    )
    from roomcast.webhooks.cloudevents import (
        CloudEvent as CloudEvent,
        binary as binary,
        structured as structured,
    )
    from roomcast.webhooks.contract import (
        receiver_responses as receiver_responses,
        signing_parameters as signing_parameters,
        webhook_body_schema as webhook_body_schema,
    )
    from roomcast.webhooks.handshake import (
        Consent as Consent,
        HandshakeRefused as HandshakeRefused,
        validation_handshake as validation_handshake,
    )
    from roomcast.webhooks.http import post_webhook as post_webhook
    from roomcast.webhooks.signed_post import PostWebhook as PostWebhook, post_signed as post_signed
    from roomcast.webhooks.signing import webhook_headers as webhook_headers
    from roomcast.webhooks.urls import (
        PushUrlPolicy as PushUrlPolicy,
        PushUrlRejected as PushUrlRejected,
        Resolver as Resolver,
        check_push_url as check_push_url,
        check_requested_url as check_requested_url,
        system_resolver as system_resolver,
    )

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)

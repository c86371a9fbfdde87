"""What every capability uses: errors, the clock and ids, limits, configuration, observability,
work after the answer, the AWS clients, the table's access and its items and pages, the stack's
secrets, and the lazy entry points of the capability packages.

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.platform import after_answer as after_answer, ids as ids, items as items, limits as limits
    from roomcast.platform.aws import (
        SqsAccess as SqsAccess,
        client_config as client_config,
        firehose_client as firehose_client,
        scheduler_client as scheduler_client,
        sns_client as sns_client,
    )
    from roomcast.platform.clock import (
        DAY_MS as DAY_MS,
        HOUR_MS as HOUR_MS,
        MINUTE_MS as MINUTE_MS,
        SECOND_MS as SECOND_MS,
        iso_from_ms as iso_from_ms,
        iso_timestamp as iso_timestamp,
        ms_from_iso as ms_from_iso,
        now_iso as now_iso,
        now_ms as now_ms,
        utc_now as utc_now,
    )
    from roomcast.platform.config import Settings as Settings, load_settings as load_settings
    from roomcast.platform.credentials import (
        API_KEY_ID_PATTERN as API_KEY_ID_PATTERN,
        API_KEY_PREFIX as API_KEY_PREFIX,
        SIGNING_SECRET_PREFIX as SIGNING_SECRET_PREFIX,
        hash_api_key as hash_api_key,
        new_api_key as new_api_key,
        new_api_key_id as new_api_key_id,
        new_signing_secret as new_signing_secret,
    )
    from roomcast.platform.errors import (
        Conflict as Conflict,
        InvalidRequest as InvalidRequest,
        LimitExceeded as LimitExceeded,
        NotFound as NotFound,
        PushOnly as PushOnly,
        RoomcastError as RoomcastError,
    )
    from roomcast.platform.fields import (
        camel as camel,
        camel_fields as camel_fields,
        from_camel_fields as from_camel_fields,
    )
    from roomcast.platform.items import Item as Item, tenant_key as tenant_key
    from roomcast.platform.limits import (
        DEFAULT_PUSH_TIMEOUT_MS as DEFAULT_PUSH_TIMEOUT_MS,
        MAX_API_KEYS_PER_TENANT as MAX_API_KEYS_PER_TENANT,
        MAX_FAILOVER_CHAIN_LENGTH as MAX_FAILOVER_CHAIN_LENGTH,
        MAX_LIVE_SIGNING_SECRETS as MAX_LIVE_SIGNING_SECRETS,
        MAX_PAGE_SIZE as MAX_PAGE_SIZE,
        MAX_PUSH_URL_LENGTH as MAX_PUSH_URL_LENGTH,
        REPLAY_BATCH as REPLAY_BATCH,
    )
    from roomcast.platform.observability import (
        METRICS_NAMESPACE as METRICS_NAMESPACE,
        SERVICE_NAME as SERVICE_NAME,
        logger as logger,
        metrics as metrics,
    )
    from roomcast.platform.pages import (
        MAX_POSITION_VALUE_LENGTH as MAX_POSITION_VALUE_LENGTH,
        Page as Page,
        Position as Position,
        invalid_cursor as invalid_cursor,
        position_value as position_value,
    )
    from roomcast.platform.payloads import (
        JsonValue as JsonValue,
        check_payload_size as check_payload_size,
        payload_text as payload_text,
        value_count as value_count,
    )
    from roomcast.platform.secrets import StackSecrets as StackSecrets
    from roomcast.platform.table import (
        BATCH_WRITE_MAX_ITEMS as BATCH_WRITE_MAX_ITEMS,
        Key as Key,
        TableAccess as TableAccess,
        is_condition_failure as is_condition_failure,
        key as key,
    )
    from roomcast.platform.tracing import traceparent as traceparent

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)

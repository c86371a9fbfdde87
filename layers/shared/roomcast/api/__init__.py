"""The HTTP API's plumbing every API function shares: the handler, guards, errors, models, routes
with their OpenAPI, the tenant, list cursors and the tenants' request rate.

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.api.cursors import (
        MAX_CURSOR_LENGTH as MAX_CURSOR_LENGTH,
        ListCursors as ListCursors,
        TenantCursors as TenantCursors,
        list_scope as list_scope,
    )
    from roomcast.api.documented_routes import Decorator as Decorator, Routes as Routes
    from roomcast.api.errors import (
        error_response as error_response,
        install_error_handlers as install_error_handlers,
        validation_error as validation_error,
    )
    from roomcast.api.handlers import (
        http_handler as http_handler,
        new_api as new_api,
        with_nosniff as with_nosniff,
    )
    from roomcast.api.models import (
        EVENT_TYPE_NAME_PATTERN as EVENT_TYPE_NAME_PATTERN,
        EVENT_VERSION_PATTERN as EVENT_VERSION_PATTERN,
        FILTERED_OUT_DESCRIPTION as FILTERED_OUT_DESCRIPTION,
        INTEGRAL as INTEGRAL,
        NOT_NULL as NOT_NULL,
        SCHEMA_ERRORS_DESCRIPTION as SCHEMA_ERRORS_DESCRIPTION,
        ApiModel as ApiModel,
        ErrorBody as ErrorBody,
        EventTypeName as EventTypeName,
        EventVersion as EventVersion,
        FilteredOutView as FilteredOutView,
        Instant as Instant,
        MessageView as MessageView,
        ResponseModel as ResponseModel,
        RoomId as RoomId,
        SubscriptionId as SubscriptionId,
        ZonedInstant as ZonedInstant,
        examples as examples,
    )
    from roomcast.api.openapi import link as link
    from roomcast.api.tenancy import (
        Access as Access,
        CallerAccess as CallerAccess,
        CallerKeyId as CallerKeyId,
        Origin as Origin,
        Tenant as Tenant,
    )
    from roomcast.api.throttle import TenantThrottle as TenantThrottle

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)

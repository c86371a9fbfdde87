"""Transformations: a subscription's JavaScript ``handler(webhook)`` that reshapes each delivery (or
cancels it), run in a V8 isolate with a hard time and memory limit, never in Python (issue 53;
docs/transformations.md, ADR 0050).

Entry points: the names below (other capabilities and the functions import only these);
imported when first used (roomcast.platform.entry_points)."""

from typing import TYPE_CHECKING

from roomcast.platform.entry_points import lazy_entry_points

if TYPE_CHECKING:
    from roomcast.transformations.model import (
        MAX_SOURCE_BYTES as MAX_SOURCE_BYTES,
        MEMORY_LIMIT_BYTES as MEMORY_LIMIT_BYTES,
        TIME_LIMIT_MS as TIME_LIMIT_MS,
        Transformation as Transformation,
        TransformationFailed as TransformationFailed,
        Transformed as Transformed,
        changed_to as changed_to,
        rolled_back as rolled_back,
    )
    from roomcast.transformations.sandbox import (
        InvalidTransformation as InvalidTransformation,
        check_source as check_source,
        run_transformation as run_transformation,
    )
    from roomcast.transformations.shape import (
        WebhookShape as WebhookShape,
        read_output as read_output,
    )

if not TYPE_CHECKING:
    __getattr__ = lazy_entry_points(__name__, __file__)

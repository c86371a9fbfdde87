"""Helpers shared by the test tiers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[1]
EVENTS_DIR = PROJECT_ROOT / "events"
SAMPLE_API_KEY = "rc_sample_key_for_sam_local_invoke_0000000000"
SAMPLE_TENANT = "sample"


def sample_events() -> list[Path]:
    return sorted(EVENTS_DIR.glob("*.json"))


def function_of(event_file: Path) -> str:
    """events/management-create-room.json -> ManagementFunction."""
    return event_file.stem.split("-", 1)[0].capitalize() + "Function"


def load_event(event_file: Path) -> dict[str, Any]:
    event: dict[str, Any] = json.loads(event_file.read_text(encoding="utf-8"))
    return event


class FakeLambdaContext:
    """The attributes of Lambda's context object that handlers and powertools read."""

    function_name = "test-function"
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:test-function"
    aws_request_id = "00000000-0000-0000-0000-000000000000"
    log_group_name = "/aws/lambda/test-function"
    log_stream_name = "test"

    def get_remaining_time_in_millis(self) -> int:
        return 30_000

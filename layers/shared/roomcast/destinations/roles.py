"""The customer's role, assumed with its external ID, and the clients made with its credentials:
cached per container (per role, external ID, service and region) until five minutes before the
credentials expire. Thread-safe: a push batch's deliveries share them, and one role's AssumeRole
(a network call) holds up only the sends that need that role."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from roomcast.platform import client_config

RENEW_BEFORE_S = 300  # credentials are renewed this long before they expire
SESSION_SECONDS = 3600
SESSION_NAME = "roomcast-delivery"


class RoleRefused(Exception):
    """AssumeRole failed: ``code`` is AWS's error code (AccessDenied for a trust policy that does not
    trust roomcast or asks another external ID)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


@dataclass
class _Held:
    credentials: dict[str, Any]
    renew_at: float
    clients: dict[tuple[str, str], Any]


class AssumedRoles:
    """``client(role_arn, external_id, service, region)``: a client acting as the customer's role."""

    def __init__(self, sts: Callable[[], Any] | None = None, clock: Callable[[], float] = time.time) -> None:
        self._sts = sts or _sts_client
        self._clock = clock
        self._held: dict[tuple[str, str], _Held] = {}
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._locks_lock = threading.Lock()

    def client(self, role_arn: str, external_id: str, service: str, region: str) -> Any:
        key = (role_arn, external_id)
        with self._lock_of(key):
            held = self._held.get(key)
            if held is None or self._clock() >= held.renew_at:
                held = self._assume(role_arn, external_id)
                self._held[key] = held
            made = held.clients.get((service, region))
            if made is None:
                made = _client_as(held.credentials, service, region)
                held.clients[(service, region)] = made
            return made

    def forget(self, role_arn: str, external_id: str) -> None:
        """Drop a role's credentials (after AWS refused them): the next send assumes it again."""
        key = (role_arn, external_id)
        with self._lock_of(key):
            self._held.pop(key, None)

    def _lock_of(self, key: tuple[str, str]) -> threading.Lock:
        with self._locks_lock:
            return self._locks.setdefault(key, threading.Lock())

    def _assume(self, role_arn: str, external_id: str) -> _Held:
        from botocore.exceptions import ClientError

        try:
            answer = self._sts().assume_role(
                RoleArn=role_arn,
                RoleSessionName=SESSION_NAME,
                ExternalId=external_id,
                DurationSeconds=SESSION_SECONDS,
            )
        except ClientError as error:
            details = error.response.get("Error", {})
            raise RoleRefused(str(details.get("Code", "Error")), str(details.get("Message", ""))) from error
        credentials = answer["Credentials"]
        expires = credentials["Expiration"]
        expires_s = expires.timestamp() if hasattr(expires, "timestamp") else self._clock() + SESSION_SECONDS
        return _Held(credentials, expires_s - RENEW_BEFORE_S, {})


def _sts_client() -> Any:
    import boto3

    return boto3.client("sts", config=client_config())


def _client_as(credentials: dict[str, Any], service: str, region: str) -> Any:
    import boto3

    return boto3.client(  # type: ignore[call-overload]
        service,
        region_name=region,
        aws_access_key_id=credentials["AccessKeyId"],
        aws_secret_access_key=credentials["SecretAccessKey"],
        aws_session_token=credentials["SessionToken"],
        config=client_config(),
    )

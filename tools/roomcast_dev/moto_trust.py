"""AssumeRole as AWS decides it (moto assumes any role ARN, existing or not, whatever its trust
policy says): the role must exist in its account, and its trust policy must allow the caller
``sts:AssumeRole`` with the external ID its ``sts:ExternalId`` condition asks for. That is what
makes a wrong external ID fail on the local stack as it does on AWS (AWS destinations, issue 53).

The caller is a function's role (roomcast_dev.moto_iam's registered keys) or, for anyone else, its
account's root. A statement's principal matches ``*``, the caller's ARN, its account's root or
its account's id; of its conditions only ``StringEquals`` on ``sts:ExternalId`` is evaluated.
"""

from __future__ import annotations

import json
import threading
from typing import Any
from urllib.parse import unquote

_installed = threading.Lock()
_state = {"done": False}
_EXTERNAL_ID = "sts:ExternalId"


def assume_role_checks_trust() -> None:
    """Install the check in this process (idempotent)."""
    from moto.sts.responses import TokenResponse

    with _installed:
        if _state["done"]:
            return
        original = TokenResponse.assume_role

        def assume_role(self: Any) -> Any:
            role_arn = str(self._get_param("RoleArn") or "")
            caller, account = _caller(self)
            problem = _refusal(role_arn, self._get_param("ExternalId"), caller, account)
            if problem is not None:
                from moto.core.exceptions import AccessDeniedError

                raise AccessDeniedError(caller, f"sts:AssumeRole on resource: {role_arn} ({problem})")
            return original(self)

        TokenResponse.assume_role = assume_role  # type: ignore[method-assign]
        _state["done"] = True


def _caller(response: Any) -> tuple[str, str]:
    """The caller's ARN and account: a function's role, or its account's root."""
    from roomcast_dev.moto_iam import registered_role_name

    account = str(response.current_account)
    role_name = registered_role_name(response.headers.get("Authorization", ""))
    if role_name is not None:
        return f"arn:aws:iam::{account}:role/{role_name}", account
    return f"arn:aws:iam::{account}:root", account


def _refusal(role_arn: str, external_id: str | None, caller: str, account: str) -> str | None:
    """Why AWS would refuse, or None."""
    from moto.iam.models import iam_backends

    parts = role_arn.split(":")
    if len(parts) < 6 or parts[2] != "iam":
        return "not a role ARN"
    try:
        role = iam_backends[parts[4]]["aws"].get_role_by_arn(role_arn)
    except Exception:  # moto's IAMNotFoundException: no such role in that account
        return "no such role"
    document = role.assume_role_policy_document
    policy = json.loads(unquote(document) if isinstance(document, str) else json.dumps(document))
    statements = policy.get("Statement", [])
    for statement in statements if isinstance(statements, list) else [statements]:
        if _allows(statement, caller, account, external_id):
            return None
    return "its trust policy does not trust the caller with this external ID"


def _allows(statement: dict[str, Any], caller: str, account: str, external_id: str | None) -> bool:
    actions = statement.get("Action", [])
    actions = [actions] if isinstance(actions, str) else actions
    if statement.get("Effect") != "Allow" or not ({"sts:AssumeRole", "sts:*", "*"} & set(actions)):
        return False
    principal = statement.get("Principal", {})
    named = principal.get("AWS", []) if isinstance(principal, dict) else principal
    named = [named] if isinstance(named, str) else named
    if not {"*", caller, f"arn:aws:iam::{account}:root", account} & set(named):
        return False
    wanted = statement.get("Condition", {}).get("StringEquals", {}).get(_EXTERNAL_ID)
    if wanted is None:
        return True
    return external_id in ([wanted] if isinstance(wanted, str) else wanted)

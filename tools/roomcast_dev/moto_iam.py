"""IAM enforcement in moto for the functions' roles (roomcast_dev.local_iam; ADR 0036).

moto can enforce IAM (``INITIAL_NO_AUTH_ACTION_COUNT``), but only for the whole process, for keys
it issued, and against the resource ``*`` for every service but SQS and S3, so a policy that names
a table or a stream would allow nothing. This patch enforces instead only for the keys registered
here, the functions' role sessions, with each request's resources as AWS names them:

- DynamoDB: the table (``…/index/<name>`` for a query of an index); a batch, each table it names;
  a transaction, each item's own action (``dynamodb:PutItem``, ``UpdateItem``, ``DeleteItem``,
  ``ConditionCheckItem``; ``GetItem`` in a read transaction) on its table, as AWS authorizes it;
  a PartiQL statement (alone or in a batch), ``dynamodb:PartiQL<Verb>`` on the table it names;
- Firehose: the delivery stream; Secrets Manager: the secret's ARN without its random suffix;
- EventBridge Scheduler: the schedule (``schedule/<group>/<name>``); SNS: the topic it names;
- SQS: a batch action is authorized as its single one (``SendMessageBatch`` as
  ``sqs:SendMessage``), on the queue's ARN (moto's, or the one the request names for a queue
  still to be made); S3: the bucket or object, as moto determines them.

A statement is matched by moto's own policy evaluation (an explicit Deny wins; ``*`` wildcards);
conditions are not evaluated. A call no statement allows answers 403 ``AccessDenied``, as on AWS.
Everything else, the operator, the tests and the stack's own pollers, is not checked, like an
administrator's calls on AWS.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import re
import threading
from collections import deque
from collections.abc import Iterable
from typing import Any

_ROLES: dict[str, tuple[str, tuple[Any, ...]]] = {}  # access key id -> (role, moto IAMPolicy objects)
_REFUSED: deque[tuple[str, str, str]] = deque(maxlen=1000)
_USED: set[tuple[str, str, str]] = set()
# Set to a path, each process using the roles writes there what they were allowed (path.<pid>):
# what the code calls, to cut the template's grants to (docs/decisions/0036-local-iam.md).
USAGE_FILE_VARIABLE = "ROOMCAST_IAM_USAGE_FILE"
# Logged, so that `make run`'s terminal shows a refusal where it happened.
_log = logging.getLogger(__name__)
_installed = threading.Lock()
_state = {"done": False}
_CREDENTIAL = re.compile(r"Credential=([^/]+)/[^/]+/([^/]+)/([^/]+)/")
_TRANSACT_ACTIONS = {"Put": "PutItem", "Update": "UpdateItem", "Delete": "DeleteItem"}
_TRANSACT_ACTIONS |= {"ConditionCheck": "ConditionCheckItem", "Get": "GetItem"}
_JSON_SERVICES = ("dynamodb", "firehose", "secretsmanager")
# A PartiQL statement's verb and table: IAM authorizes it as dynamodb:PartiQL<Verb> on the table.
_PARTIQL = re.compile(
    r'\s*(?P<verb>SELECT|INSERT|UPDATE|DELETE)\b.*?(?:\b(?:INTO|FROM|UPDATE)\s+)?"(?P<table>(?:[^"]|"")+)"',
    re.IGNORECASE | re.DOTALL,
)


def allowed_calls() -> set[tuple[str, str, str]]:
    """The calls allowed so far in this process: (role, IAM action, resource)."""
    return set(_USED)


def refusals() -> list[tuple[str, str, str]]:
    """The calls refused so far in this process, oldest first: (role, IAM action, resource)."""
    return list(_REFUSED)


def register_role(access_key_id: str, role_name: str, policies: Iterable[dict[str, Any]]) -> None:
    """Calls signed with ``access_key_id`` are allowed what ``policies`` allow, nothing else."""
    from moto.iam.access_control import IAMPolicy

    _ROLES[access_key_id] = (role_name, tuple(IAMPolicy(json.dumps(policy)) for policy in policies))


def registered_role_name(authorization: str) -> str | None:
    """The function's role whose key signed a request (its Authorization header), or None."""
    found = _CREDENTIAL.search(authorization)
    return None if found is None or found.group(1) not in _ROLES else _ROLES[found.group(1)][0]


def enforce_registered_roles() -> None:
    """Check every call made with a registered key against its role (idempotent)."""
    from moto.core.authorization import ActionAuthenticatorMixin

    with _installed:
        if _state["done"]:
            return

        def authorize(self: Any, iam_request_cls: type, resource: str = "*") -> None:
            found = _CREDENTIAL.search(self.headers.get("Authorization", ""))
            if found is None or found.group(1) not in _ROLES:
                return  # not a function's role: unrestricted, as before
            role_name, policies = _ROLES[found.group(1)]
            service, action = found.group(3), self._get_action()
            for iam_action, arn in _checks(service, action, self, resource):
                if _allowed(policies, iam_action, arn):
                    _USED.add((role_name, iam_action, arn))
                    continue
                _REFUSED.append((role_name, iam_action, arn))
                _log.warning(f"[iam] {role_name} may not {iam_action} on {arn} (not in template.yaml)")
                session = f"arn:aws:sts::{self.current_account}:assumed-role/{role_name}/local"
                raise _denied(service, session, iam_action, arn)

        ActionAuthenticatorMixin._authenticate_and_authorize_action = authorize  # type: ignore[method-assign]
        _state["done"] = True
        if usage_file := os.environ.get(USAGE_FILE_VARIABLE):
            atexit.register(_write_usage, usage_file)


def _write_usage(path: str) -> None:
    """Append the calls the roles were allowed in this process, one JSON line each."""
    with open(f"{path}.{os.getpid()}", "a", encoding="utf-8") as file:
        for role, action, resource in sorted(_USED):
            file.write(json.dumps({"role": role, "action": action, "resource": resource}) + "\n")


def _denied(service: str, session: str, action: str, resource: str) -> Exception:
    """AWS's refusal: ``AccessDeniedException`` in a JSON body from the JSON services,
    ``AccessDenied`` in XML from the others."""
    from moto.core.exceptions import AccessDeniedError, JsonRESTError

    message = f"User: {session} is not authorized to perform: {action} on resource: {resource}"
    if service not in _JSON_SERVICES:
        return AccessDeniedError(session, f"{action} on resource: {resource}")
    error = JsonRESTError("AccessDeniedException", message)
    error.code = 403
    return error


def _allowed(policies: tuple[Any, ...], action: str, resource: str) -> bool:
    from moto.iam.access_control import PermissionResult

    allowed = False
    for policy in policies:  # moto's IAMPolicy, parsed once when the role was registered
        result = policy.is_action_permitted(action, resource)
        if result == PermissionResult.DENIED:
            return False
        allowed = allowed or result == PermissionResult.PERMITTED
    return allowed


def _checks(service: str, action: str, response: Any, resource: str) -> list[tuple[str, str]]:
    """(IAM action, resource ARN) pairs the request needs, all of them."""
    if service == "sqs":  # a batch needs its single action (AWS has no sqs:SendMessageBatch)
        action = action.removesuffix("Batch")
    if service == "sts":  # the query protocol: the role to assume is a parameter of the request
        return [(f"sts:{action}", str(response._get_param("RoleArn") or "*"))]
    if resource != "*" or service not in (*_JSON_SERVICES, "sqs", "scheduler", "sns"):
        return [(f"{service}:{action}", resource)]
    body: dict[str, Any] = response.body if isinstance(response.body, dict) else _json_body(response.raw_body)
    region, account = response.region, response.current_account
    if service == "scheduler":  # REST: the schedule's name ends the path, its group is in the body
        name = str(response.path).rstrip("/").rsplit("/", 1)[-1]
        group = body.get("GroupName") or "default"
        return [(f"scheduler:{action}", f"arn:aws:scheduler:{region}:{account}:schedule/{group}/{name}")]
    if service == "sqs":  # a queue moto does not know (yet): named by the request
        queue = str(body.get("QueueName") or body.get("QueueUrl", "*")).rsplit("/", 1)[-1]
        return [(f"sqs:{action}", f"arn:aws:sqs:{region}:{account}:{queue}" if queue != "*" else "*")]
    if service == "sns":  # the query protocol: the topic is a parameter of the request
        return [(f"sns:{action}", str(response._get_param("TopicArn") or "*"))]
    if service == "firehose":
        stream = body.get("DeliveryStreamName", "*")
        return [(f"firehose:{action}", f"arn:aws:firehose:{region}:{account}:deliverystream/{stream}")]
    if service == "secretsmanager":
        secret = str(body.get("SecretId", "*"))
        name = (
            re.sub(r"-[A-Za-z0-9]{6}$", "", secret.rsplit(":", 1)[-1])
            if secret.startswith("arn:")
            else secret
        )
        return [(f"secretsmanager:{action}", f"arn:aws:secretsmanager:{region}:{account}:secret:{name}")]
    return _dynamodb_checks(action, body, f"arn:aws:dynamodb:{region}:{account}:table/")


def _partiql_check(statement: str, table_arn: str) -> tuple[str, str]:
    """``dynamodb:PartiQLInsert`` (Select, Update, Delete) on the statement's table; a statement
    that names no quoted table is checked against every table (``*``)."""
    parsed = _PARTIQL.match(statement)
    if parsed is None:
        return ("dynamodb:PartiQLSelect", table_arn + "*")
    return (f"dynamodb:PartiQL{parsed['verb'].capitalize()}", table_arn + parsed["table"].replace('""', '"'))


def _json_body(raw: bytes | str | None) -> dict[str, Any]:
    """The request's JSON body (DynamoDB's moto has parsed it already; the others have not)."""
    parsed: dict[str, Any] = json.loads(raw) if raw and raw.lstrip()[:1] in (b"{", "{") else {}
    return parsed


def _dynamodb_checks(action: str, body: dict[str, Any], table_arn: str) -> list[tuple[str, str]]:
    if action in ("BatchGetItem", "BatchWriteItem"):
        return [(f"dynamodb:{action}", table_arn + table) for table in body.get("RequestItems", {})]
    if action in ("TransactWriteItems", "TransactGetItems"):
        checks = []
        for item in body.get("TransactItems", []):
            for kind, operation in item.items():
                checks.append((f"dynamodb:{_TRANSACT_ACTIONS[kind]}", table_arn + operation["TableName"]))
        return checks
    if action in ("BatchExecuteStatement", "ExecuteStatement"):
        statements = body.get("Statements", []) if action == "BatchExecuteStatement" else [body]
        return [_partiql_check(str(statement.get("Statement", "")), table_arn) for statement in statements]
    table = table_arn + str(body.get("TableName", "*"))
    if body.get("IndexName"):
        table += f"/index/{body['IndexName']}"
    return [(f"dynamodb:{action}", table)]

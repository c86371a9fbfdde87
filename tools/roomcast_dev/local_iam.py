"""Each function's template role on the local stack: its own credentials, and the emulator
enforcing the role's policies on every call made with them (docs/decisions/0036-local-iam.md).

The roles are the ones ``sam deploy`` would create: the template goes through samtranslator (SAM's
own translator, which expands policy templates such as ``DynamoDBCrudPolicy`` and adds the managed
policies an event source needs), and every intrinsic is resolved against the local stack's names.
A function's credentials are fixed by the stack's and the function's names, so a worker started by
``make invoke`` carries the same ones as the stack's own workers, and an emulator reset changes
nothing. ``roomcast_dev.moto_iam`` checks each call made with them against the role's policies;
every other caller (the stack's pollers, the tests, the operator) stays unrestricted, as an
administrator is on AWS.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from roomcast_dev.template_intrinsics import Resolver

_PLACEHOLDER_CODE = "s3://local-artifacts/code.zip"  # what `sam package` would have put there


@dataclass(frozen=True)
class FunctionRole:
    """A function's role: its policy documents and the credentials its workers carry."""

    function_id: str
    policies: tuple[dict[str, Any], ...]
    access_key_id: str
    secret_access_key: str
    session_token: str

    def environment(self) -> dict[str, str]:
        """The variables Lambda sets for a function's role session."""
        return {
            "AWS_ACCESS_KEY_ID": self.access_key_id,
            "AWS_SECRET_ACCESS_KEY": self.secret_access_key,
            "AWS_SESSION_TOKEN": self.session_token,
        }


def credentials(stack_name: str, function_id: str) -> tuple[str, str, str]:
    """The function's role session credentials on this local stack (an STS key starts ``ASIA``)."""
    digest = hashlib.sha256(f"{stack_name}/{function_id}".encode()).hexdigest().upper()
    return f"ASIA{digest[:16]}", digest[16:56], f"local-session-{digest[56:]}"


class _RoleResolver(Resolver):
    """Resolves as the local stack does, except that a secret's Ref is its ARN (without the
    random suffix Secrets Manager adds), as CloudFormation's Ref of a secret is."""

    def ref(self, name: str) -> str:
        resource = self._resources.get(name)
        if resource is not None and resource["Type"] == "AWS::SecretsManager::Secret":
            account = self._pseudo["AWS::AccountId"]
            return f"arn:aws:secretsmanager:{self._region}:{account}:secret:{self.physical_name(name)}"
        return super().ref(name)


@cache
def _managed_policies() -> dict[str, Any]:
    from moto.iam.aws_managed_policies import aws_managed_policies_data

    data: dict[str, Any] = json.loads(aws_managed_policies_data)
    return data


def _translated(template_text: str, region: str) -> dict[str, Any]:
    """The template as CloudFormation receives it from SAM (roles and their policies spelled out)."""
    import boto3
    from samtranslator.parser.parser import Parser
    from samtranslator.translator.translator import Translator
    from samtranslator.yaml_helper import yaml_parse

    template = yaml_parse(template_text)
    for resource in template["Resources"].values():
        properties = resource.get("Properties", {})
        if resource["Type"] == "AWS::Serverless::Function":
            properties["CodeUri"] = _PLACEHOLDER_CODE
        if resource["Type"] == "AWS::Serverless::LayerVersion":
            properties["ContentUri"] = _PLACEHOLDER_CODE

    # The region as boto3 would give it to samtranslator (its pseudo parameters), without the
    # environment; no managed policy map: the managed policies' documents come from moto's copy.
    session = boto3.session.Session(region_name=region)
    translator = Translator({}, Parser(), boto_session=session)
    translated: dict[str, Any] = translator.translate(template, parameter_values={})
    return translated


def _managed_document(arn: Any) -> dict[str, Any]:
    name = str(arn).rsplit("/", 1)[-1]
    document: dict[str, Any] = _managed_policies()[name]["Document"]
    return document


def function_roles(
    template_path: Path,
    stack_name: str,
    region: str,
    parameters: Mapping[str, str],
    queue_url: Callable[[str], str],
) -> dict[str, FunctionRole]:
    """Every function's role, as `sam deploy` would create it on this stack."""
    from roomcast_dev.template import load_template

    translated = _translated(template_path.read_text(encoding="utf-8"), region)
    resolver = _RoleResolver(load_template(template_path), stack_name, region, parameters, queue_url)
    roles: dict[str, FunctionRole] = {}
    for function_id, function in translated["Resources"].items():
        if function["Type"] != "AWS::Lambda::Function":
            continue
        role_id = function["Properties"]["Role"]["Fn::GetAtt"][0]
        role = translated["Resources"][role_id]["Properties"]
        documents = [copy.deepcopy(p["PolicyDocument"]) for p in role.get("Policies", [])]
        documents += [_managed_document(resolver.resolve(arn)) for arn in role.get("ManagedPolicyArns", [])]
        resolved = tuple(_statements_listed(resolver.resolve(d)) for d in documents)
        roles[function_id] = FunctionRole(function_id, resolved, *credentials(stack_name, function_id))
    return roles


def _statements_listed(document: Any) -> dict[str, Any]:
    """A policy as the emulator can read it: its statements a list."""
    statements = document["Statement"]
    return {**document, "Statement": statements if isinstance(statements, list) else [statements]}

"""``refused-edit``: a documented request with one edit is refused, after the request without it
was accepted.

The request is the operation's example on this target (``checks/examples.py``: body, required
query values, path values from x-settings; ``params.path_values`` overrides the path values,
``{NAME}`` naming a setting). An edit (``params.refused``: one, or a list tried in turn) changes
one thing of it, all data in rules.yaml:

* ``set`` / ``drop``: body members (dotted) set or left out; ``{NAME}`` in a string is a setting;
* ``path_values`` / ``query`` / ``headers``: path values, query values, headers set;
* ``content``: these bytes (text) in place of the JSON body, as ``application/json``;
  ``content_type``: the body sent with another content type;
* ``method``: another method on the operation's path; ``path_suffix``: a segment appended to the
  path (a path that is no endpoint);
* ``as``: a credential variant (``conformance.auth.variants``): a 401 then needs no comparison;
* ``operation``: the edit is made to another operation's request than the rule's.

The control is the same request without the edit (with ``params.control``'s edit, when the
unedited example is not the valid request the rule compares with): it is sent first and must be
accepted, else the rule is not exercised. Then each edit is refused as ``checks/refusal.py``
says (the documented status, else any 4xx; never a 5xx). ``params.error_schema`` (a pointer
into the contract, ``#/components/schemas/Error``) is the schema each refusal's body is held to.
"""

from __future__ import annotations

import itertools
import json
from functools import partial
from typing import Any

from conformance.auth.variants import AUTH_AS_SCHEMA, DEFAULT, auth_as
from conformance.checks.boundary import MISSING, with_member
from conformance.checks.context import CheckContext
from conformance.checks.examples import ExampleRequest, example_request, fill, unique
from conformance.checks.expect import expect_json_schema
from conformance.checks.refusal import expect_accepted, expect_refused
from conformance.checks.registry import named
from conformance.errors import ContractFileError
from conformance.transport.model import Exchange, Request

__all__ = ["EDIT_SCHEMA", "edits_of", "refused_edit"]

_VALUES = {"type": "object", "additionalProperties": {"type": "string"}}
EDIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "operation": {"type": "string"},
        "set": {"type": "object"},
        "drop": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "path_values": _VALUES,
        "query": {"type": "object"},
        "headers": _VALUES,
        "content": {"type": "string"},
        "content_type": {"type": "string"},
        "method": {"enum": ["GET", "POST", "PUT", "PATCH", "DELETE"]},
        "path_suffix": {"type": "string", "pattern": "^/"},
        "as": AUTH_AS_SCHEMA,
    },
}
_PARAMS: dict[str, Any] = {
    "operations": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "path_values": _VALUES,
    "control": EDIT_SCHEMA,
    "refused": {"oneOf": [EDIT_SCHEMA, {"type": "array", "items": EDIT_SCHEMA, "minItems": 1}]},
    "error_schema": {"type": "string", "pattern": "^#/components/schemas/[A-Za-z0-9_.-]+$"},
}


def edits_of(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The rule's refused edits as a list (one edit may be written without the list)."""
    refused = params["refused"]
    return list(refused) if isinstance(refused, list) else [refused]


class _Requests:
    """The operation's example request, edited; ``x-unique`` members new on every request."""

    def __init__(self, ctx: CheckContext) -> None:
        self.ctx = ctx
        self._serial = itertools.count(1)
        self._examples: dict[str, ExampleRequest] = {}

    def _example(self, operation: str) -> ExampleRequest:
        if operation not in self._examples:
            self._examples[operation] = example_request(self.ctx, operation)
        return self._examples[operation]

    def send(self, operation: str, *edits: dict[str, Any]) -> Exchange:
        ctx = self.ctx
        example = self._example(operation)
        body, query = example.body, dict(example.query)
        values = {**example.path, **ctx.settings_in(ctx.rule.params.get("path_values"))}
        method, template = operation.split(" ", 1)
        headers: dict[str, str] = {}
        content: bytes | None = None
        how = DEFAULT
        for edit in edits:
            for member in edit.get("drop") or []:
                body = with_member(body or {}, member, MISSING)
            for member, value in (edit.get("set") or {}).items():
                body = with_member(body or {}, member, fill(ctx, value))
            values.update(ctx.settings_in(edit.get("path_values")))
            query.update(ctx.query_in(edit.get("query")))
            headers.update(ctx.settings_in(edit.get("headers")))
            method = edit.get("method", method)
            template += edit.get("path_suffix", "")
            if "content" in edit:
                content = str(edit["content"]).encode()
            if "content_type" in edit:
                headers["content-type"] = edit["content_type"]
            if "as" in edit:
                how = auth_as(edit["as"])
        body = unique(ctx, operation, body, next(self._serial))
        path = ctx.path(template, operation=operation, **values)
        if content is None and headers.get("content-type") and body is not None:
            content = json.dumps(body).encode()  # the same JSON text under another content type
        if content is not None:
            request = Request.build(method, path, params=query or None,
                                    headers={"content-type": "application/json", **headers}, content=content)
        else:
            request = ctx.contract.body_request(operation, method, path, body, params=query or None,
                                                headers=headers or None)
        return ctx.send(ctx.auth(request, operation, how))


def _error_schema(ctx: CheckContext, pointer: str) -> dict[str, Any]:
    schemas = ctx.contract.openapi.get("components", {}).get("schemas", {})
    name = pointer.rsplit("/", 1)[-1]
    if name not in schemas:
        raise ContractFileError(f"{ctx.rule.id}: error_schema {pointer} is not in openapi.yaml")
    schema: dict[str, Any] = schemas[name]  # the contract's own dict: validators are cached by identity
    return schema


@named("refused-edit", params=_PARAMS, required=("refused",))
def refused_edit(ctx: CheckContext) -> None:
    rule = ctx.rule
    requests = _Requests(ctx)
    control_edit = rule.params.get("control") or {}
    schema = _error_schema(ctx, rule.params["error_schema"]) if "error_schema" in rule.params else None
    controls: dict[str, Exchange] = {}
    for operation in rule.params.get("operations") or [rule.operation]:
        for edit in edits_of(rule.params):
            target = edit.get("operation") or operation
            if not target:
                raise ContractFileError(f"{rule.id}: refused-edit needs an operation (the rule's or the edit's)")
            if target not in controls:
                controls[target] = requests.send(target, control_edit)
                expect_accepted(ctx, controls[target], f"{target} without the edit")
            shown = ", ".join(f"{k} {v!r}" for k, v in edit.items() if k != "operation")
            got = expect_refused(ctx, f"{target} with {shown}", partial(requests.send, target, control_edit, edit),
                                 control=partial(controls.__getitem__, target), credential_variant="as" in edit)
            if schema is not None:
                expect_json_schema(rule.id, ctx.contract, got, schema, f"{target} with {shown}: the refusal's body")

"""Generic authentication checks: a missing, invalid or wrongly-presented credential is refused.

``params.case`` picks the variant: ``missing`` (no credential at all), ``invalid`` (every
credential location filled with a value no account has), ``scheme`` (the valid key presented in
another header, e.g. ``Authorization: Bearer``). ``params.operations`` widens the check from the
rule's operation to a list.
"""

from __future__ import annotations

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status
from conformance.checks.registry import for_kind
from conformance.transport.model import Exchange, Request

__all__ = ["INVALID_CREDENTIAL"]

INVALID_CREDENTIAL = "conformance-invalid-credential"


def _request(ctx: CheckContext, operation: str) -> Request:
    method, template = operation.split(" ", 1)
    # Path parameters get a placeholder: authentication is decided before the resource is looked up.
    path = ctx.path(template, operation=operation)
    for part in template.split("/"):
        if part.startswith("{"):
            path = path.replace(part, "conformance-placeholder")
    if method not in ("POST", "PUT", "PATCH"):
        return Request.build(method, path)
    return ctx.contract.body_request(operation, method, path, ctx.contract.request_example(operation))


def _send(ctx: CheckContext, request: Request) -> Exchange:
    return ctx.session.send(request)


@for_kind("auth")
def auth_refused(ctx: CheckContext) -> None:
    rule = ctx.rule
    case = rule.params.get("case", "missing")
    if case not in ("missing", "invalid", "scheme"):
        # Never pass a rule this generic check does not understand: a service check must own it.
        ctx.skip(f"auth case '{case}' needs a service-specific check")
    status = (rule.violation or {}).get("status")
    allowed = {int(status)} if status else set(range(400, 500))
    operations = rule.params.get("operations") or [rule.operation]
    specs = ctx.contract.settings.get("auth") or []
    for operation in operations:
        request = _request(ctx, operation)
        if case == "invalid":
            for spec in specs:
                where = request.headers if spec["in"] == "header" else None
                if where is not None:
                    where[spec["name"].lower()] = INVALID_CREDENTIAL
                else:
                    request.query.append((spec["name"], INVALID_CREDENTIAL))
            why = "an invalid credential must be refused"
        elif case == "scheme":
            key = ctx.credential(rule.params.get("credential", "API_KEY"))
            request.headers[rule.params["header"].lower()] = rule.params["format"].format(key=key)
            why = f"the key presented as {rule.params['header']}: {rule.params['format']} must be refused"
        else:
            why = "a request without credentials must be refused"
        refused = _send(ctx, request)
        expect_status(rule.id, refused, allowed, f"{operation}: {why}")
        if not status and refused.response.status != 401:
            # "Any 4xx" alone would also be met by a 404 for the placeholder resource: unless the
            # answer is 401 (HTTP's own "credentials refused"), the same request with valid
            # credentials must be answered differently, or nothing was shown.
            control = _send(ctx, ctx.auth(_request(ctx, operation)))
            expect(control.response.status != refused.response.status, rule.id,
                   f"{operation}: answered {refused.response.status} with and without valid "
                   "credentials, so the refusal is not about the credential", exchange=control,
                   expected="a different answer once valid credentials are sent")

"""``form-accepted``: an operation that takes a urlencoded form accepts its example sent as the
document says forms are sent (the request body's media type, with the charset of the contract's
``x-body-encoding``), and, with ``text`` and ``fields``, the same form with ``text`` added to
those fields: accepted too, and where the answer shows a field, it holds the text as sent (not
decoded as another charset).

The example's fields may be illustrative (a document that does not show them): an answer in
``refusable`` to the example as it is skips the rule saying so, since nothing shows that form
would be accepted; every other answer is held to a documented 2xx. Only after the example was
accepted (the control) is the edited form judged, so a refusal there is about the text.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status, success_statuses
from conformance.checks.registry import named
from conformance.checks.shape import fill_path
from conformance.errors import ContractFileError
from conformance.transport.model import Exchange

__all__ = ["form_accepted"]


def _form_type(ctx: CheckContext, operation: str) -> str:
    content = (ctx.contract.operation(operation).get("requestBody") or {}).get("content") or {}
    media = next((m for m in content if m.startswith("application/x-www-form-urlencoded")), None)
    if media is None:
        raise ContractFileError(f"{ctx.rule.id}: {operation} takes no urlencoded form")
    charset = (ctx.contract.openapi.get("x-body-encoding") or {}).get("charset")
    return f"{media}; charset={charset}" if charset else media


@named("form-accepted", params={
    "operation": {"type": "string"},
    "path_values": {"type": "object", "additionalProperties": {"type": "string"}},
    "refusable": {"type": "array", "items": {"type": "integer", "minimum": 400, "maximum": 499}},
    "fields": {"type": "array", "items": {"type": "string"}, "minItems": 1},
    "text": {"type": "string", "minLength": 1}})
def form_accepted(ctx: CheckContext) -> None:
    rule, params = ctx.rule, ctx.rule.params
    operation = params.get("operation") or rule.operation
    if not operation:
        raise ContractFileError(f"{rule.id}: form-accepted needs an operation")
    form_type, ok = _form_type(ctx, operation), success_statuses(ctx.contract, operation)
    example = {k: str(v) for k, v in ctx.contract.request_example(operation).items()}
    values = fill_path(ctx, operation, params.get("path_values"))

    def post(form: dict[str, str]) -> Exchange:
        return ctx.call(operation, path_values=values, content=urlencode(form).encode("utf-8"),
                        headers={"content-type": form_type})

    control = post(example)
    if control.response.status in (params.get("refusable") or []):
        ctx.skip(f"the target refused the example form ({control.response.status}); its fields are illustrative, "
                 "so nothing shows that form would be accepted")
    expect_status(rule.id, control, ok, f"the example form as {form_type}")
    if "text" not in params:
        return
    fields = params.get("fields") or []
    form = {k: v + params["text"] if k in fields else v for k, v in example.items()}
    exchange = post(form)
    expect_status(rule.id, exchange, ok, f"the form with {params['text']!r} added to {', '.join(fields)} (the same "
                  "form without it was accepted)")
    try:
        answer: Any = exchange.response.json()
    except ValueError:
        answer = None
    shown = [k for k in fields if isinstance(answer, dict) and k in answer]
    if not shown:
        ctx.skip("the answer shows none of the fields sent, so the text stored cannot be compared")
    for key in shown:
        expect(answer[key] == form[key], rule.id, f"the answer's {key} is {answer[key]!r}", exchange=exchange,
               expected=f"{form[key]!r}, the text sent")

"""Fields selection: "fields=a,b gives a,b" and "without fields, only the id" (issue 30).

``fields-returned`` reads the rule's operation once (members placed as ``checks/paging.py``
places them: ``in: body``, ``set``, ``path_values``...) with the request member ``member`` set to
``fields``, or left out where the rule gives no ``fields``, and holds the rows at ``items_field``:

* each of ``fields`` comes back: a plain name as a key of some row (a member a row has no value
  for may be left out of that row, not out of every row); a dotted name (``internal.tags.id``)
  never as a dotted key, and its first part an object on some row (issue 35: a server leaving
  ``internal`` out of every row passed before); where a row carries it, always an object;
* every row carries each of ``every_row`` (``guid``, the ``metrics`` object);
* with ``only``: no row carries a top-level member outside it.

The answer must be a documented success valid under its schema; no rows: not exercised.
"""

from __future__ import annotations

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema, expect_status
from conformance.checks.paging import PLACEMENT_PARAMS, dig, sender
from conformance.checks.registry import named

__all__ = ["fields_returned"]

_NAMES = {"type": "array", "items": {"type": "string"}, "minItems": 1}


@named("fields-returned", params={**PLACEMENT_PARAMS, "items_field": {"type": "string"}, "member": {"type": "string"},
                                  "fields": _NAMES, "every_row": _NAMES, "only": _NAMES},
       required=("items_field", "member"))
def fields_returned(ctx: CheckContext) -> None:
    params, operation = ctx.rule.params, str(ctx.rule.operation)
    member, fields = params["member"], params.get("fields")
    why = f"{operation} with {member} {fields}" if fields else f"{operation} without {member}"
    exchange = sender(ctx, params)({member: fields} if fields else {}, drop=() if fields else (member,))
    expect_status(ctx.rule.id, exchange, set(range(200, 300)), why)
    schema = ctx.contract.response_schema(operation, exchange.response.status)
    body = expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why) if schema else exchange.response.json()
    rows = dig(body, params["items_field"])
    expect(isinstance(rows, list) and all(isinstance(r, dict) for r in rows), ctx.rule.id,
           f"{why}: no rows at {params['items_field']}", exchange=exchange, expected="an array of rows")
    if not rows:
        ctx.skip(f"{why}: no rows came back, so no field can be seen")
    for name in params.get("every_row") or []:
        lacking = sum(1 for row in rows if dig(row, name) is None)
        expect(not lacking, ctx.rule.id, f"{why}: {lacking} of {len(rows)} rows lack {name}", exchange=exchange,
               expected=f"{name} on every row")
    for name in fields or []:
        if "." not in name:
            expect(any(name in row for row in rows), ctx.rule.id, f"{why}: no row carries {name}",
                   exchange=exchange, expected=f"the requested {name} as a key")
            continue
        top = name.split(".", 1)[0]
        expect(not any(name in row for row in rows), ctx.rule.id, f"{why}: {name} came back as a dotted key",
               exchange=exchange, expected=f"{name} nested under {top}")
        expect(all(isinstance(row[top], dict) for row in rows if top in row), ctx.rule.id,
               f"{why}: {top} is not an object", exchange=exchange, expected=f"{name} nested under an object {top}")
        # As for a plain name: a row without a value may leave it out, not every row.
        expect(any(top in row for row in rows), ctx.rule.id, f"{why}: no row carries {top} (asked for {name})",
               exchange=exchange, expected=f"the requested {name} nested under an object {top}")
    if params.get("only"):
        extra = sorted({key for row in rows for key in row} - set(params["only"]))
        expect(not extra, ctx.rule.id, f"{why}: rows carry {extra}", exchange=exchange,
               expected=f"only {', '.join(params['only'])}")

"""A query parameter that names one record selects that record's answer (issue 35, item 9).

``param-selects``: "the summary takes the campaign id in query parameter ``id``" says the answer
is that campaign's. The read is sent for two records the target holds (``values``: two target
settings, e.g. ``["{CAMPAIGN_ID}", "{OTHER_CAMPAIGN_ID}"]``), each answered with a documented
success. A server that ignores the parameter answers both alike, so:

* an answer that names the *other* record's value (as a whole JSON string anywhere in its body)
  fails: it is not the answer for the record asked about;
* two answers that differ pass: the parameter changed the answer;
* two equal answers that name neither record cannot tell a server reading the parameter from one
  ignoring it (two records with the same figures): skipped, not exercised, saying so.

Its derived fault ``param-ignored`` (faults/values.py) takes the parameter out of the request.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import setting_param
from conformance.checks.expect import expect, expect_status, success_statuses
from conformance.checks.registry import named
from conformance.errors import ContractFileError
from conformance.transport.model import Exchange

__all__ = ["param_selects"]


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)


def _json(exchange: Exchange) -> Any:
    try:
        return exchange.response.json()
    except ValueError:
        return exchange.response.body


@named("param-selects", params={"param": {"type": "string", "minLength": 1},
                                "values": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
                                "base_query": {"type": "object"}},
       required=("param", "values"))
def param_selects(ctx: CheckContext) -> None:
    params, operation = ctx.rule.params, ctx.rule.operation
    if not operation:
        raise ContractFileError(f"{ctx.rule.id}: param-selects reads the rule's operation, which it lacks")
    values = [str(setting_param(ctx, v, {"type": "string"})) for v in params["values"]]
    if values[0] == values[1]:
        ctx.skip(f"the two records are the same ({values[0]!r}): set the settings to two different records")
    answers: list[tuple[Exchange, Any]] = []
    for value in values:
        exchange = ctx.call(operation, params={**ctx.query_in(params.get("base_query")), params["param"]: value})
        expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, operation),
                      f"{operation} for {params['param']}={value}")
        answers.append((exchange, _json(exchange)))
    for (exchange, body), asked, other in ((answers[0], values[0], values[1]), (answers[1], values[1], values[0])):
        expect(other not in set(_strings(body)), ctx.rule.id,
               f"{operation} for {params['param']}={asked} names {other}, another record: the parameter is not "
               f"read", exchange=exchange, expected=f"the answer for {params['param']}={asked} alone")
    if answers[0][1] == answers[1][1]:
        ctx.skip(f"{operation} answers {params['param']}={values[0]} and {params['param']}={values[1]} alike and "
                 "names neither: a server ignoring the parameter would too (set the settings to records whose "
                 "answers differ)")

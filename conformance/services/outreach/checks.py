"""Scenario checks of the outreach accounts: what no generic check expresses (a create with a
fresh identifier under another key, read-only fields refused or ignored, state seen through
get, the rate limit on creation). Campaign, email and route checks: campaign_checks.py."""

from __future__ import annotations

from itertools import count
from typing import Any

from conformance.auth.variants import AUTH_AS_SCHEMA, auth_as
from conformance.checks.boundary import with_member
from conformance.checks.context import CheckContext
from conformance.checks.examples import unique
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.checks.observatory import shape
from conformance.checks.refusal import expect_accepted
from conformance.checks.registry import named
from conformance.checks.wellformed import ill_formed
from conformance.errors import ContractFileError, SkipKind
from conformance.services.outreach import campaign_checks  # noqa: F401  (registers its checks)
from conformance.transport.model import Exchange

__all__: list[str] = []

CREATE = "POST /accounts"
GET = "GET /accounts/{email}"
PATCH = "PATCH /accounts/{email}"


class Fresh:
    """Sends the operation's example with its ``x-unique`` members (the account's email) new on
    every request (``checks/examples.py``: ``local+<rule>-<n>@domain``), ``edits`` on top."""

    def __init__(self, ctx: CheckContext, operation: str | None = None) -> None:
        self.ctx = ctx
        self.operation = operation or ctx.rule.operation or ""
        self._serial = count(1)
        self.last: dict[str, Any] = {}

    def send(self, edits: dict[str, Any] | None = None, **kwargs: Any) -> Exchange:
        body = unique(self.ctx, self.operation, self.ctx.contract.request_example(self.operation), next(self._serial))
        for dotted, value in (edits or {}).items():
            body = with_member(body, dotted, value)
        self.last = body
        return self.ctx.call(self.operation, json_body=body, **kwargs)


def _account(ctx: CheckContext, email: str) -> Exchange:
    return ctx.call(GET, path_values={"email": email})


def _created(ctx: CheckContext, exchange: Exchange, why: str) -> dict[str, Any]:
    """A create answered with the documented 200 and a valid Account."""
    expect_status(ctx.rule.id, exchange, 200, why)
    schema = ctx.contract.response_schema(CREATE, 200)
    assert schema is not None
    return dict(expect_json_schema(ctx.rule.id, ctx.contract, exchange, schema, why))


_AS: dict[str, Any] = {"as": AUTH_AS_SCHEMA}


@named("outreach/scope-observe", params={**_AS, "gap": {"type": "string", "pattern": r"^[a-z]+\.gap\.[a-z0-9-]+$"}},
       required=("gap", "as"))
def scope_observe(ctx: CheckContext) -> None:
    """What a key whose grant the document does not define gets: recorded, never judged (the
    gap observatory's outcome); only an answer ill-formed for its declared media type fails."""
    if ctx.rule.params["gap"] not in {g.id for g in ctx.contract.gaps}:
        raise ContractFileError(f"{ctx.rule.id}: observes {ctx.rule.params['gap']}, not a gap of the contract")
    how = auth_as(ctx.rule.params["as"])
    operation = ctx.rule.operation or ""
    if ctx.contract.json_media(operation).get("x-unique"):
        exchange = Fresh(ctx).send(auth=how)
    else:
        exchange = ctx.call(operation, auth=how)
    problem = ill_formed(exchange.response)
    expect(problem is None, ctx.rule.id, f"{operation}: {problem}", exchange=exchange,
           expected="a body that is what its Content-Type declares")
    ctx.skip(f"gap {ctx.rule.params['gap']} observed, not judged: {operation} with {how.describe()} answered "
             f"{exchange.response.status} {shape(exchange.response)}", SkipKind.GAP_OBSERVED)


@named("outreach/create-returns-account")
def create_returns_account(ctx: CheckContext) -> None:
    fresh = Fresh(ctx)
    exchange = fresh.send()
    body = _created(ctx, exchange, "a valid create")
    for name in ("email", "first_name", "last_name", "provider_code"):
        expect(body.get(name) == fresh.last[name], ctx.rule.id, f"the Account's {name} is {body.get(name)!r}, "
               f"not the {fresh.last[name]!r} sent", exchange=exchange, expected=f"{name} as sent")


@named("outreach/create-optional-fields", params={"body": {"type": "object"}}, required=("body",))
def create_optional_fields(ctx: CheckContext) -> None:
    exchange = Fresh(ctx).send(dict(ctx.rule.params["body"]))
    expect_status(ctx.rule.id, exchange, success_statuses(ctx.contract, CREATE),
                  f"a create with the optional fields {sorted(ctx.rule.params['body'])}")


_PROBES: dict[str, Any] = {"probes": {"type": "object", "additionalProperties": {"type": "array", "minItems": 2}}}


def _probe_value(candidates: list[Any], current: Any) -> Any:
    """A candidate the server did not choose itself, so an ignored write is visible."""
    return next(c for c in candidates if c != current)


def _judge(ctx: CheckContext, field: str, sent: Any, probe: Exchange, stored: Any, shown: set[int]) -> None:
    """Refused (any 4xx) or ignored (accepted, the stored value is not the one sent)."""
    status = probe.response.status
    expect(status < 500, ctx.rule.id, f"{field} sent as input crashed the server", exchange=probe,
           expected="a 4xx refusal, or a 2xx that ignores the field")
    if 400 <= status < 500:
        shown.add(0)
        return
    expect_status(ctx.rule.id, probe, set(range(200, 300)), f"{field} sent as input")
    expect(stored != sent, ctx.rule.id, f"read-only {field} was written: the account now shows {stored!r}",
           exchange=probe, expected=f"{field} refused or ignored, never stored as sent")
    shown.add(1)


@named("outreach/read-only-create", params=_PROBES, required=("probes",))
def read_only_create(ctx: CheckContext) -> None:
    fresh = Fresh(ctx)
    control = fresh.send()
    expect_accepted(ctx, control, "a create without read-only fields")
    chosen = control.response.json() or {}
    shown: set[int] = set()
    for field, candidates in ctx.rule.params["probes"].items():
        sent = _probe_value(candidates, chosen.get(field))
        probe = fresh.send({field: sent})
        stored = None
        if 200 <= probe.response.status < 300:
            stored = (_account(ctx, fresh.last["email"]).response.json() or {}).get(field)
        _judge(ctx, field, sent, probe, stored, shown)
    ctx.observed(*sorted(shown))


@named("outreach/read-only-update", params=_PROBES, required=("probes",))
def read_only_update(ctx: CheckContext) -> None:
    email = ctx.credential("ACCOUNT_EMAIL")
    control = ctx.call(PATCH, path_values={"email": email}, json_body=ctx.contract.request_example(PATCH))
    expect_accepted(ctx, control, "an update of a writable field")
    shown: set[int] = set()
    for field, candidates in ctx.rule.params["probes"].items():
        current = (_account(ctx, email).response.json() or {}).get(field)
        sent = _probe_value(candidates, current)
        probe = ctx.call(PATCH, path_values={"email": email}, json_body={field: sent})
        stored = (_account(ctx, email).response.json() or {}).get(field)
        _judge(ctx, field, sent, probe, stored, shown)
    ctx.observed(*sorted(shown))


@named("outreach/update-persists", params={"body": {"type": "object", "minProperties": 1}}, required=("body",))
def update_persists(ctx: CheckContext) -> None:
    email = ctx.credential("ACCOUNT_EMAIL")
    body = dict(ctx.rule.params["body"])
    expect_status(ctx.rule.id, ctx.call(PATCH, path_values={"email": email}, json_body=body),
                  set(range(200, 300)), f"an update of {sorted(body)}")
    after = _account(ctx, email)
    expect_status(ctx.rule.id, after, 200, "the account after the update")
    for name, value in body.items():
        expect((after.response.json() or {}).get(name) == value, ctx.rule.id, f"{name} after the update is "
               f"{(after.response.json() or {}).get(name)!r}", exchange=after, expected=f"{name} = {value!r}")


@named("outreach/delete-removes")
def delete_removes(ctx: CheckContext) -> None:
    fresh = Fresh(ctx, CREATE)
    expect_accepted(ctx, fresh.send(), "creating the account to delete")
    email = fresh.last["email"]
    gone = ctx.call("DELETE /accounts/{email}", path_values={"email": email})
    expect_status(ctx.rule.id, gone, set(range(200, 300)), "deleting an account just created")
    expect_status(ctx.rule.id, _account(ctx, email), set(range(400, 500)),
                  "GET of the deleted account must no longer return it")


_BURST = {"max_burst_requests": {"type": "integer", "minimum": 1}}


@named("outreach/create-rate-limit", params=_BURST, required=tuple(_BURST))
def create_rate_limit(ctx: CheckContext) -> None:
    """Creation past the limit is answered 429. Whether the target serves again after a client
    backs off, and when, is not shown (the back-off is advice to clients): gap rate-limits."""
    params = ctx.rule.params
    fresh = Fresh(ctx)
    for _ in range(params["max_burst_requests"]):
        exchange = fresh.send(backoff=False)
        if exchange.response.status == 429:
            return
        expect_status(ctx.rule.id, exchange, 200, "a create within the rate limit")
    ctx.skip(f"no 429 within {params['max_burst_requests']} creates: the ceiling is not shown (bounded probe)")


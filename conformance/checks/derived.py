"""The checks of the rules derived from openapi.yaml (``conformance/contract/derive.py``).

``fields``: the operation's example request (the control) must succeed; then each probe (one
request field sent wrong) must be refused with the documented status, else any 4xx. ``body``:
the same control, then each broken JSON body must be refused. Every probe is sent before the
verdict, so one disputed field does not hide another; a 5xx to any probe fails the rule.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

from conformance.checks.context import CheckContext
from conformance.checks.examples import ExampleRequest, example_request, fill, unique
from conformance.checks.expect import expect_status
from conformance.checks.registry import for_kind
from conformance.contract.derive import MISSING, Probe, body_probes, field_probes, refusal_status
from conformance.errors import ContractFailure, RuleSkipped
from conformance.transport.model import Exchange

__all__ = ["broken_bodies_refused", "fields_refused"]

_ANY_4XX = frozenset(range(400, 500))


def _set_at(node: Any, parts: list[str], value: Any) -> None:
    """Set (or, for MISSING, remove) the member at ``parts`` (list items by index)."""
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    last = parts[-1]
    if isinstance(node, list):
        node[int(last)] = value
    elif value is MISSING:
        node.pop(last, None)
    else:
        node[last] = value


def _send(ctx: CheckContext, operation: str, base: ExampleRequest, probe: Probe | None = None,
          n: int = 0) -> Exchange:
    # Members that identify what the request creates are new on every request (x-unique), so a
    # probe is not refused as a duplicate of the control whatever field it sends wrong.
    keep = probe.where.partition(".")[2] if probe is not None and probe.where.startswith("body.") else ""
    body = unique(ctx, operation, copy.deepcopy(base.body), n, keep=keep)
    query = dict(base.query)
    path = dict(base.path)
    if probe is not None:
        area, _, rest = probe.where.partition(".")
        if probe.scaffold is not None:
            _set_at(body, probe.scaffold[0].partition(".")[2].split("."), copy.deepcopy(probe.scaffold[1][0]))
        if area == "body" and probe.label:
            _set_at(body, rest.split("."), probe.value)
        elif area == "query":
            if probe.value is MISSING:
                query.pop(rest, None)
            else:
                query[rest] = probe.value
        elif area == "path":
            path[rest] = str(probe.value)
    if body is None:
        return ctx.call(operation, params=query or None, path_values=path)
    if body == {} and ctx.contract.request_media(operation) == "application/json":
        # Every member left out is still a JSON body ({}), not none (which body_request sends).
        return ctx.call(operation, content=b"{}", headers={"content-type": "application/json"},
                        params=query or None, path_values=path)
    return ctx.call(operation, json_body=body, params=query or None, path_values=path)


def _verdict(ctx: CheckContext, operation: str, what: str,
             answers: list[tuple[str, Exchange, int | None]], note: str = "") -> None:
    """Every answer refused as documented (its status, else any 4xx), or one failure naming each
    that was not; a 429 means the rule was not checked (rate-limited), never failed."""
    disputes: list[tuple[str, Exchange]] = []
    for label, exchange, status in answers:
        allowed = {status} if status else _ANY_4XX
        if exchange.response.status == 429 and 429 not in allowed:
            expect_status(ctx.rule.id, exchange, allowed, label)  # raises: rate-limited, not checked
        if exchange.response.status not in allowed:
            disputes.append((label, exchange))
    if disputes:
        statuses = {status for _l, _e, status in answers}
        only = next(iter(statuses)) if len(statuses) == 1 else None
        expected = f"status {only}" if only else "a 4xx refusal" if statuses == {None} else \
            "the documented status, else a 4xx; never a 5xx"
        lines = "\n".join(f"  - {label}: got {e.response.status}" for label, e in disputes)
        crashed = [e for _l, e in disputes if e.response.status >= 500]
        raise ContractFailure(ctx.rule.id, f"{operation}: {len(disputes)} of {len(answers)} {what} not refused as "
                              f"documented:\n{lines}{note}", expected=expected,
                              exchange=(crashed or [disputes[0][1]])[0])


def _controlled(ctx: CheckContext, operation: str, base: ExampleRequest) -> None:
    exchange = _send(ctx, operation, base)
    status = exchange.response.status
    if status >= 500:
        raise ContractFailure(ctx.rule.id, f"{operation}: the contract's example request (the control) answered "
                              f"{status}", expected="a 2xx, never a 5xx", exchange=exchange)
    if status == 429:
        expect_status(ctx.rule.id, exchange, set(range(200, 300)), f"{operation}: the control")
    if not 200 <= status < 300:
        ctx.skip(f"{operation}: the example request (the control) was answered {exchange.response.summary()}, so a "
                 "refusal would show nothing; check the target's settings (conformance env)")


def _scaffolds_taken(ctx: CheckContext, operation: str, base: ExampleRequest, probes: list[Probe],
                     first: int) -> tuple[list[Probe], list[str]]:
    """The probes whose scaffold (a documented value of a member the example lacks: the smallest,
    else the fullest) was accepted alone, their control, each with the value accepted; the others
    are not sent, as a refusal would show nothing (their scaffolds are named). A 5xx to a scaffold,
    a valid body, fails the rule."""
    taken: dict[str, Any] = {}
    dropped: list[str] = []
    sent = first
    for probe in probes:
        if probe.scaffold is None:
            continue
        anchor, tries = probe.scaffold
        key = f"{anchor}={json.dumps(tries, sort_keys=True)}"
        if key in taken:
            continue
        taken[key] = None
        for raw in tries:
            try:
                tree = fill(ctx, raw)  # a schema's example may name a target setting ("{ACCOUNT_EMAIL}")
            except RuleSkipped as exc:
                dropped.append(f"{anchor} = {_shown(raw)} ({exc})")
                continue
            exchange = _send(ctx, operation, base, Probe(anchor, "", None, scaffold=(anchor, (tree,))), sent)
            sent += 1
            status = exchange.response.status
            if status >= 500:
                raise ContractFailure(ctx.rule.id, f"{operation}: the example with {anchor} = {_shown(tree)} (a "
                                      "value its schema documents, the control of the probes inside it) answered "
                                      f"{status}", expected="a 2xx or a 4xx, never a 5xx", exchange=exchange)
            if status == 429:
                expect_status(ctx.rule.id, exchange, set(range(200, 300)), f"{operation}: a scaffold's control")
            if 200 <= status < 300:
                taken[key] = tree
                break
            dropped.append(f"{anchor} = {_shown(tree)} ({status})")
    kept = []
    for probe in probes:
        if probe.scaffold is None:
            kept.append(probe)
            continue
        tree = taken[f"{probe.scaffold[0]}={json.dumps(probe.scaffold[1], sort_keys=True)}"]
        if tree is not None:
            kept.append(replace(probe, scaffold=(probe.scaffold[0], (tree,))))
    return kept, dropped


@for_kind("fields")
def fields_refused(ctx: CheckContext) -> None:
    operation = str(ctx.rule.operation)
    probes = field_probes(ctx.contract, operation)
    base = example_request(ctx, operation)
    _controlled(ctx, operation, base)
    probes, dropped = _scaffolds_taken(ctx, operation, base, probes, len(probes) + 1)
    if not probes:
        ctx.skip(f"{operation}: every probe needs a member the example lacks, and the target refused each "
                 f"smallest documented value of it: {'; '.join(dropped)}")
    status = refusal_status(ctx.contract, operation, "invalid")
    with ctx.judging_refusal():  # the control was accepted: a probe's answer is judged as it stands
        answers = [(f"{p.where} {p.label} ({_shown(p.value)})", _send(ctx, operation, base, p, n), status)
                   for n, p in enumerate(probes, start=1)]
    # Probes whose scaffold the target refused were not sent: said where the verdict is read.
    note = f"\n  not sent (their scaffold was refused alone): {'; '.join(dropped)}" if dropped else ""
    _verdict(ctx, operation, "wrong requests", answers, note)


@for_kind("body")
def broken_bodies_refused(ctx: CheckContext) -> None:
    operation = str(ctx.rule.operation)
    base = example_request(ctx, operation)
    _controlled(ctx, operation, base)
    answers = []
    for label, media, content in body_probes(ctx.contract, operation):
        with ctx.judging_refusal():  # the control was accepted: a probe's answer is judged as it stands
            exchange = ctx.call(operation, content=content, headers={"content-type": media},
                                params=base.query or None, path_values=base.path)
        what = "malformed" if media == "application/json" else "media"
        answers.append((label, exchange, refusal_status(ctx.contract, operation, what)))
    _verdict(ctx, operation, "broken bodies", answers)


def _shown(value: Any) -> str:
    if value is MISSING:
        return "left out"
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 40 else f"{text[:30]}... ({len(text)} chars)"

"""Read-after-write: a write whose documented effect a documented read shows is followed by that
read, and the rule fails when the effect is absent (issue 35, item 4).

``read-after-write`` runs the rule's ``steps`` (``checks/steps.py``) in order; each step may say
what its answer must be:

* ``expect``: ``success`` (a documented 2xx, any 2xx where none is listed), ``gone`` (a 4xx:
  the resource is no longer served; a 5xx is never that), ``refused`` (exactly the rule's
  documented ``violation.status``, which needs no control to show; without one, any 4xx after a
  ``control`` step was accepted, and a rule with neither cannot say it), or statuses;
* ``control: true``: the valid request a later refusal is compared with: it must be accepted, or
  the refusal would show nothing (the rule is skipped, never passed);
* ``echoes: {of: <step>, members: [...]}``: the answer's members equal what step ``of`` sent
  (all members it sent when ``members`` is left out): an update persisted, a create kept;
* ``shows: {member: value}``: the answer's member equals the (templated) value;
* ``valid: true``: the answer is valid under the body the contract documents for its status;
* ``contains`` / ``excludes: {at: member, value: v, keys: [k...]}``: the array at ``at`` holds
  (does not hold) ``v``, or an object whose member ``k`` is ``v``: added, then removed; text at
  ``at`` holds ``v`` as a part (a warning naming the parameter it is about);
  ``as_text: true`` compares as text (a setting, always text, naming a numeric id: 3 and 3.0 are "3");
* ``restore: true``: sent to leave the target as found, never judged; ``when: {step, contains}``
  sends it only where that step's answer held the value;
* ``has`` / ``lacks: [member, ...]``: the answer holds (does not hold) each member (``data.0``: an
  array with an item; templates name members an earlier answer listed); ``needs``: the same as
  ``has``, but an answer without them (or with them null, a "no data" answer) leaves nothing to
  judge on this target (a host without banners): the rule is skipped, never passed;
* ``differs: {of: <step>, member}``: the answer's member differs from what step ``of`` answered
  there (a state changed by the write between them);
* ``skip_if_refused: true``: a 4xx to this step says the target's present state does not allow the
  scenario (a setting names a resource in another state): skipped, never passed;
* ``only: [member, ...]``: the answer is an object with no member but these (an answer keyed by
  what was asked holds nothing it was not asked);
* ``any_case: true``: member names of the answer compared case-insensitively (header names a
  server echoes, RFC 9110 section 5.1), for ``shows``, ``has`` and ``lacks``.

``read-only-ignored`` is the write of a read-only member: each ``probes`` member is sent with a
value the target did not choose itself; the write is refused (a 4xx after the control write was
accepted) or accepted with the member, read back, not the value sent. Which the target did is
reported to the rule's ``observes``.

``write-repeated``: a write accepted, then sent again: never a crash (what it answers observed).

Every write's operation passes the live-target guard before the first step is sent.
"""

from __future__ import annotations

import re
from typing import Any

from conformance.auth.variants import AUTH_AS_SCHEMA
from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_json_schema, expect_status, success_statuses
from conformance.checks.refusal import documented_status, expect_accepted
from conformance.checks.registry import named
from conformance.checks.steps import STEP_SCHEMA, Done, Steps, Unresolved, dig
from conformance.errors import ContractFileError

__all__ = ["judged_members", "write_repeated", "written_steps"]

_MEMBERS = {"type": "array", "items": {"type": "string"}, "minItems": 1}
_MATCH = {"type": "object", "properties": {"at": {"type": "string"}, "value": {}, "keys": _MEMBERS,
                                          "as_text": {"type": "boolean"}},
          "required": ["at", "value"], "additionalProperties": False}
_JUDGED_STEP: dict[str, Any] = {
    **STEP_SCHEMA,
    "properties": {
        **STEP_SCHEMA["properties"],
        "expect": {"anyOf": [{"enum": ["success", "gone", "refused"]}, {"type": "integer"},
                             {"type": "array", "items": {"type": "integer"}}]},
        "echoes": {"type": "object", "properties": {"of": {"type": "string"}, "members": _MEMBERS},
                   "required": ["of"], "additionalProperties": False},
        "shows": {"type": "object"},
        "contains": _MATCH,
        "excludes": _MATCH,
        "restore": {"type": "boolean"},
        "valid": {"type": "boolean"},
        "has": _MEMBERS,
        "lacks": _MEMBERS,
        "needs": _MEMBERS,
        "differs": {"type": "object", "properties": {"of": {"type": "string"}, "member": {"type": "string"}},
                    "required": ["of", "member"], "additionalProperties": False},
        "skip_if_refused": {"type": "boolean"},
        "control": {"type": "boolean"},
        "any_case": {"type": "boolean"},
        "only": _MEMBERS,
        "when": {"type": "object", "properties": {"step": {"type": "string"}, "contains": _MATCH},
                 "required": ["step", "contains"], "additionalProperties": False},
    },
    "additionalProperties": False,
}
_GONE = set(range(400, 500))


def _statuses(ctx: CheckContext, operation: str, expected: Any, controlled: bool = False) -> set[int]:
    if expected == "success":
        return success_statuses(ctx.contract, operation) or set(range(200, 300))
    if expected == "gone":
        return _GONE
    if expected == "refused":
        status = documented_status(ctx)
        if status is not None:
            return {status}
        if not controlled:
            raise ContractFileError(f"{ctx.rule.id}: a step expects 'refused', but the rule documents no "
                                    "violation.status and no control step was accepted before it")
        return _GONE
    return {expected} if isinstance(expected, int) else set(expected)


def _holds(answer: Any, match: dict[str, Any], value: Any) -> bool:
    try:
        items = dig(answer, match["at"])
    except KeyError:
        return False
    if isinstance(items, str) and not match.get("keys"):
        return str(value) in items
    if not isinstance(items, list):
        return False
    same = _same_text if match.get("as_text") else _same
    keys = match.get("keys")
    if not keys:
        return any(same(i, value) for i in items)
    return any(isinstance(i, dict) and any(same(i.get(k), value) for k in keys) for i in items)


def _same(got: Any, value: Any) -> bool:
    return bool(got == value)


def _same_text(got: Any, value: Any) -> bool:
    # A whole float is the integer it holds (an id listed as 3.0 is the id 3).
    text = str(int(got)) if isinstance(got, float) and got.is_integer() else str(got)
    return text == str(value)


def _echoed(steps: Steps, step: dict[str, Any]) -> dict[str, Any]:
    """The members (and values) step ``echoes.of`` sent that this step's answer must show."""
    spec = step["echoes"]
    source = steps.done.get(spec["of"])
    if source is None or not isinstance(source.sent, dict):
        raise Unresolved(f"echoes of {spec['of']!r}: no body of that step")
    members = spec.get("members") or list(source.sent)
    out = {}
    for member in members:
        try:
            out[member] = dig(source.sent, member)
        except KeyError:
            raise Unresolved(f"step {spec['of']!r} sent no {member}") from None
    return out


_DOT = re.compile(r"\.(?![^{}]*\})")  # a dot between members, not one inside a template


def _member_path(steps: Steps, member: str) -> list[str]:
    """The segments of a dotted member, each template resolved on its own: a value an earlier
    answer listed may itself hold dots (a facet named ``bitcoin.ip``)."""
    return [str(steps.resolve(part)) for part in _DOT.split(member) if part]


def _at(answer: Any, path: list[str], any_case: bool = False) -> Any:
    node = answer
    for part in path:
        if isinstance(node, dict) and any_case and part not in node:
            part = next((key for key in node if isinstance(key, str) and key.casefold() == part.casefold()), part)
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(".".join(path))
    return node


def _held(answer: Any, path: list[str], any_case: bool = False) -> bool:
    try:
        _at(answer, path, any_case)
    except KeyError:
        return False
    return True


def _judge(ctx: CheckContext, steps: Steps, done: Done, controlled: bool = False) -> None:
    """The step's answer, judged in an order that says what each finding rests on: its status, its
    documented body and what it must not hold come first; ``needs`` then decides whether the rest
    (what it must hold or show) can be judged on this target at all."""
    step, rule_id, exchange = done.step, ctx.rule.id, done.exchange
    label = f"{step.get('name') or step['call']} ({step['call']})"
    if step.get("skip_if_refused") and 400 <= exchange.response.status < 500:
        ctx.skip(f"{label} answered {exchange.response.status}: the target's present state does not allow what "
                 "the rule checks (a setting names a resource in another state)")
    if step.get("control"):
        expect_accepted(ctx, exchange, f"{label}, the control")
    if "expect" in step:
        expected = step["expect"]
        why = f"{label}: the resource must no longer be served" if expected == "gone" else label
        expect(exchange.response.status < 500, rule_id, f"{label} crashed", exchange=exchange,
               expected="an answer below 500")
        expect_status(rule_id, exchange, _statuses(ctx, step["call"], expected, controlled), why)
    if step.get("valid"):
        schema = ctx.contract.response_schema(step["call"], exchange.response.status)
        expect(schema is not None, rule_id, f"{label}: status {exchange.response.status} has no documented body",
               exchange=exchange, expected="a status whose body the contract documents")
        expect_json_schema(rule_id, ctx.contract, exchange, schema or {}, label)
    answer = done.answer
    if "only" in step:
        asked = {str(steps.resolve(name)) for name in step["only"]}
        stray = sorted(set(answer) - asked) if isinstance(answer, dict) else ["(not an object)"]
        expect(not stray, rule_id, f"after {label}, the answer holds {stray}, which were not asked",
               exchange=exchange, expected=f"members among {sorted(asked)}")
    if 200 <= exchange.response.status < 300:
        paths = [_member_path(steps, m) for m in step.get("needs") or []]
        # A member answered null (a "no data" answer) leaves as little to judge as one left out.
        missing = [".".join(path) for path in paths if not _held(answer, path) or _at(answer, path, False) is None]
        if missing:
            ctx.skip(f"{label} answered without {', '.join(missing)}: nothing to judge on this target")
    _judge_members(ctx, steps, done, label)


def _judge_members(ctx: CheckContext, steps: Steps, done: Done, label: str) -> None:
    """What the answer must show, hold or lack, and how it compares with earlier answers."""
    step, rule_id, exchange, answer = done.step, ctx.rule.id, done.exchange, done.answer
    any_case = bool(step.get("any_case"))
    wanted = dict(steps.resolve(step.get("shows") or {}))
    if "echoes" in step:
        wanted.update(_echoed(steps, step))
    for member, value in wanted.items():
        try:
            got: Any = _at(answer, _member_path(steps, member), any_case)
        except KeyError:
            got = "(absent)"
        expect(got == value, rule_id, f"after {label}, {member} is {got!r}", exchange=exchange,
               expected=f"{member} = {value!r}, the effect of the write")
    for key, present in (("has", True), ("lacks", False)):
        for path in [_member_path(steps, m) for m in step.get(key) or []]:
            member = ".".join(path)
            expect(_held(answer, path, any_case) == present, rule_id,
                   f"after {label}, the answer {'lacks' if present else 'holds'} {member}", exchange=exchange,
                   expected=f"{member} {'in' if present else 'not in'} the answer")
    if "differs" in step:
        _differs(ctx, steps, done, step["differs"], label)
    for key, present in (("contains", True), ("excludes", False)):
        if key in step:
            match = step[key]
            value = steps.resolve(match["value"])
            expect(_holds(answer, match, value) == present, rule_id,
                   f"after {label}, {value!r} is {'missing from' if present else 'still in'} {match['at']}",
                   exchange=exchange, expected=f"{value!r} {'in' if present else 'not in'} {match['at']}")


def _differs(ctx: CheckContext, steps: Steps, done: Done, spec: dict[str, Any], label: str) -> None:
    path, before = _member_path(steps, spec["member"]), steps.done.get(spec["of"])
    member = ".".join(path)
    if before is None:
        raise Unresolved(f"differs from {spec['of']!r}: no such step before")
    try:
        was: Any = _at(before.answer, path)
    except KeyError:
        raise Unresolved(f"step {spec['of']!r} answered no {member}") from None
    try:
        now: Any = _at(done.answer, path)
    except KeyError:
        now = "(absent)"
    expect(now != was, ctx.rule.id, f"after {label}, {member} is still {was!r}", exchange=done.exchange,
           expected=f"{member} other than {spec['of']}'s {was!r}, the effect of the write")


@named("read-after-write",
       params={"steps": {"type": "array", "items": _JUDGED_STEP, "minItems": 1}, "as": AUTH_AS_SCHEMA},
       required=("steps",))
def read_after_write(ctx: CheckContext) -> None:
    steps = Steps(ctx, ctx.rule.params.get("as"))
    declared: list[dict[str, Any]] = ctx.rule.params["steps"]
    steps.guard(declared)
    controlled = False  # a control step was accepted: a refusal without a documented status can be told
    for step in declared:
        if step.get("restore"):
            _restore(steps, step)
            continue
        try:
            done = steps.send(step)
            _judge(ctx, steps, done, controlled)
            controlled = controlled or bool(step.get("control"))
        except Unresolved as missing:
            ctx.skip(f"{step['call']}: {missing}: nothing to read back on this target")


def _restore(steps: Steps, step: dict[str, Any]) -> None:
    """A step that leaves the target as found: sent where its references resolve, never judged."""
    when = step.get("when")
    try:
        if when:
            before = steps.done.get(when["step"])
            value = steps.resolve(when["contains"]["value"])
            if before is None or not _holds(before.answer, when["contains"], value):
                return
        steps.send(step)
    except Unresolved:
        return


def _probe_value(candidates: list[Any], current: Any) -> Any:
    """A candidate the server did not choose itself, so an ignored write is visible."""
    return next(c for c in candidates if c != current)


def _read_member(steps: Steps, read: dict[str, Any], member: str) -> Any:
    try:
        return dig(steps.send(read).answer, member)
    except KeyError:
        return None


@named("read-only-ignored",
       params={"write": STEP_SCHEMA, "read": STEP_SCHEMA,
               "probes": {"type": "object", "additionalProperties": {"type": "array", "minItems": 2}}},
       required=("write", "read", "probes"))
def read_only_ignored(ctx: CheckContext) -> None:
    params = ctx.rule.params
    write, read = {**params["write"], "name": "write"}, params["read"]
    steps = Steps(ctx)
    steps.guard([write, read])
    control = steps.send(write)
    expect_accepted(ctx, control.exchange, f"{write['call']} without read-only members")
    shown: set[int] = set()
    for member, candidates in params["probes"].items():
        steps.done["write"] = control  # the current value is read where the control wrote
        sent = _probe_value(candidates, _read_member(steps, read, member))
        probe = steps.send({**write, "edits": {**(write.get("edits") or {}), member: sent}})
        status = probe.exchange.response.status
        expect(status < 500, ctx.rule.id, f"{member} sent as input crashed the server", exchange=probe.exchange,
               expected="a 4xx refusal, or a 2xx that ignores the member")
        if 400 <= status < 500:
            shown.add(0)
            continue
        expect_status(ctx.rule.id, probe.exchange, set(range(200, 300)), f"{member} sent as input")
        stored = _read_member(steps, read, member)
        expect(stored != sent, ctx.rule.id, f"read-only {member} was written: {read['call']} now shows {stored!r}",
               exchange=probe.exchange, expected=f"{member} refused or ignored, never stored as sent")
        shown.add(1)
    ctx.observed(*sorted(shown))


def written_steps(params: dict[str, Any]) -> list[dict[str, Any]]:
    """The writes (not GET) of a ``read-after-write`` rule whose effect a later step judges: one a
    later step ``echoes``, or one whose next step is a read expecting the resource ``gone`` or a
    value in (``contains``) or out of (``excludes``) a list. What 'write not applied' breaks."""
    declared = [s for s in params.get("steps") or [] if not s.get("restore")]
    out = []
    for index, step in enumerate(declared):
        if step["call"].startswith("GET "):
            continue
        later = declared[index + 1:]
        echoed = bool(step.get("name")) and any((s.get("echoes") or {}).get("of") == step["name"] for s in later)
        following = later[0] if later else {}
        judged_next = following.get("expect") == "gone" or "contains" in following or "excludes" in following
        if echoed or judged_next:
            out.append(step)
    return out


def judged_members(params: dict[str, Any], step: dict[str, Any]) -> list[str] | None:
    """The members of ``step``'s body a step ``echoes`` (None: all it sent, or none named)."""
    members: list[str] = []
    for judging in params.get("steps") or []:
        echoes = judging.get("echoes") or {}
        if step.get("name") and echoes.get("of") == step.get("name"):
            if not echoes.get("members"):
                return None
            members += echoes["members"]
    return members or None


@named("write-repeated", params={"path_values": {"type": "object", "additionalProperties": {"type": "string"}}})
def write_repeated(ctx: CheckContext) -> None:
    """The rule's write (a delete of a configured resource, say) is accepted, and the same write
    sent again, whose answer the document may not show (refused, or accepted idempotently), gets
    any answer below 500: which one is reported to ``params.observes``, if named."""
    rule = ctx.rule
    if not rule.operation:
        raise ContractFileError(f"{rule.id}: write-repeated needs the rule's operation")
    values = ctx.settings_in(rule.params.get("path_values"))
    first = ctx.call(rule.operation, path_values=values)
    expect_status(rule.id, first, success_statuses(ctx.contract, rule.operation), f"{rule.operation} (the first time)")
    again = ctx.call(rule.operation, path_values=values)
    expect(again.response.status < 500, rule.id, f"{rule.operation} sent again crashed", exchange=again,
           expected="any answer below 500")
    if rule.params.get("observes"):
        ctx.observed(f"a second {rule.method.lower()} answered {again.response.status}")

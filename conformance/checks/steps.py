"""Requests declared as data: the steps of a read-after-write or filter rule (a building block).

A step is a mapping in a rule's params::

    {call: "PATCH /accounts/{email}", name: update, path: {email: "{ACCOUNT_EMAIL}"},
     body: example, edits: {first_name: Grace}, omit: [signature], query: {...}, headers: {...}}

* ``body: example`` is the operation's example on this target (``checks/examples.py``), its
  ``x-unique`` members new on every step, so a create never collides with an earlier one;
  any other ``body`` is sent as given (after templates).
* Templates in any value: ``"{NAME}"`` is target setting NAME (configured, else its rules.yaml
  default); ``"{$update.sent.first_name}"`` is what step ``update`` sent,
  ``"{$read.answer.conversions.0.id}"`` what it got back (a whole string keeps the value's type,
  so ``"{$update.sent}"`` is a whole body). A reference that
  does not resolve (the answer holds no row) raises ``Unresolved``: the check decides whether
  that is a skip (nothing to exercise) or nothing at all (a restoring step).
* Without ``path``, path values come from the operation's example request (catalogue
  ``path_values`` or the parameter's ``x-setting``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import partial
from itertools import count
from typing import Any

from conformance.auth.variants import AUTH_AS_SCHEMA, DEFAULT, auth_as, render
from conformance.checks.boundary import MISSING, with_member
from conformance.checks.context import CheckContext
from conformance.checks.examples import example_body, example_request, setting, unique
from conformance.transport.model import Exchange

__all__ = ["STEP_SCHEMA", "Done", "Steps", "Unresolved", "dig"]

_ANY_OBJECT: dict[str, Any] = {"type": "object"}
STEP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "call": {"type": "string", "pattern": r"^[A-Z]+ /"},
        "name": {"type": "string", "pattern": r"^[a-z][a-z0-9_-]*$"},
        "path": {"type": "object", "additionalProperties": {"type": "string"}},
        "query": _ANY_OBJECT,
        "body": {},
        "edits": _ANY_OBJECT,
        "omit": {"type": "array", "items": {"type": "string"}},
        "headers": {"type": "object", "additionalProperties": {"type": "string"}},
        "as": AUTH_AS_SCHEMA,
    },
    "required": ["call"],
    "additionalProperties": False,
}

_REF = re.compile(r"\{\$([a-z][a-z0-9_-]*)\.(sent|answer)((?:\.[^.{}]+)*)\}")
_ABSENT = object()


class Unresolved(Exception):
    """A ``{$step...}`` reference names nothing (no such step yet, or no such member)."""


def dig(node: Any, dotted: str) -> Any:
    """The member at ``a.b.0.c`` (digits index arrays); KeyError where any step is missing."""
    for part in [p for p in dotted.split(".") if p]:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(dotted)
    return node


@dataclass(frozen=True)
class Done:
    """One step sent: its body and the JSON of its answer (None when not JSON)."""

    step: dict[str, Any]
    sent: Any
    exchange: Exchange

    @property
    def answer(self) -> Any:
        try:
            return self.exchange.response.json()
        except ValueError:
            return None


class Steps:
    """Sends steps for one case and remembers what each named step sent and got."""

    def __init__(self, ctx: CheckContext, auth: dict[str, Any] | None = None) -> None:
        self.ctx = ctx
        self.done: dict[str, Done] = {}
        self._serial = count(1)
        self._auth = auth_as(auth) if auth else DEFAULT

    def guard(self, steps: list[dict[str, Any]]) -> None:
        """Every step's operation through the live-target guard before the first is sent, so a
        run that may not write skips before it changes anything."""
        for step in steps:
            self.ctx.guard(step["call"])

    def resolve(self, node: Any) -> Any:
        if isinstance(node, str):
            whole = _REF.fullmatch(node)
            if whole:
                return self._ref(whole)
            text = _REF.sub(lambda m: str(self._ref(m)), node)
            # A setting configured, else its rules.yaml default (the simulator's), else a skip.
            return render(text, partial(setting, self.ctx)) if "{" in text else text
        if isinstance(node, list):
            return [self.resolve(item) for item in node]
        if isinstance(node, dict):
            return {key: self.resolve(value) for key, value in node.items()}
        return node

    def _ref(self, match: re.Match[str]) -> Any:
        name, side, dotted = match.group(1), match.group(2), match.group(3)
        done = self.done.get(name)
        if done is None:
            raise Unresolved(f"{match.group(0)}: no step {name!r} was sent before")
        try:
            return dig(done.sent if side == "sent" else done.answer, dotted)
        except KeyError:
            what = f"member {dotted[1:]}" if dotted else "body"
            raise Unresolved(f"{match.group(0)}: step {name!r} {side} no {what}") from None

    def body(self, step: dict[str, Any]) -> Any:
        operation = step["call"]
        given = step.get("body")
        if given == "example":
            body = unique(self.ctx, operation, example_body(self.ctx, operation), next(self._serial))
        else:
            body = self.resolve(given)
        if isinstance(body, dict):
            for dotted, value in self.resolve(step.get("edits") or {}).items():
                body = with_member(body, dotted, value)
            for dotted in step.get("omit") or []:
                body = with_member(body, dotted, MISSING)
        return body

    def send(self, step: dict[str, Any], body: Any = _ABSENT, *, backoff: bool = True) -> Done:
        """Send ``step`` (with ``body`` instead of its own when given) and remember it by name;
        ``backoff=False`` hands a 429 back as it came (a check of the rate limit itself)."""
        operation = step["call"]
        sent = self.body(step) if body is _ABSENT else body
        if "path" in step:
            path = {k: str(v) for k, v in self.resolve(step["path"]).items()}
        else:
            path = example_request(self.ctx, operation).path if "{" in operation else {}
        kwargs: dict[str, Any] = {}
        if sent is not None:
            kwargs["json_body"] = sent
        if step.get("query"):
            kwargs["params"] = self.resolve(step["query"])
        if step.get("headers"):
            kwargs["headers"] = self.resolve(step["headers"])
        how = auth_as(step["as"]) if "as" in step else self._auth
        exchange = self.ctx.call(operation, auth=how, path_values=path, backoff=backoff, **kwargs)
        done = Done(step, sent, exchange)
        if step.get("name"):
            self.done[step["name"]] = done
        return done

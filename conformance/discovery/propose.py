"""Propose a target's settings from the target's own answers to documented read operations.

What to read for each setting is data: ``discover:`` on the setting in ``schemas/<id>/rules.yaml``
(its shape: ``catalogue_schema.DISCOVER_SCHEMA``; the loader holds it to operations without
x-effects). Adding a service adds data, not code. Nothing is guessed: a setting whose answer does
not show the value (no records, too few, no next cursor, no Date header, a read that needs a
setting nobody gave) stays unset with that reason. Secrets are inputs only: they fill the requests'
credentials and are never proposed; a value that holds one is dropped.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

from conformance.auth.variants import DEFAULT, apply_auth
from conformance.contract import Contract
from conformance.errors import HarnessError, ResponseTooLarge, ResponseUndecodable, RuleSkipped
from conformance.targets.base import Target
from conformance.transport.model import Exchange, Request
from conformance.transport.session import Session

__all__ = ["Proposal", "discover"]

# Pages followed for an ``all`` source when its ``pages`` gives no ``max``: a bound against a
# target whose cursor never ends.
_MAX_PAGES = 20


@dataclass(frozen=True)
class Proposal:
    """One target setting: its proposed ``value`` and where it came from, or None and why not."""

    name: str
    value: str | None
    source: str
    given: bool = False  # the user set it: kept, never replaced


class _Unset(Exception):
    """The setting cannot be derived; the message says why."""


class _Reader:
    """Sends each distinct read once per discovery (several settings read the same list)."""

    def __init__(self, contract: Contract, target: Target, session: Session,
                 lookup: Callable[[str], str]) -> None:
        self.contract, self.target, self.session, self.lookup = contract, target, session, lookup
        self._answers: dict[str, Exchange] = {}

    def read(self, operation: str, spec: dict[str, Any], page: dict[str, str] | None = None) -> Exchange:
        method, template = operation.split(" ", 1)
        path = template
        for name, value in (spec.get("path") or {}).items():
            path = path.replace("{" + name + "}", self.render(value))
        query = {k: self.render(v) if isinstance(v, str) else v for k, v in (spec.get("query") or {}).items()}
        query.update(page or {})
        path = self.contract.prefix_for(operation) + path
        body = self.example(operation) if spec.get("body") == "example" else spec.get("body")
        key = json.dumps([method, path, query, body], sort_keys=True, default=str)
        if key not in self._answers:
            request = Request.build(method, path, params=query, json_body=body)
            request = apply_auth(self.contract, operation, request, DEFAULT, self._credential, self._token)
            # A target that cannot be reached (TargetUnreachable) ends discovery with that one line.
            try:
                self._answers[key] = self.session.send_with_backoff(request)
            # Still 429 after backing off; a body past the cap, or one that does not decode.
            except (RuleSkipped, ResponseTooLarge, ResponseUndecodable) as exc:
                raise _Unset(f"{method} {path}: {exc}") from None
        answer = self._answers[key]
        if not 200 <= answer.response.status < 300:
            raise _Unset(f"{method} {path} answered {answer.response.status}")
        return answer

    def example(self, operation: str) -> Any:
        """The operation's documented example body on this target, as the rules send it
        (``checks/examples.py``): ``{NAME}`` rendered, ``x-settings`` members from settings that
        are set (else the example's own value), ``x-relative-dates`` counted from the target's today."""
        media = self.contract.json_media(operation)

        def fill(node: Any) -> Any:
            if isinstance(node, str):
                return self.render(node)
            if isinstance(node, list):
                return [fill(item) for item in node]
            return {k: fill(v) for k, v in node.items()} if isinstance(node, dict) else node

        body = fill(self.contract.request_example(operation))
        if not isinstance(body, dict):
            return body
        for member, name in (media.get("x-settings") or {}).items():
            try:
                value = self.lookup(str(name))
            except _Unset:
                continue
            body[member] = int(value) if isinstance(body.get(member), int) and value.isdigit() else value
        relative = media.get("x-relative-dates") or {}
        if relative:
            try:
                text = self.lookup("TODAY")
            except _Unset:
                text = str(self.contract.settings.get("today") or "")
            try:
                today = date.fromisoformat(text)
            except ValueError:
                raise _Unset(f"{operation}'s example is dated from the target's today, which is not known") from None
            for member, rel in relative.items():
                day = today + timedelta(days=int(rel["days"]))
                body[member] = f"{day.isoformat()} 00:00:00" if rel.get("format") == "datetime" else day.isoformat()
        return body

    def render(self, template: str) -> str:
        names = [field for _t, field, _f, _c in string.Formatter().parse(template) if field]
        return template.format(**{name: self.lookup(name) for name in names})

    def _credential(self, name: str) -> str:
        value = self.target.credential(name)
        if not value:
            raise _Unset(f"the read needs {name}, which is not set")
        return value

    def _token(self, name: str, source: str) -> str:
        raise _Unset(f"the read needs {name}, a token obtained from {source} (discovery does not obtain tokens)")


def _at(node: Any, dotted: str) -> Any:
    for part in dotted.split(".") if dotted else []:
        if isinstance(node, list) and part.isdigit():  # "groups.0": a list's first element
            node = node[int(part)] if int(part) < len(node) else None
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node


def _text(value: Any) -> str | None:
    # Ids come as strings or numbers; anything else (an object, a flag, null) is not a value.
    if isinstance(value, bool) or value is None or isinstance(value, (dict, list)):
        return None
    return str(value)


def _records(answer: Exchange, spec: dict[str, Any]) -> tuple[Any, list[Any]]:
    try:
        body = json.loads(answer.response.body or b"null")
    except ValueError:
        raise _Unset(f"{answer.request.method} {answer.request.path} answered a body that is not JSON") from None
    records = _at(body, spec.get("items", ""))
    if isinstance(records, dict):
        records = [records]  # one record (a get by id)
    if not isinstance(records, list):
        raise _Unset(f"{answer.request.method} {answer.request.path}: no list at {spec.get('items') or 'the top'}")
    return body, records


def _matching(reader: _Reader, records: list[Any], spec: dict[str, Any]) -> list[Any]:
    # A string names its value as text (settings rendered: "{PROFILE_ID}"), since ids come as
    # numbers or strings; other values (true, 0) are compared as they are.
    where = {m: reader.render(v) if isinstance(v, str) else v for m, v in (spec.get("where") or {}).items()}
    unlike = {reader.render(member): reader.render(value) for member, value in (spec.get("unlike") or {}).items()}

    def equal(got: Any, want: Any) -> bool:
        return _text(got) == want if isinstance(want, str) else bool(got == want)

    def fits(record: Any) -> bool:
        if not isinstance(record, dict) or not all(equal(_at(record, m), v) for m, v in where.items()):
            return False
        for member, value in unlike.items():
            got = _at(record, member)
            if (value in [_text(g) for g in got]) if isinstance(got, list) else _text(got) == value:
                return False
        return True

    return [r for r in records if fits(r)]


def _distinct(values: Iterator[str | None]) -> list[str]:
    return list(dict.fromkeys(v for v in values if v))


def _where(spec: dict[str, Any], member: str) -> str:
    items = spec.get("items") or ""
    filters = "".join(f", {m} = {json.dumps(v)}" for m, v in (spec.get("where") or {}).items())
    filters += "".join(f", {m} not {v}" for m, v in (spec.get("unlike") or {}).items())
    return f"{items + '[]' if items else '[]'}.{member}{filters}"


def _derive(reader: _Reader, spec: dict[str, Any]) -> tuple[str, str]:
    """(value, where it came from) for one ``discover`` source, or _Unset."""
    operation = spec["operation"]
    kind = spec.get("value", "member")
    answer = reader.read(operation, spec)
    shown = f"{answer.request.method} {answer.request.path}"
    if kind == "date":
        stamp = answer.response.headers.get("date")
        if not stamp:
            raise _Unset(f"{shown} answered without a Date header")
        try:
            return parsedate_to_datetime(stamp).date().isoformat(), f"{shown}, Date header {stamp!r}"
        except (TypeError, ValueError):
            raise _Unset(f"{shown}: Date header {stamp!r} is not an HTTP date") from None
    member = reader.render(spec.get("member", ""))
    body, records = _records(answer, spec)
    if kind in ("page-size", "cursor-member"):
        last = _text(_at(records[-1], member)) if records else None
        cursor = next((name for name, value in (body.items() if isinstance(body, dict) else ())
                       if last is not None and _text(value) == last), None)
        if cursor is None:
            raise _Unset(f"{shown}: no page member carries the last record's {member} (one page only, or the "
                         "next cursor is not the last record's id)")
        if kind == "cursor-member":
            return cursor, f"{shown}: member {cursor!r} holds the last record's {member}"
        return str(len(records)), f"{shown}: a page with a next cursor ({cursor}) holds {len(records)} records"
    if "all" in spec:
        values, pages, page = [], 0, None
        bound = int((spec.get("pages") or {}).get("max", _MAX_PAGES))
        while True:
            body, records = _records(reader.read(operation, spec, page), spec)
            values += [_text(_at(r, member)) for r in _matching(reader, records, spec)]
            pages += 1
            nxt = _text(_at(body, spec["pages"]["next"])) if spec.get("pages") else None
            if not nxt or pages >= bound:
                break
            page = {spec["pages"]["param"]: nxt}
        found = _distinct(iter(values))
        least = int(spec["all"].get("min", 1))
        if len(found) < least:
            raise _Unset(f"{shown}: {len(found)} distinct {member} over {pages} page(s), {least} needed")
        return spec["all"]["join"].join(found), f"{shown}, {pages} page(s): every {_where(spec, member)}"
    pick = int(spec.get("pick", 0))
    found = _distinct(_text(_at(r, member)) for r in _matching(reader, records, spec))
    if len(found) <= pick:
        raise _Unset(f"{shown}: {len(found)} record(s) with {_where(spec, member)}, {pick + 1} needed")
    return found[pick], f"{shown}: {_where(spec, member)} (distinct value {pick + 1} of {len(found)})"


def discover(contract: Contract, target: Target) -> list[Proposal]:
    """A proposal for every target setting (secret: false) of ``contract``, in catalogue order:
    kept when the user set it, else read from the target as its ``discover`` source says."""
    found: dict[str, str] = {}
    defaults = contract.settings.get("defaults") or {}

    def lookup(name: str) -> str:
        value = target.credential(name) or found.get(name) or defaults.get(name)
        if value is None:
            raise _Unset(f"the read needs {name}, which is neither set nor discovered")
        return str(value)

    secrets = target.secrets()
    out: list[Proposal] = []
    with target.session("discover") as session:
        reader = _Reader(contract, target, session, lookup)
        for cred in contract.settings.get("credentials", []):
            name, spec = str(cred["name"]), cred.get("discover") or {}
            if cred.get("secret", True):
                continue
            if target.credential(name):
                out.append(Proposal(name, target.credential(name), "set by you; kept", given=True))
                continue
            default = f"; the default {defaults[name]!r} stays in force" if name in defaults else ""
            if "operation" not in spec:
                why = spec.get("never") or "no documented read shows it (rules.yaml gives it no discover source)"
                out.append(Proposal(name, None, why + default))
                continue
            try:
                value, source = _derive(reader, spec)
            except _Unset as exc:
                out.append(Proposal(name, None, f"{exc}{default}"))
                continue
            except (KeyError, IndexError, TypeError, ValueError) as exc:
                raise HarnessError(f"{contract.service}: discover source of {name} is malformed ({exc})") from None
            if any(secret in value for secret in secrets):
                out.append(Proposal(name, None, f"{source}: the value holds a credential, not proposed"))
                continue
            found[name] = value
            out.append(Proposal(name, value, source))
    return out

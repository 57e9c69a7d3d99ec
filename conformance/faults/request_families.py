"""Variant families over what a server takes in a JSON request body: where the document does not
say which values of a member are valid, a conforming server may refuse some the simulator takes,
or take some the simulator refuses (faults/families.py lists every family a gap may allow).

Members are picked by dotted patterns (faults/json_paths.py) over the request body; a refusal is
answered before the simulator sees the request (a server validating its input first), so nothing
refused leaves state behind.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

from conformance.faults.base import FaultySimulator
from conformance.faults.gap_params import Params
from conformance.faults.json_paths import DROP, Pattern, edit_members, pattern
from conformance.faults.toolkit import Match, Wrap, request_body
from conformance.simulators.base import SimError, Simulator
from conformance.transport.model import Request, Response

__all__ = ["REQUEST_FAMILIES"]

Build = Callable[[Params], tuple[Wrap, str]]
# Why a request is refused (None: it is not): reads the body and the simulator it reaches.
Refuse = Callable[[Any, Simulator], str | None]


def _patterns(p: Params) -> list[Pattern]:
    try:
        return [pattern(text) for text in p.texts("members")]
    except ValueError as exc:
        raise p.error(f"'members': {exc}") from None


def _picked(body: Any, members: list[Pattern]) -> list[Any]:
    """The values of the members the patterns pick in ``body``."""
    found: list[Any] = []

    def keep(value: Any) -> Any:
        found.append(value)
        return value

    edit_members(body, members, keep)
    return found


class _Refusing(FaultySimulator):
    """Answers ``status`` to the requests ``match`` picks whose body ``refuse`` gives a reason for,
    without handing them on (the simulator's error answer and every-answer headers all the same)."""

    def __init__(self, inner: Simulator, match: Match, refuse: Refuse, status: int) -> None:
        super().__init__(inner)
        self._match, self._refuse, self._status = match, refuse, status

    def handle(self, request: Request) -> Response:
        if self._match(request):
            try:
                body = json.loads(request.body or b"null")
            except ValueError:
                body = None
            reason = self._refuse(body, self._inner) if body is not None else None
            if reason is not None:
                return self._refusal(request, reason)
        return super().handle(request)

    def _refusal(self, request: Request, reason: str) -> Response:
        """The simulator's own error answer, with the headers it puts on every answer."""
        inner: Any = self._inner
        error = SimError(self._status, reason)
        answer = inner.error_response(error) if hasattr(inner, "error_response") else Response.json_response(
            self._status, {"message": reason})
        return inner.finish(request, answer) if hasattr(inner, "finish") else answer


def _refusing(p: Params, refuse: Refuse) -> Wrap:
    match, status = p.scope(), p.value("status", 400)
    if not isinstance(status, int) or isinstance(status, bool) or not 400 <= status <= 499:
        raise p.error(f"'status' must be a 4xx status (a refusal), not {status!r}")
    return lambda sim: _Refusing(sim, match, refuse, status)  # type: ignore[return-value]


def _values_refused(p: Params) -> tuple[Wrap, str]:
    """Values of the members picked refused: those of ``refused``, or every value not in ``accepted``
    (exactly one of the two, a list of JSON values)."""
    members = _patterns(p)
    accepted, refused = p.value("accepted", None), p.value("refused", None)
    if (accepted is None) == (refused is None):
        raise p.error("give exactly one of 'accepted' (the values taken) and 'refused' (the values refused)")
    listed = accepted if accepted is not None else refused
    if not isinstance(listed, list) or not listed:
        raise p.error(f"'{'accepted' if accepted is not None else 'refused'}' must be a non-empty list of values, "
                      f"not {listed!r}")

    def refuse(body: Any, _sim: Simulator) -> str | None:
        for value in _picked(body, members):
            if (value in listed) != (accepted is not None):
                return f"value {value!r} is not accepted"
        return None

    said = f"other than {', '.join(map(json.dumps, listed))}" if accepted is not None \
        else ", ".join(map(json.dumps, listed))
    return _refusing(p, refuse), f"{', '.join(m.text for m in members)} {said} refused"


_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _later(value: Any, now: datetime) -> bool:
    """A date after ``now``'s day (UTC), or a date and time after ``now`` (UTC where it has no zone)."""
    if not isinstance(value, str):
        return False
    text = value.strip()
    try:
        if _DAY.match(text):
            return date.fromisoformat(text) > now.date()
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return False
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)) > now


def _future_dates_refused(p: Params) -> tuple[Wrap, str]:
    """Dates of the members picked that lie after the server's now refused (its clock, in UTC)."""
    members = _patterns(p)

    def refuse(body: Any, sim: Simulator) -> str | None:
        now = datetime.fromtimestamp(sim.clock.now(), UTC)
        later = [v for v in _picked(body, members) if _later(v, now)]
        return f"{later[0]!r} lies in the future" if later else None

    return _refusing(p, refuse), f"{', '.join(m.text for m in members)} after now refused"


_TYPES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def _members_taken(p: Params) -> tuple[Wrap, str]:
    """Members the patterns pick, of one of ``types`` (JSON type names; default every type), taken
    without the check the simulator makes: left out before it reads the body. A server taking them
    in another form (a ruleset given by its id) refuses none of those types; without ``types``, a
    server that does not read the members at all (a metrics endpoint ignoring ``fields``)."""
    members, types = _patterns(p), p.texts("types", list(_TYPES))
    unknown = [t for t in types if t not in _TYPES]
    if unknown:
        raise p.error(f"'types' are JSON type names ({', '.join(_TYPES)}), not {unknown[0]!r}")
    tests = [_TYPES[t] for t in types]
    wrap = request_body(p.scope(), lambda body: edit_members(
        body, members, lambda v: DROP if any(test(v) for test in tests) else v))
    named = ", ".join(m.text for m in members)
    return wrap, f"{named} not read" if set(types) == set(_TYPES) else f"{named} taken as {' or '.join(types)}"


_LOCAL = re.compile(r"^(\d{4}-\d{2}-\d{2})([ T])(\d{2}:\d{2}:\d{2})$")


def _zoned_request_times(p: Params) -> tuple[Wrap, str]:
    """Date-times of the members picked written without a zone (``YYYY-MM-DD hh:mm:ss``, or with a
    ``T``) read as local times ``offset_hours`` from UTC: the simulator, which reads UTC, is handed
    the same instants in UTC (a server reading a request's times in its time zone setting's zone).
    Bare dates are left as they are."""
    members, offset = _patterns(p), p.value("offset_hours")
    if isinstance(offset, bool) or not isinstance(offset, (int, float)) or not -12 <= offset <= 14:
        raise p.error(f"'offset_hours' must be a number from -12 to 14 (a UTC offset), not {offset!r}")

    def in_utc(value: Any) -> Any:
        found = _LOCAL.match(value) if isinstance(value, str) else None
        if not found:
            return value
        try:
            moment = datetime.fromisoformat(f"{found.group(1)}T{found.group(3)}") - timedelta(hours=offset)
        except (ValueError, OverflowError):  # no such time (month 13, before year 1): the server refuses it as is
            return value
        return moment.strftime(f"%Y-%m-%d{found.group(2)}%H:%M:%S")

    return (request_body(p.scope(), lambda body: edit_members(body, members, in_utc)),
            f"{', '.join(m.text for m in members)} read at UTC{offset:+g}h")


REQUEST_FAMILIES: dict[str, tuple[Build, str]] = {
    "values-refused": (_values_refused, "request values the document does not list refused"),
    "future-dates-refused": (_future_dates_refused, "dates after the server's now refused"),
    "members-taken": (_members_taken, "request members not read, or taken in another type"),
    "zoned-request-times": (_zoned_request_times, "request times read in another time zone"),
}

"""What a rule's property tests drew, kept in its cassette beside the exchanges they sent.

Replay used to draw every Hypothesis example again to send the requests the cassette holds:
drawing was most of replay's time (issue 31: 2.8 of 4.7 s of the rules' own time, schemathesis's
operations and hypothesis-jsonschema's bodies), spent only to rebuild values the recording had.
A recording now keeps, per property test, the arguments each call of the test got, in call order,
with a fingerprint of what drew them (``checks/drawn.py``); replay calls the test with those
arguments, so the same requests are sent, matched against the cassette and judged by today's
code as before, without drawing.

Arguments are kept as tagged JSON so every value comes back with its type (a tuple stays a
tuple, a float a float, member order kept): a JSON object in the encoding is always a tag.
"""

from __future__ import annotations

import base64
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from conformance.errors import CassetteMismatch

__all__ = ["EXAMPLES", "ExampleBook", "Unrecordable", "decode", "encode", "examples_problem"]

# The cassette's member holding the book: {test key: {"fingerprint": str, "calls": [{param: value}]}}.
EXAMPLES = "examples"


class Unrecordable(ValueError):
    """A drawn value the encoding cannot hold: that test is drawn again on replay, as before."""


def _text(value: str) -> Any:
    if value.isascii():
        return value
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: no UTF-8 file can hold it as text
        return {"surrogates": value.encode("utf-8", "surrogatepass").hex()}
    return value


def encode(value: Any) -> Any:
    """``value`` as JSON that ``decode`` turns back into an equal value of the same types."""
    kind = type(value)
    if value is None or kind is bool or kind is int:
        return value
    if kind is str:
        return _text(value)
    if kind is float:
        return value if math.isfinite(value) else {"float": repr(value)}
    if kind is list:
        return [encode(v) for v in value]
    if kind is tuple:
        return {"tuple": [encode(v) for v in value]}
    if kind is dict:
        return {"dict": [[encode(k), encode(v)] for k, v in value.items()]}
    if kind is bytes:
        return {"bytes": base64.b64encode(value).decode("ascii")}
    raise Unrecordable(f"a drawn {kind.__name__} has no recorded form")


def decode(data: Any) -> Any:
    """The value ``encode`` gave ``data`` for; a shape it never writes is a ``CassetteMismatch``."""
    if isinstance(data, list):
        return [decode(v) for v in data]
    if not isinstance(data, dict):
        return data
    if len(data) != 1:
        raise CassetteMismatch(f"recorded example {str(data)[:80]!a} is not one tagged value; re-record it")
    (tag, inner), = data.items()
    try:
        if tag == "tuple":
            return tuple(decode(v) for v in inner)
        if tag == "dict":
            return {decode(k): decode(v) for k, v in inner}
        if tag == "bytes":
            return base64.b64decode(inner, validate=True)
        if tag == "float":
            return float(inner)
        if tag == "surrogates":
            return bytes.fromhex(inner).decode("utf-8", "surrogatepass")
    except (TypeError, ValueError) as exc:
        raise CassetteMismatch(f"recorded example {str(data)[:80]!a}: {exc}; re-record it") from None
    raise CassetteMismatch(f"recorded example has an unknown tag {str(tag)[:40]!a}; re-record it")


def examples_problem(book: Any) -> str | None:
    """What is wrong with a cassette's examples member (None: nothing)."""
    if not isinstance(book, dict):
        return "has an examples member that is not a mapping"
    for key, entry in book.items():
        if (not isinstance(entry, dict) or not isinstance(entry.get("fingerprint"), str)
                or not isinstance(entry.get("calls"), list) or not all(isinstance(c, dict) for c in entry["calls"])):
            return f"has examples for {str(key)[:60]!a} without a fingerprint and a list of calls"
    return None


@dataclass
class ExampleBook:
    """One rule's property-test examples, by test key: those its cassette holds (``found``, read
    on replay and kept when a recording adds to the cassette) and those this run drew (``drawn``,
    written when the cassette is saved)."""

    found: dict[str, Any] = field(default_factory=dict)
    drawn: dict[str, Any] = field(default_factory=dict)
    _claimed: Counter[str] = field(default_factory=Counter)

    def claim(self, parts: tuple[str, ...]) -> str:
        """The key of the next property test of the rule named by ``parts`` (a test run twice in
        one rule gets ``#2``: keys follow the order tests run in, on recording and on replay alike)."""
        key = "|".join(parts)
        self._claimed[key] += 1
        return key if self._claimed[key] == 1 else f"{key}#{self._claimed[key]}"

    def replayable(self, key: str, fingerprint: str) -> list[dict[str, Any]] | None:
        """The recorded calls of ``key`` if they were drawn as today's test would draw them."""
        entry = self.found.get(key)
        if entry is None or entry["fingerprint"] != fingerprint:
            return None
        calls: list[dict[str, Any]] = entry["calls"]
        return calls

    def start(self, key: str, fingerprint: str) -> list[dict[str, Any]]:
        """A new entry for ``key``; the caller appends each call's encoded arguments."""
        calls: list[dict[str, Any]] = []
        self.drawn[key] = {"fingerprint": fingerprint, "calls": calls}
        return calls

    def drop(self, key: str) -> None:
        """``key``'s draws cannot stand for the test (a value without a recorded form, or the
        test ended in an error of Hypothesis's own): nothing is kept, so replay draws it."""
        self.drawn.pop(key, None)
        self.found.pop(key, None)

    def saved(self) -> dict[str, Any]:
        """What the cassette holds once saved: what it held, updated with this run's draws."""
        return {**self.found, **self.drawn}

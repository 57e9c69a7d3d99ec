"""Property tests: Hypothesis's settings and seed for a check, and, on replay, the examples the
recording drew instead of drawing them again (issue 31).

On replay a property test used to draw its examples anew only to send the requests its cassette
holds: drawing was most of replay's time. Now a recording keeps the arguments of every call of
the test (``recording/examples.py``) with a fingerprint of what drew them: the generators'
versions, the seed, the settings, what the strategy is drawn from (its repr, or a text the check
gives for a strategy whose repr says little or costs a build) and the explicit examples. Replay
calls the test with the recorded arguments when today's fingerprint is the recorded one, so the
same requests go out, are matched against the cassette (a request it does not hold is the same
"re-record" error as before) and are judged by today's code. When the fingerprint differs, or
the cassette keeps no examples, the test draws as before, and a draw the cassette does not hold
is that same error: a stale cassette is found as it always was.

What the fingerprint cannot see is a change to our code that draws otherwise from the same
strategy text (none of today's checks builds a strategy its repr or ``drawn_from`` hides):
``RunSettings.draw_on_replay`` draws every example again on replay, and
``tests/harness/test_committed_cassettes.py`` replays so, holding the committed cassettes to
today's draws whatever the fingerprint says.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis.errors import UnsatisfiedAssumption
from hypothesis.strategies import SearchStrategy

from conformance.checks.codec_table import write_utf8_table
from conformance.recording.examples import ExampleBook, Unrecordable, decode, encode

__all__ = ["PLAIN", "Codec", "Strategy", "fingerprint", "hypothesis_settings", "run_drawn", "seed_for"]

# A strategy, or what builds one (a strategy costly to build is not built on replay).
Strategy = SearchStrategy[Any] | Callable[[], SearchStrategy[Any]]

# Whose versions decide what a seed draws.
_GENERATORS = ("hypothesis", "hypothesis-jsonschema", "schemathesis")

def hypothesis_settings(profile: str, *, scale: float = 1.0) -> settings:
    """gate: derandomized and bounded; nightly: deep and random. ``scale`` shrinks costly tests."""
    write_utf8_table()  # before any draw: Hypothesis would build it from every code point (204 MB)
    base: dict[str, Any] = dict(
        database=None,
        deadline=None,
        report_multiple_bugs=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                               HealthCheck.data_too_large, HealthCheck.large_base_example],
    )
    if profile == "nightly":
        return settings(max_examples=max(1, int(200 * scale)), derandomize=False, **base)
    # No shrinking in the gate: the first failing example is reported as generated, which keeps
    # a failing gate (and the kill matrix, which fails on purpose) as fast as a passing one.
    return settings(max_examples=max(1, int(20 * scale)), derandomize=True,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate], **base)


def seed_for(rule_id: str, parts: tuple[str, ...], profile: str, run_seed: int | None) -> int | None:
    """The gate's seed comes from the rule id and ``parts`` (e.g. the operation), not from the
    test function's source as ``derandomize`` would: editing a check's code then leaves the
    generated requests, and so the committed cassettes, unchanged. The nightly profile with
    --seed: the run's seed and the rule, so every rule draws its own examples and the same seed
    draws them again; without one, None (random)."""
    if profile != "gate" and run_seed is None:
        return None
    salt = () if profile == "gate" else (str(run_seed),)
    digest = hashlib.sha256("|".join((rule_id, *parts, *salt)).encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True)
class Codec:
    """A test's keyword arguments to JSON and back (``recording/examples.py`` for plain values)."""

    encode: Callable[[dict[str, Any]], dict[str, Any]]
    decode: Callable[[dict[str, Any]], dict[str, Any]]


PLAIN = Codec(lambda kwargs: {name: encode(value) for name, value in kwargs.items()},
              lambda data: {name: decode(value) for name, value in data.items()})


@functools.cache
def _generators() -> dict[str, str]:
    found = {}
    for name in _GENERATORS:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "absent"
    return found


def fingerprint(configured: settings, run_seed: int | None, drawn_from: str, test: Callable[..., None]) -> str:
    """What decides the examples a property test draws, hashed: equal fingerprints, equal draws."""
    explicit = [repr((e.args, e.kwargs)) for e in getattr(test, "hypothesis_explicit_examples", ())]
    facts = {"generators": _generators(), "seed": run_seed, "max_examples": configured.max_examples,
             "phases": [p.name for p in configured.phases], "derandomize": configured.derandomize,
             "drawn_from": drawn_from, "explicit": explicit}
    return hashlib.sha256(json.dumps(facts, default=repr).encode()).hexdigest()


def _recording(test: Callable[..., None], book: ExampleBook, key: str, mark: str, codec: Codec,
               raised: list[BaseException]) -> Callable[..., None]:
    """``test`` with each call's arguments written into ``book`` (and what it raised kept, so an
    error of Hypothesis's own can be told from the test's)."""
    calls = book.start(key, mark)

    @functools.wraps(test)  # the signature Hypothesis reads, and any explicit examples, are the test's
    def recorded(*args: Any, **kwargs: Any) -> None:
        if key in book.drawn:
            try:
                if args:
                    raise Unrecordable("a positional argument")
                calls.append(codec.encode(kwargs))
            except Unrecordable:
                book.drop(key)
        try:
            test(*args, **kwargs)
        except UnsatisfiedAssumption:
            # assume() or reject() in the test: replay calls it outside Hypothesis, where neither
            # works, so such a test keeps no examples and is drawn on replay.
            book.drop(key)
            raise
        except BaseException as exc:
            raised.append(exc)
            raise

    return recorded


def run_drawn(test: Callable[..., None], strategy: Strategy, *, parts: tuple[str, ...], book: ExampleBook | None,
              replays: bool, configured: settings, run_seed: int | None, drawn_from: str | None,
              codec: Codec = PLAIN) -> None:
    """Run ``test`` over what ``strategy`` draws (settings ``configured``, seed ``run_seed``), or
    over the examples ``book`` recorded when replaying, as the module says."""
    if drawn_from is None and not isinstance(strategy, SearchStrategy):
        raise TypeError("a strategy given by what builds it needs drawn_from: the text it is drawn from")
    raised: list[BaseException] = []
    key = mark = ""
    if book is not None:  # a cassette is read or written: only then is the strategy named
        key = book.claim(parts)
        mark = fingerprint(configured, run_seed, repr(strategy) if drawn_from is None else drawn_from, test)
        if replays:
            calls = book.replayable(key, mark)
            if calls is not None:
                for call in calls:
                    test(**codec.decode(call))
                return
        else:
            test = _recording(test, book, key, mark, codec, raised)
    drawing = strategy if isinstance(strategy, SearchStrategy) else strategy()
    run = configured(given(drawing)(test))
    if run_seed is not None:
        run = seed(run_seed)(run)
    try:
        run()
    except BaseException as exc:
        if book is not None and not replays and not (raised and exc is raised[-1]):
            book.drop(key)  # Hypothesis's own error (unsatisfiable, flaky): its draws stand for nothing
        raise

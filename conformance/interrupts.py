"""SIGINT and SIGTERM during a run: recorded first, raised once, never lost.

Python turns SIGINT into a ``KeyboardInterrupt`` wherever the main thread happens to be; landing in
a ``__del__``, a hypothesis hook or a plugin's own ``except`` it can be swallowed, and the run then
ended green (issue 22: 4 of 19 Ctrl-Cs exited 0). So the handler records the signal *before*
anything else, and the exit status is decided from that record, whatever pytest returns:

* the first signal while rules run raises ``KeyboardInterrupt`` once (the running rule is
  reported interrupted, pytest stops, what finished is written);
* inside a :func:`deferred` section (writing summary.json, an Allure result) it is only recorded,
  and raised when the section ends, so no file is left half-written;
* after the rules are done (:func:`stop_raising`) signals are only recorded: what is left is
  writing the reports, which is bounded; the third signal ends the process at once.

:func:`checkpoint` is a test hook, inert unless ``CONFORMANCE_TEST_PAUSE_AT`` names the point: the
run then writes the point's name to ``CONFORMANCE_TEST_PAUSE_FILE`` and waits there for a signal,
so a test can interrupt a real run at a named moment without guessing at timing.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["checkpoint", "deferred", "exit_status", "install", "received", "stop_if_pending", "stop_raising"]

_EXIT: dict[int, int] = {int(signal.SIGINT): 130, int(signal.SIGTERM): 143}
_NAMES: dict[int, str] = {int(signal.SIGINT): "SIGINT", int(signal.SIGTERM): "SIGTERM"}


class _State:
    def __init__(self) -> None:
        self.signals: list[int] = []
        self.raised = False  # the one KeyboardInterrupt has been raised
        self.depth = 0  # nested deferred sections
        self.raising = True  # rules still run: the first signal stops them
        self.installed = False


_state = _State()


def _handler(signum: int, frame: FrameType | None) -> None:
    _state.signals.append(signum)  # first: whatever happens next, the exit status knows
    if len(_state.signals) >= 3:
        # Two were deferred and the run is still not done: the person means it.
        os.write(2, f"conformance: {_NAMES.get(signum, signum)} a third time: stopping now\n".encode())
        os._exit(_EXIT.get(_state.signals[0], 130))
    if _state.raised or not _state.raising or _state.depth:
        return
    _state.raised = True
    raise KeyboardInterrupt


def install() -> None:
    """Handle SIGINT and SIGTERM for this process (the main thread only, as Python requires); a
    fresh record for this run."""
    global _state
    _state = _State()
    _passages.clear()
    for signum in _EXIT:
        signal.signal(signum, _handler)
    _state.installed = True


def received() -> str | None:
    """The first signal's name (``SIGINT``/``SIGTERM``), or None."""
    return _NAMES.get(_state.signals[0], str(_state.signals[0])) if _state.signals else None


def exit_status() -> int | None:
    """130 for SIGINT, 143 for SIGTERM (the first one received), None when no signal came."""
    return _EXIT.get(_state.signals[0], 130) if _state.signals else None


def stop_if_pending() -> None:
    """At a rule boundary: a signal came while rules still run, but its ``KeyboardInterrupt`` was
    swallowed by code that caught it (a ``__del__``, a plugin's ``except``): stop now, no rule more."""
    if _state.signals and _state.raising:
        _state.raised = True
        raise KeyboardInterrupt


def stop_raising() -> None:
    """The rules are done; from here signals are recorded, not raised (reports are being written)."""
    _state.raising = False


@contextmanager
def deferred() -> Iterator[None]:
    """A section no signal may cut in half (a file being written); a signal that arrives inside
    is raised as it ends, if rules still run."""
    _state.depth += 1
    try:
        yield
    finally:
        _state.depth -= 1
    if _state.installed and not _state.depth and _state.signals and _state.raising and not _state.raised:
        _state.raised = True
        raise KeyboardInterrupt


def checkpoint(name: str) -> None:
    """Test hook: pause at ``name`` when ``CONFORMANCE_TEST_PAUSE_AT`` says so (``name`` or
    ``name:N`` for its Nth passage), until a signal arrives (at most 120 s). Inert otherwise."""
    wanted = os.environ.get("CONFORMANCE_TEST_PAUSE_AT")
    if not wanted:
        return
    point, _, nth = wanted.partition(":")
    if point != name:
        return
    _passages[name] = _passages.get(name, 0) + 1
    if _passages[name] != (int(nth) if nth.isdigit() else 1):
        return
    # Counted before the pause is announced: a test that signals as soon as it reads the
    # announcement must not find its signal counted as one that came before.
    seen = len(_state.signals)
    where = os.environ.get("CONFORMANCE_TEST_PAUSE_FILE")
    if where:
        tmp = f"{where}.tmp"
        with open(tmp, "w", encoding="utf-8") as out:
            out.write(name)
        os.replace(tmp, where)
    print(f"conformance: paused at {name} (CONFORMANCE_TEST_PAUSE_AT)", file=sys.stderr, flush=True)
    deadline = time.monotonic() + 120
    # A deferred signal returns from the handler and sleep resumes (PEP 475): poll the record.
    while len(_state.signals) == seen and time.monotonic() < deadline:
        time.sleep(0.02)


_passages: dict[str, int] = {}

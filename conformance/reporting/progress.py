"""The live progress line of a conformance run: the rule being checked, counts, elapsed time.

On a terminal the line is rewritten in place; in a CI log (not a terminal) a line is printed
when a service starts, every ``every`` rules, and whenever ``heartbeat`` seconds passed without
one (a rule waiting out a rate limit against a served simulator at its real clock takes minutes,
and a CI log silent that long looks hung). pytest's dots are replaced, not added to (plugin.py:
report_teststatus).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["Progress"]


class _Writer(Protocol):
    def write(self, content: str, *, flush: bool = False) -> None: ...


@dataclass
class Progress:
    total: int
    out: _Writer
    live: bool
    every: int = 25
    width: int = 100
    counts: Counter[str] = field(default_factory=Counter)
    started: float = field(default_factory=time.monotonic)
    heartbeat: float = 30.0
    beating: bool = True  # a thread calls beat(); off where a test drives it
    _services: set[str] = field(default_factory=set)
    _current: str = "starting"
    _last_line: float = field(default_factory=time.monotonic)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)
    _beating: threading.Thread | None = None

    @property
    def done(self) -> int:
        return sum(self.counts.values())

    def line(self, rule_id: str) -> str:
        counts = ", ".join(f"{self.counts[k]} {k}" for k in ("passed", "failed", "skipped", "error")
                           if self.counts[k])
        text = (f"[{self.done:>{len(str(self.total))}}/{self.total}] {counts or 'starting'} "
                f"({time.monotonic() - self.started:.1f} s) {rule_id}")
        return text if len(text) <= self.width else text[: self.width - 3] + "..."

    def _write_line(self, text: str) -> None:
        with self._lock:
            self.out.write(text + "\n", flush=True)
            self._last_line = time.monotonic()

    def start(self, rule_id: str) -> None:
        service = rule_id.split(".", 1)[0]
        self._current = rule_id
        if self.live:
            self.out.write("\r" + self.line(rule_id).ljust(self.width), flush=True)
        else:
            if service not in self._services:
                # When a service starts (under xdist services interleave: a line for each once).
                self._write_line(self.line(rule_id))
            self._start_heartbeat()
        self._services.add(service)

    def finish(self, rule_id: str, status: str) -> None:
        self.counts[status] += 1
        if self.done >= self.total:  # every rule finished: nothing is running any more
            self._stop.set()
        if not self.live and self.done % self.every == 0 and self.done < self.total:
            self._write_line(self.line(rule_id))

    def beat(self, now: float) -> bool:
        """A line if ``heartbeat`` seconds passed since the last one (called by the heartbeat
        thread; ``now`` given, so a test drives it without waiting)."""
        if self.live or self.done >= self.total or now - self._last_line < self.heartbeat:
            return False
        self._write_line(self.line(self._current) + " (still running)")
        return True

    def _start_heartbeat(self) -> None:
        if self._beating is not None or not self.beating or self.heartbeat <= 0:
            return

        def loop() -> None:
            while not self._stop.wait(min(self.heartbeat, 5.0)):
                self.beat(time.monotonic())

        self._beating = threading.Thread(target=loop, name="conformance-progress", daemon=True)
        self._beating.start()

    def close(self) -> None:
        self._stop.set()
        if self.live:
            self.out.write("\r" + " " * self.width + "\r", flush=True)
        if self.done:
            self.out.write(self.line("done") + "\n", flush=True)

"""The live progress line of a conformance run: the rule being checked, counts, elapsed time.

On a terminal the line is rewritten in place; in a CI log (not a terminal) a line is printed
when a service starts and every ``every`` rules, so a long run shows it is alive without
flooding the log. pytest's dots are replaced, not added to (plugin.py: report_teststatus).
"""

from __future__ import annotations

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
    _services: set[str] = field(default_factory=set)

    @property
    def done(self) -> int:
        return sum(self.counts.values())

    def line(self, rule_id: str) -> str:
        counts = ", ".join(f"{self.counts[k]} {k}" for k in ("passed", "failed", "skipped", "error")
                           if self.counts[k])
        text = (f"[{self.done:>{len(str(self.total))}}/{self.total}] {counts or 'starting'} "
                f"({time.monotonic() - self.started:.1f} s) {rule_id}")
        return text if len(text) <= self.width else text[: self.width - 3] + "..."

    def start(self, rule_id: str) -> None:
        service = rule_id.split(".", 1)[0]
        if self.live:
            self.out.write("\r" + self.line(rule_id).ljust(self.width), flush=True)
        elif service not in self._services:
            # When a service starts (under xdist services interleave: a line for each once).
            self.out.write(self.line(rule_id) + "\n", flush=True)
        self._services.add(service)

    def finish(self, rule_id: str, status: str) -> None:
        self.counts[status] += 1
        if not self.live and self.done % self.every == 0 and self.done < self.total:
            self.out.write(self.line(rule_id) + "\n", flush=True)

    def close(self) -> None:
        if self.live:
            self.out.write("\r" + " " * self.width + "\r", flush=True)
        if self.done:
            self.out.write(self.line("done") + "\n", flush=True)

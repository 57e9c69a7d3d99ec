"""A gap's ``allows`` entry built as the core builds it, against a stub simulator answering what
the test says: the family tests read what the variant changes and what it leaves alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from conformance.faults.variants import gap_variants
from conformance.transport.model import Request, Response

__all__ = ["answering", "built"]


class _Gap:
    def __init__(self, allows: dict[str, Any]) -> None:
        self.id, self.allows = "test.gap.entry", (allows,)


class _Contract:
    def __init__(self, allows: dict[str, Any]) -> None:
        self.gaps = [_Gap(allows)]


class Stub:
    """Answers each request with ``answer(request)``; remembers the requests it was handed."""

    credentials: dict[str, str] = {}

    def __init__(self, answer: Callable[[Request], Response]) -> None:
        self.answer, self.seen = answer, []  # type: list[Request]

    def handle(self, request: Request) -> Response:
        self.seen.append(request)
        return self.answer(request)


def built(entry: dict[str, Any]) -> Callable[[Stub], Any]:
    """The wrapper of the variant ``entry`` (an allows entry, ``family`` and params) builds."""
    [variant] = gap_variants(_Contract(entry))  # type: ignore[arg-type]
    return variant.apply  # type: ignore[return-value]


def answering(entry: dict[str, Any]) -> Callable[[Request, Response], Response]:
    """``after(request, answer)``: the answer the variant gives where the simulator gave ``answer``."""
    wrap = built(entry)

    def after(request: Request, answer: Response) -> Response:
        return wrap(Stub(lambda _: answer)).handle(request)  # type: ignore[no-any-return]

    return after

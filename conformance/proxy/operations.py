"""Which documented operation a request is: its path held against the contract's path templates.

A literal segment beats a template one (``/generations/from-template`` is not
``/generations/{generationId}``), as OpenAPI asks of servers; a request no template matches is an
operation the contract does not know: reported, never judged.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.contract.model import Contract

__all__ = ["Matched", "OperationIndex"]


@dataclass(frozen=True)
class Matched:
    operation: str  # "GET /themes"
    path_values: dict[str, str]


class OperationIndex:
    def __init__(self, contract: Contract) -> None:
        self._templates: list[tuple[str, str, list[str]]] = []
        for operation in contract.operations():
            method, path = operation.split(" ", 1)
            prefix = contract.prefix_for(operation)
            full = (prefix + path).rstrip("/") or "/"
            self._templates.append((method, operation, [s for s in full.split("/") if s]))
        # Most literal segments first: the most specific template wins.
        self._templates.sort(key=lambda t: -sum(not _is_var(s) for s in t[2]))

    def match(self, method: str, path: str) -> Matched | None:
        segments = [s for s in path.split("/") if s]
        for wanted, operation, template in self._templates:
            if wanted != method.upper() or len(template) != len(segments):
                continue
            values: dict[str, str] = {}
            for have, want in zip(segments, template):
                if _is_var(want):
                    values[want[1:-1]] = have
                elif have != want:
                    break
            else:
                return Matched(operation, values)
        return None


def _is_var(segment: str) -> bool:
    return segment.startswith("{") and segment.endswith("}")

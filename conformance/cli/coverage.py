"""``conformance rules --coverage``: per service, the document's statements, how many rules
cover, gaps record, conflicts hold or are not checkable; ``--uncovered`` lists every statement
not covered by a rule, with how it is accounted; ``--skeleton`` prints an empty statements.yaml."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conformance.contract.statements import Statement

__all__ = ["coverage"]

_COLUMNS = ("statements", "covered", "gap", "conflict", "not-checkable")


def coverage(args: argparse.Namespace) -> int:
    from conformance.contract.loader import available_services, load_index

    services = args.service or available_services()
    if args.skeleton:
        _skeletons(services)
        return 0
    rows = [(service, load_index(service)) for service in services]
    _table([(service, _counts(index)) for service, index in rows])
    if args.uncovered:
        for service, index in rows:
            _uncovered(service, index)
    return 0


def _skeletons(services: list[str]) -> None:
    from conformance.contract.loader import _read_yaml, docs_dir, schemas_dir
    from conformance.contract.statements import skeleton, units_for

    for service in services:
        cat = _read_yaml(schemas_dir() / service / "rules.yaml")
        print(skeleton(service, units_for(service, docs_dir() / cat["document"], cat["part"])), end="")


def _counts(index: list[Statement]) -> dict[str, int]:
    counts = {"statements": len(index)}
    for statement in index:
        counts[statement.accounting.status] = counts.get(statement.accounting.status, 0) + 1
    return counts


def _table(rows: list[tuple[str, dict[str, int]]]) -> None:
    """A markdown table, one row per service and one for all of them."""
    totals: dict[str, int] = {}
    for _, counts in rows:
        for key, value in counts.items():
            totals[key] = totals.get(key, 0) + value
    print("| service | " + " | ".join(_COLUMNS) + " |\n|---" * 1 + "|---" * len(_COLUMNS) + "|")
    for service, counts in rows + [("all", totals)]:
        print(f"| {service} | " + " | ".join(str(counts.get(k, 0)) for k in _COLUMNS) + " |")


def _uncovered(service: str, index: list[Statement]) -> None:
    print(f"\n# {service}: statements no rule covers")
    for statement in index:
        a = statement.accounting
        if a.status != "covered":
            why = a.not_checkable or ", ".join(a.gaps + a.conflicts)
            print(f"  {statement.unit.id:28} {a.status:13} {statement.unit.text[:70]!r} -- {why}")

"""``conformance rules --coverage``: per service, the document's statements, how many rules and
derived probes cover fully or in part, gaps record, conflicts hold or are not checkable (each
statement counted once, the columns adding up to the statements); ``--uncovered`` lists every
statement not covered fully, with how it is accounted; ``--skeleton`` prints an empty statements.yaml."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conformance.contract.statements import Statement

__all__ = ["coverage"]

_STATUSES = ("covered", "covered-in-part", "gap", "conflict", "not-checkable")
_COLUMNS = ("statements", *_STATUSES)


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
    # Every statement has exactly one status: the columns add up, or the index is not accounted.
    assert sum(counts.get(s, 0) for s in _STATUSES) == len(index), counts
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
    print(f"\n# {service}: statements not covered fully")
    for statement in index:
        a = statement.accounting
        if a.status != "covered":
            if a.status == "covered-in-part":
                why = f"checked: {a.part}" + (f" | also {', '.join(a.gaps + a.conflicts)}" if a.gaps or a.conflicts
                                               else "")
            else:
                why = a.not_checkable or ", ".join(a.gaps + a.conflicts)
            print(f"  {statement.unit.id:28} {a.status:15} {statement.unit.text[:70]!r} -- {why}")

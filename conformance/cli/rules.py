"""``conformance rules``: the rule catalogue, each rule with its check, then gaps and conflicts;
``--coverage``, ``--uncovered`` and ``--skeleton`` go to the statement index (``coverage``)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conformance.contract import Contract

__all__ = ["register", "rules"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("rules", help="the rule catalogue with each rule's check, gaps and conflicts")
    parser.add_argument("--service", action="append")
    parser.add_argument("--coverage", action="store_true",
                        help="the statement index: per service, statements covered, gaps, not checkable")
    parser.add_argument("--uncovered", action="store_true",
                        help="with --coverage: list every statement no rule covers, with how it is accounted")
    parser.add_argument("--skeleton", action="store_true",
                        help="print an empty statements.yaml (every sentence and row of the service's part)")
    parser.set_defaults(func=rules)


def rules(args: argparse.Namespace) -> int:
    from conformance.contract import load_contract
    from conformance.contract.loader import available_services

    if args.coverage or args.skeleton:
        from conformance.cli.coverage import coverage

        return coverage(args)
    for service in args.service or available_services():
        _catalogue(service, load_contract(service))
    return 0


def _catalogue(service: str, contract: Contract) -> None:
    from conformance.runner import collect_cases

    checked = generic = standard = 0
    print(f"# {service}: {contract.title}")
    for case in collect_cases(contract):
        rule, check = case.rule, case.check
        checked += check is not None
        generic += check is not None and check.core
        name = check.name if check else "UNCHECKED"
        basis = f" [{rule.standard}]" if rule.standard else ""
        standard += bool(rule.standard)
        print(f"  {rule.id:58} {rule.kind:10} {name:28} {rule.source.text()}{basis}")
    for gap in contract.gaps:
        print(f"  {gap.id:58} {'gap':10} {'':28} {gap.statement}")
    for conflict in contract.conflicts:
        print(f"  {conflict.id:58} {'conflict':10} {'':28} {conflict.statement}")
    print(f"  -- {len(contract.rules)} rules ({checked} with a check, {generic} of them by a core check, "
          f"{standard} resting on a standard), "
          f"{len(contract.gaps)} gaps, "
          f"{len(contract.conflicts)} conflicts\n")

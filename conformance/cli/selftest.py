"""``conformance selftest``: the kill matrix, the suite against every named fault and variant."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conformance.selftest import FaultResult

__all__ = ["register", "selftest"]

# A verdict that makes the matrix fail (exit 1).
_BAD = ("DIRTY", "MISSED", "partial", "REFUSED")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("selftest", help="kill matrix: the suite against every named fault")
    parser.add_argument("--service", action="append")
    parser.add_argument("--profile", choices=("gate", "nightly"), default="gate", help="hypothesis profile")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes running faults")
    parser.add_argument("--list", action="store_true", help="list the faults and exit")
    parser.add_argument("--everything", action="store_true",
                        help="run every rule under each fault (default: only the rule it breaks)")
    parser.set_defaults(func=selftest)


def selftest(args: argparse.Namespace) -> int:
    from conformance.contract.loader import available_services
    from conformance.selftest import kill_matrix

    services = args.service or available_services()
    if args.list:
        _list(services)
        return 0
    results = kill_matrix(services, profile=args.profile, workers=args.workers, everything=args.everything)
    bad = 0
    print(f"{'service':14} {'fault':40} {'result':8} rules that caught it")
    for r in results:
        status = _verdict(r)
        bad += status in _BAD or bool(r.errors)
        caught = ", ".join(sorted(set(r.caught_by))) or "-"
        print(f"{r.service:14} {r.fault or '(none)':40} {status:8} {caught}")
        for err in r.errors:
            print(f"{'':14} {'':40} {'error':8} {err}")
    _totals(results, services)
    return 1 if bad else 0


def _list(services: list[str]) -> None:
    from conformance.services import faults_for, variants_for

    for service in services:
        for item in faults_for(service):
            print(f"{service:14} {item.name:40} breaks {item.breaks}: {item.description}")
        for allowed in variants_for(service):
            print(f"{service:14} {allowed.name:40} allowed variant: {allowed.description}")


def _verdict(r: FaultResult) -> str:
    """clean/DIRTY for a simulator without fault, allowed/REFUSED for a variant, caught/partial/MISSED for a fault."""
    if r.fault is None:
        return "clean" if not r.caught and not r.errors else "DIRTY"
    if r.variant:
        return "allowed" if not r.caught and not r.errors else "REFUSED"
    return "caught" if r.caught and r.breaks in r.caught_by else ("partial" if r.caught else "MISSED")


def _totals(results: list[FaultResult], services: list[str]) -> None:
    faults = [r for r in results if r.fault and not r.variant]
    variants = [r for r in results if r.variant]
    killed = sum(1 for r in faults if r.caught)
    print(f"\nkill matrix: {killed}/{len(faults)} faults caught; clean simulators: "
          f"{sum(1 for r in results if r.fault is None and not r.caught)}/{len(services)} pass; "
          f"allowed variants: {sum(1 for r in variants if not r.caught and not r.errors)}/{len(variants)} pass")

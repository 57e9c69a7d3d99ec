"""What ``conformance run`` checks before pytest starts: each mistake is one line, not a pytest
collection error or a traceback half-way through a run.

In the order a user meets them: the settings, the --min-checked floor, each selected contract,
the --option path settings, the fault (which also picks the services), the http target.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from conformance.errors import UsageError, did_you_mean

if TYPE_CHECKING:
    from conformance.settings import RunSettings

__all__ = ["apply_path_options", "preflight"]


def preflight(args: argparse.Namespace) -> RunSettings:
    """The run's settings, once everything that can be checked up front holds.
    With --fault and no --service, ``args.service`` becomes the services that have the fault."""
    from conformance.contract.loader import available_services
    from conformance.settings import RunSettings

    settings = RunSettings.from_env(target=args.target, profile=args.profile,
                                    record=args.record or None, record_mode=args.record_mode, fault=args.fault,
                                    allow=frozenset(args.allow or ()) or None)
    _check_floor(args.min_checked)
    _check_contracts(args.service or available_services())
    apply_path_options(args.option or [], args.service or available_services())
    if args.fault:
        args.service = args.service or _services_with_fault(args.fault)
        _check_fault(args.service, args.fault)
    if settings.target == "http":
        _check_http(args.service or available_services(), settings, discover=args.discover)
    elif args.discover:
        raise UsageError("--discover reads settings from a live target: use it with --target http")
    return settings


def _check_floor(min_checked: str | None) -> None:
    """A bad --min-checked (or CONFORMANCE_MIN_CHECKED) floor: one line, now."""
    from conformance.settings import MinChecked

    if min_checked is not None:
        MinChecked.parse(min_checked)
    elif os.environ.get("CONFORMANCE_MIN_CHECKED"):
        MinChecked.parse(os.environ["CONFORMANCE_MIN_CHECKED"], "CONFORMANCE_MIN_CHECKED")


def _check_contracts(services: list[str]) -> None:
    """A bad contract or an unknown check: one line, now."""
    from conformance.contract import load_contract
    from conformance.runner import collect_cases

    for service in services:
        collect_cases(load_contract(service))


def apply_path_options(options: list[str], services: list[str]) -> None:
    """``--option NAME=VALUE``: a path setting (OpenAPI server variable) for every selected
    service that has it, through the same environment variable ``conformance env`` lists."""
    from conformance.contract import load_contract
    from conformance.settings import env_name

    for option in options:
        name, sep, value = option.partition("=")
        if not sep or not name:
            raise UsageError(f"--option takes NAME=VALUE, got {option!r}")
        owners = [s for s in services if name in load_contract(s).server_variables()]
        if not owners:
            known = sorted({v for s in services for v in load_contract(s).server_variables()})
            raise UsageError(f"no selected service has a path setting {name!r}; known: {', '.join(known) or 'none'}")
        for service in owners:
            os.environ[env_name(service, name.upper())] = value


def _services_with_fault(fault: str) -> list[str]:
    """A fault belongs to one service's simulator: without --service, run just those that have it."""
    from conformance.contract.loader import available_services
    from conformance.services import faults_for

    services = [s for s in available_services() if any(f.name == fault for f in faults_for(s))]
    if not services:
        every = [f.name for s in available_services() for f in faults_for(s)]
        raise UsageError(f"no service has a fault named '{fault}'{did_you_mean(fault, every)}")
    return services


def _check_fault(services: list[str], fault: str) -> None:
    """Each selected service has the fault: an unknown name is one line, now."""
    from conformance.services import fault_decorator

    for service in services:
        fault_decorator(service, fault)


def _check_reachable(services: list[str]) -> None:
    """A base URL nobody listens on: one line for the run, not a failure block for every rule."""
    from conformance.cli.reachable import why_unreachable
    from conformance.errors import TargetUnreachable
    from conformance.settings import env_name

    for service in services:
        url = os.environ[env_name(service, "BASE_URL")]
        why = why_unreachable(url)
        if why:
            raise TargetUnreachable(f"nothing answers at {url} for {service} ({why}): start the target or set "
                                    f"{env_name(service, 'BASE_URL')}; no rule was run")


def _check_http(services: list[str], settings: RunSettings, *, discover: bool) -> None:
    """Every selected service has a well-formed base URL; --discover fills the rest of its settings."""
    from conformance.contract import load_contract
    from conformance.settings import env_name
    from conformance.targets import make_target

    missing = [env_name(s, "BASE_URL") for s in services if not os.environ.get(env_name(s, "BASE_URL"))]
    if missing:
        raise UsageError(f"target http needs {', '.join(missing)} (or pick services with --service); "
                         "`conformance env` lists every variable")
    for service in services:
        make_target(load_contract(service), settings).base_url()  # a malformed URL: one line, now
    _check_reachable(services)
    if discover:
        from conformance.cli.discover import apply_discovery

        apply_discovery(services)

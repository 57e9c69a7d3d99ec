"""``conformance env``: the run-wide environment variables with the value in force, then those
each service's http target reads. Answered from cached contract facts (``envfacts``), so it
imports nothing heavy (issue 31)."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from conformance.settings import env_name

if TYPE_CHECKING:
    from conformance.cli.envfacts import ServiceFacts

__all__ = ["env", "register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("env", help="the run-wide environment variables with the value in force, and those "
                                        "each service's http target reads")
    parser.add_argument("--service", action="append")
    parser.set_defaults(func=env)


def env(args: argparse.Namespace) -> int:
    from conformance.cli.envfacts import facts_for
    from conformance.cli.ids import available_services
    from conformance.settings import run_variables

    print("# run-wide (value in force)")
    for name, value, description in run_variables():
        print(f"{name:48} {value or '(unset)'}: {description}")
    print()
    for service in args.service or available_services():
        _service(service, facts_for(service))
        print()
    return 0


def _service(service: str, facts: ServiceFacts) -> None:
    print(f"# {service}: {facts.title}")
    # One entry per variable: a credential that is also a path setting (marketplace's AUTH_URL)
    # is described once, with both ways to set it.
    paths = {env_name(service, n.upper()): (n, _in_force(service, n, v), d) for n, (v, d) in facts.paths.items()}
    print(f"{env_name(service, 'BASE_URL'):48} base URL for --target http")
    for cred in facts.credentials:
        optional = " (optional)" if cred.get("optional") else ""
        variable = env_name(service, cred["name"])
        also = ""
        if variable in paths:
            name, value, _description = paths.pop(variable)
            also = f"; path setting, now {value!r}, also --option {name}=..."
        print(f"{variable:48} {cred['statement']}{optional}{also}")
    if facts.rates:
        documented = ", ".join(f"{r['requests']} requests per {r['per_seconds']} s" for r in facts.rates)
        print(f"{env_name(service, 'RATE_SCALE'):48} for --target http: times the documented client rate "
              f"({documented}) a sandbox allows (default 1; CONFORMANCE_TIME_SCALE also divides waits)")
    for variable, (name, value, description) in sorted(paths.items()):
        print(f"{variable:48} path setting (now {value!r}; also --option {name}=...)"
              f"{': ' + description if description else ''}")


def _in_force(service: str, name: str, documented: str) -> str:
    """As ``Contract.server_variable``: the environment wins over what the documents set."""
    return os.environ.get(f"CONFORMANCE_{service.upper()}_{name.upper()}", documented)

"""``conformance env``: every variable a run reads, with the value in force and where it came from
(environment, configuration file, default), credentials redacted: the run-wide ones, then those
each service's http target reads. Answered from cached contract facts (``envfacts``), so it
imports nothing heavy (issue 31).

Precedence is the run's (``configfile``): a non-empty environment variable, else the chosen
target of the configuration file, else the default.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from conformance.errors import UsageError
from conformance.settings import env_name

if TYPE_CHECKING:
    from conformance.cli.configfile import Config
    from conformance.cli.envfacts import ServiceFacts

__all__ = ["add_config_options", "env", "register"]

REDACTED = "<redacted>"


def add_config_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--config`` and ``--target-name``, the same on every command that reads the file."""
    parser.add_argument("--config", metavar="FILE",
                        help="configuration file (default: conformance.toml here or in the nearest parent directory)")
    # Not --target (the kind: sim, http, replay) nor --env (`conformance env`, and the environment
    # variables that override the file): a named target of the file, which sets the kind among others.
    parser.add_argument("--target-name", metavar="NAME",
                        help="the configuration file's named target, e.g. sandbox (default: its default_target)")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("env", help="every variable a run reads, with the value in force and where it came from "
                                        "(environment, configuration file, default)")
    parser.add_argument("--service", action="append")
    add_config_options(parser)
    parser.add_argument("--get", metavar="VARIABLE",
                        help="print only this variable's value in force (empty when unset); credentials are refused")
    parser.add_argument("--references", action="store_true",
                        help="print only the environment names the chosen target refers to, per service (what a CI "
                             "workflow must map)")
    parser.set_defaults(func=env)


def env(args: argparse.Namespace) -> int:
    from conformance.cli import configfile
    from conformance.cli.envfacts import facts_for
    from conformance.cli.ids import available_services
    from conformance.settings import RUN_VARIABLES

    services = args.service or available_services()
    if args.references:
        return _references(args, services)
    config = configfile.load(args.config, args.target_name, args.service)
    if args.get:
        return _get(args.get, config)
    _header(config)
    print("# run-wide (value in force [where it came from])")
    for variable in RUN_VARIABLES:
        value, source = _in_force(variable.name, config, variable.default)
        print(f"{variable.name:48} {value or '(unset)'}{source}: {variable.description}")
    print()
    for service in services:
        _service(service, facts_for(service), config)
        print()
    return 0


def _header(config: Config | None) -> None:
    if config is None:
        print("# configuration file: none (conformance.toml here or in a parent, or --config FILE)")
    elif config.target is None:
        print(f"# configuration file: {config.path}; no target chosen (targets: {', '.join(config.targets) or 'none'}; "
              "--target-name NAME), nothing taken from it")
    else:
        off = f"; not configured here (base_url empty): {', '.join(config.off)}" if config.off else ""
        print(f"# configuration file: {config.path}, target {config.target} (environment > file > default){off}")


def _in_force(variable: str, config: Config | None, default: str = "") -> tuple[str, str]:
    """The value a run uses and `` [source]`` (empty when nothing sets it)."""
    if os.environ.get(variable):
        return os.environ[variable], " [environment]"
    entry = config.entries.get(variable) if config else None
    if entry is not None:
        return entry.value, f" [file: {entry.key}]"
    return default, " [default]" if default else ""


def _shown(variable: str, config: Config | None, secret: bool, default: str = "") -> str:
    value, source = _in_force(variable, config, default)
    if not value:
        return f"(unset){source}"
    return f"{REDACTED if secret else value}{source}"


def _service(service: str, facts: ServiceFacts, config: Config | None) -> None:
    print(f"# {service}: {facts.title}")
    base = env_name(service, "BASE_URL")
    print(f"{base:48} {_shown(base, config, False)}: base URL for --target http")
    # One entry per variable: a credential that is also a path setting (marketplace's AUTH_URL)
    # is described once, with both ways to set it.
    paths = {env_name(service, n.upper()): (n, v, d) for n, (v, d) in facts.paths.items()}
    for cred in facts.credentials:
        optional = " (optional)" if cred.get("optional") else ""
        variable = env_name(service, cred["name"])
        also, default = "", cred.get("default", "")
        if variable in paths:
            name, default, _description = paths.pop(variable)
            also = f"; path setting, also --option {name}=..."
        shown = _shown(variable, config, bool(cred.get("secret", True)), default)
        print(f"{variable:48} {shown}: {cred['statement']}{optional}{also}")
    if facts.rates:
        documented = ", ".join(f"{r['requests']} requests per {r['per_seconds']} s" for r in facts.rates)
        rate = env_name(service, "RATE_SCALE")
        print(f"{rate:48} {_shown(rate, config, False, '1')}: for --target http: times the documented client rate "
              f"({documented}) a sandbox allows (CONFORMANCE_TIME_SCALE also divides waits)")
    for variable, (name, documented, description) in sorted(paths.items()):
        # As Contract.server_variable: the environment (even empty) wins over what the documents set.
        value = os.environ.get(variable)
        shown = f"{value!r} [environment]" if value is not None else _shown(variable, config, False, repr(documented))
        print(f"{variable:48} {shown}: path setting (also --option {name}=...)"
              f"{': ' + description if description else ''}")


def _get(variable: str, config: Config | None) -> int:
    """One value for a script (the nightly job asks whether a sandbox is configured)."""
    from conformance.cli.envfacts import facts_for
    from conformance.cli.ids import available_services

    # Every service's, not only those selected: --service must not open a way to print a secret.
    secrets = {env_name(s, c["name"]) for s in available_services() for c in facts_for(s).credentials
               if c.get("secret", True)}
    if variable in secrets:
        raise UsageError(f"{variable} is a credential: `conformance env` never prints its value")
    print(_in_force(variable, config)[0])
    return 0


def _references(args: argparse.Namespace, services: list[str]) -> int:
    """``NAME credential|setting KEY`` for each ``${NAME}`` the chosen target refers to."""
    from conformance.cli import configfile

    for service, name, secret, key in configfile.references(args.config, args.target_name, services):
        print(f"{name:40} {'credential' if secret else 'setting':10} {key} ({service})")
    return 0

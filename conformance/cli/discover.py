"""``conformance discover`` and ``run --discover``: a live target's settings, proposed from its
answers to documented reads."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from conformance.cli.env import add_config_options

if TYPE_CHECKING:
    from conformance.discovery import Proposal

__all__ = ["apply_discovery", "discover", "register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    disc = sub.add_parser("discover", help="propose a target's settings from its answers to documented reads "
                                           "(prints export lines)")
    disc.add_argument("--service", action="append", required=True, help="service id (repeatable)")
    add_config_options(disc)
    disc.set_defaults(func=discover)


def discover(args: argparse.Namespace) -> int:
    """`conformance discover --service X`: export lines for every setting it can derive."""
    from conformance.cli.configfile import configure
    from conformance.discovery import export_lines
    from conformance.reporting.text import visible
    from conformance.settings import env_name

    configure(args)  # base URL and credentials from the configuration file's target too
    for service in args.service:
        proposals = [_printable(p) for p in _proposals_for(service)]
        lines = export_lines(service, os.environ.get(env_name(service, "BASE_URL"), ""), proposals)
        # Every line quotes the target (values, and the records named in comments): escaped, so no
        # control or bidi character of the target's reaches the terminal or the shell it is pasted in.
        print("\n".join(visible(line) for line in lines))
    return 0


def _printable(proposal: Proposal) -> Proposal:
    """A value holding a control or bidi character is not proposed: escaped, it would export a
    value the target does not hold; raw, it would act on the terminal. Left unset, saying why."""
    from dataclasses import replace

    from conformance.reporting.text import visible

    value = proposal.value
    if value is None or visible(value.replace("\n", " ")) == value.replace("\n", " "):
        return proposal
    return replace(proposal, value=None, source=f"the target's value holds control or bidi characters "
                                                f"({visible(value)[:80]}); set it yourself")


def apply_discovery(services: list[str]) -> None:
    """`run --discover`: the same proposals put into this run's environment (the user's settings
    win); summary.json and the Allure environment name what was discovered."""
    from conformance.discovery import apply

    for service in services:
        names = apply(service, _proposals_for(service))
        print(f"conformance: {service}: discovered {', '.join(names) or 'nothing'} "
              "(`conformance discover` shows where from)", file=sys.stderr)


def _proposals_for(service: str) -> list[Proposal]:
    """The proposals for ``service`` from its http target (base URL and credentials from the
    environment); a target that cannot be reached is one line, exit 2."""
    from conformance.contract import load_contract
    from conformance.discovery import discover as propose
    from conformance.settings import RunSettings
    from conformance.targets import make_target

    target = make_target(load_contract(service), RunSettings.from_env(target="http"))
    target.base_url()  # a missing or malformed base URL: one line, now
    return list(propose(target.contract, target))

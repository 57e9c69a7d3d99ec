"""Proposals as shell lines to paste, and as the run's environment (``conformance run --discover``).

Each value is an ``export NAME='value'`` line (single quotes, a ``'`` inside written ``'\\''``, so
any value survives a paste), preceded by a comment saying where it came from; a setting left unset
gets a comment with the reason. Only settings (``secret: false``) appear: credentials are inputs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, MutableMapping

from conformance.checks.stale import quote_shell
from conformance.discovery.propose import Proposal
from conformance.settings import env_name

__all__ = ["DISCOVERED_ENV", "apply", "discovered", "export_lines"]

# Which values of this run were discovered, and from where: JSON {service: {NAME: source}}, set by
# ``apply`` and read into summary.json and the Allure environment.
DISCOVERED_ENV = "CONFORMANCE_DISCOVERED"


def _comment(text: str) -> str:
    # A newline in a reason (a server's text) must not end the comment and become a command.
    return "# " + " ".join(text.split())


def export_lines(service: str, base_url: str, proposals: Iterable[Proposal]) -> list[str]:
    lines = [_comment(f"{service}: settings discovered from {base_url} (`conformance discover`)")]
    for p in proposals:
        if p.given:
            lines.append(_comment(f"{p.name}: set by you; kept"))
        elif p.value is None:
            lines.append(_comment(f"{p.name}: left unset: {p.source}"))
        else:
            lines.append(_comment(f"{p.name}: from {p.source}"))
            lines.append(f"export {env_name(service, p.name)}={quote_shell(p.value)}")
    return lines


def apply(service: str, proposals: Iterable[Proposal], environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Put each discovered value the user did not set into the environment (the user's always
    wins) and record it in ``DISCOVERED_ENV``; returns the names set."""
    env = os.environ if environ is None else environ
    try:
        known = json.loads(env.get(DISCOVERED_ENV) or "{}")
    except ValueError:
        known = {}
    mine = known.setdefault(service, {})
    names = []
    for p in proposals:
        variable = env_name(service, p.name)
        if p.value is None or p.given or env.get(variable):
            continue
        env[variable] = p.value
        mine[p.name] = p.source
        names.append(p.name)
    env[DISCOVERED_ENV] = json.dumps(known, sort_keys=True)
    return names


def discovered(environ: MutableMapping[str, str] | None = None) -> dict[str, dict[str, str]]:
    """What ``apply`` recorded: {service: {NAME: source}} (empty when nothing was discovered)."""
    env = os.environ if environ is None else environ
    try:
        data = json.loads(env.get(DISCOVERED_ENV) or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}

"""A configured id the target no longer holds is a setup error naming the variable, not a failure.

Rules reach the target's records through target settings (``setting()`` in ``checks/examples.py``,
a path parameter's ``x-setting``, ``{NAME}`` in a rule's params). When the rule's request that
carries such a value as a path segment is answered 404 or 410, the target says it does not hold
the record: the rule showed nothing about the contract, and the one to act is whoever set the
variable (a sandbox the harness used before, an image already deleted, a discovered value that
turned out wrong). One place decides it, for every rule: ``stale_setting``, which the runner asks
about a failed or not-exercised rule on a live target. Only configured values count (the
environment, or what ``--discover`` put there); the simulator's defaults are ours to get right.
"""

from __future__ import annotations

from urllib.parse import unquote

from conformance.contract import Contract
from conformance.settings import env_name
from conformance.targets.base import Target
from conformance.transport.model import Exchange

__all__ = ["GONE", "quote_shell", "stale_setting"]

# What a server answers for a record it does not hold (RFC 9110 sections 15.5.5 and 15.5.11).
GONE = (404, 410)


def quote_shell(value: str) -> str:
    """``value`` in single quotes for a POSIX shell (a ``'`` inside becomes ``'\\''``)."""
    return "'" + value.replace("'", "'\\''") + "'"


def stale_setting(contract: Contract, target: Target, exchange: Exchange | None) -> str | None:
    """The setup error when ``exchange`` is a 404/410 to a request whose path carries a configured
    target setting's value as a whole segment; else None."""
    if exchange is None or exchange.response.status not in GONE:
        return None
    path = exchange.request.path.split("?", 1)[0]
    segments = {unquote(part) for part in path.split("/") if part}
    for cred in contract.settings.get("credentials", []):
        if cred.get("secret", True):
            continue  # a credential is not a record (and its value is never printed)
        name = str(cred["name"])
        value = target.credential(name)
        if value and value in segments:
            return (f"{env_name(contract.service, name)}={quote_shell(value)} : the target does not hold it "
                    f"({exchange.response.status} on {exchange.request.method} {path}), or does not serve "
                    "the route at all: one 404 cannot tell the two apart; check the value, unset it or "
                    "run with --discover")
    return None

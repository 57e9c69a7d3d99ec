"""Faults derived from an authentication rule: a server that does not check the credential.

``credential-unchecked`` for every rule the core ``auth`` check carries (kind ``auth``, or a rule
naming the check) and every ``setting-path`` rule sending a credential variant (``params.as``):
the request is served as if it carried the valid credential. Before the simulator sees a request
to one of the rule's operations (any request with the rule's method when it names a setting's
path instead), each of the operation's security schemes is filled with the simulator's seeded
credential (the scheme's ``x-credential``), and the headers the rule presents the credential in
another way (``as.also``) are left out: whatever the probe sent (nothing, an invalid key, a
partial key, another account's token, the key in the wrong place) the simulator sees the request
a client with the right key sends. A scheme whose value is obtained rather than seeded
(``x-tokens``: an OAuth access token) cannot be filled so; a rule depending on it opts out.
"""

from __future__ import annotations

from collections.abc import Callable

from conformance.auth.variants import render, scheme_location
from conformance.contract import Contract, Rule
from conformance.faults.base import Fault, FaultySimulator, derived_fault
from conformance.faults.toolkit import Match, any_request, operations
from conformance.simulators.base import Simulator
from conformance.transport.model import Request

__all__ = ["credential_requests", "credential_rule", "credential_unchecked_faults"]

# The checks that send a credential variant and hold the answer to a refusal of it.
_CHECKS = (None, "auth", "setting-path")


def credential_rule(rule: Rule) -> bool:
    """A rule whose check sends a credential variant and holds the answer to a refusal of it."""
    check = rule.params.get("check")
    return isinstance(rule.params.get("as"), dict) and check in _CHECKS and (check is not None or rule.kind == "auth")


def credential_requests(rule: Rule) -> Match:
    """The requests to the rule's operations; with none, those with its method (a setting's path)."""
    listed = rule.params.get("operations") or ([rule.operation] if rule.operation else [])
    if listed:
        return operations(str(op) for op in listed)
    method = rule.params.get("method")
    return (lambda request: request.method == method) if method else any_request


def _unchecked(contract: Contract, rule: Rule) -> Callable[[Simulator], Simulator]:
    on_rule = credential_requests(rule)
    listed: list[str | None] = [str(op) for op in rule.params.get("operations") or [rule.operation] if op] or [None]
    schemes = {name: scheme for op in listed for name, scheme in contract.security_for(op)}
    presented = [str(header).lower() for header in (rule.params["as"].get("also") or {})]

    def wrap(sim: Simulator) -> Simulator:
        seeded = dict(getattr(sim, "credentials", {}) or {})
        valid: list[tuple[str, str, str]] = []  # (header or query, name, the seeded value)
        for scheme in schemes.values():
            try:
                value = render(str(scheme.get("x-credential", "")), lambda n: seeded[n])
            except KeyError:  # obtained, not seeded (x-tokens): nothing to put in place
                continue
            valid.append((*scheme_location(scheme), value))

        def before(request: Request) -> Request:
            if not on_rule(request):
                return request
            request.headers = {k: v for k, v in request.headers.items() if k.lower() not in presented}
            for where, name, value in valid:
                if where == "header":
                    request.headers = {k: v for k, v in request.headers.items() if k.lower() != name.lower()}
                    request.headers[name.lower()] = value
                else:
                    request.query = [*[(k, v) for k, v in request.query if k != name], (name, value)]
            return request

        return FaultySimulator(sim, before=before)  # type: ignore[return-value]

    return wrap


def credential_unchecked_faults(contract: Contract) -> list[Fault]:
    faults: list[Fault] = []
    for rule in filter(credential_rule, contract.rules):
        where = rule.operation or f"{rule.params.get('method', 'any')} at {rule.params.get('setting', 'its path')}"
        faults.append(derived_fault(f"credential-unchecked:{rule.id.split('.', 1)[1]}", rule.id,
                                    f"{where} serves a request whose credential the rule varies as if it "
                                    "carried the valid one")(_unchecked(contract, rule)))
    return faults

"""Authentication as data: where credentials go comes from the contract, never from a check.

Each security scheme in ``components.securitySchemes`` carries ``x-credential``, a template over
the contract's credential names (``"{API_KEY}:{SHARED_SECRET}"``), because OpenAPI can say where a
credential goes but not what it is made of. An operation's schemes are its first ``security``
requirement (operation-level, else top-level). A check asks for a call ``AuthAs``:

* ``DEFAULT``: every scheme of the operation filled from the default credentials;
* ``NONE``: no credential at all;
* ``AuthAs(invalid=True)``: every scheme filled with a well-formed value no account has: the
  scheme's template with each credential replaced (``Bearer conformance-invalid-credential``),
  so the probe tests a token no account has, not a malformed header;
* ``AuthAs(swap={"API_KEY": "FREE_API_KEY"})``: another plan, a limited scope, another account;
* ``AuthAs(values={"oauth2": "Bearer 1.never-issued"})``: a literal value (missing part, unissued token);
* ``AuthAs(omit={"oauth2"})``: one scheme left out;
* ``AuthAs(none=True, also={"Authorization": "Bearer {API_KEY}"})``: the key presented in another
  way only (``also`` headers are added whatever else is asked).

Names a scheme lists under ``x-tokens`` (``{ACCESS_TOKEN: REFRESH_TOKEN}``) are not configured but
obtained from another credential by the service's token source (an OAuth 2.0 refresh grant).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from conformance.contract import Contract
from conformance.errors import ContractFileError
from conformance.transport.model import Request

__all__ = ["AUTH_AS_SCHEMA", "DEFAULT", "INVALID_CREDENTIAL", "NONE", "AuthAs", "apply_auth", "auth_as",
           "scheme_location"]

INVALID_CREDENTIAL = "conformance-invalid-credential"


@dataclass(frozen=True)
class AuthAs:
    none: bool = False
    invalid: bool = False
    swap: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, str] = field(default_factory=dict)
    omit: frozenset[str] = frozenset()
    also: Mapping[str, str] = field(default_factory=dict)

    def describe(self) -> str:
        if self.none:
            # A bare request may still carry an extra header (Authorization: Bearer ...): say so.
            extra = [f"{h}: {t}" for h, t in self.also.items()]
            return "without credentials" + (f" but with {', '.join(extra)}" if extra else "")
        parts = [f"{a} as {b}" for a, b in self.swap.items()] + [f"{k}={v!r}" for k, v in self.values.items()]
        parts += [f"without {o}" for o in sorted(self.omit)] + [f"{h}: {t}" for h, t in self.also.items()]
        if self.invalid:
            parts.insert(0, "invalid credentials")
        return ", ".join(parts) or "default credentials"


DEFAULT = AuthAs()
NONE = AuthAs(none=True)

# name -> its value; raises the check's skip when a credential is not configured.
Lookup = Callable[[str], str]


def scheme_location(scheme: Mapping[str, Any]) -> tuple[str, str]:
    """(``header`` or ``query``, name) where a scheme's value travels."""
    if scheme.get("type") == "apiKey":
        if scheme.get("in") not in ("header", "query"):
            raise ContractFileError(f"apiKey scheme in '{scheme.get('in')}' is not supported (header or query)")
        return str(scheme["in"]), str(scheme["name"])
    # oauth2, openIdConnect and http (bearer/basic) all travel in Authorization.
    return "header", "Authorization"


def _place(request: Request, where: str, name: str, value: str) -> None:
    if where == "header":
        request.headers[name.lower()] = value
    else:
        request.query = [(k, v) for k, v in request.query if k != name]
        request.query.append((name, value))


class _Names(dict[str, str]):
    """Formatter mapping that looks every name up lazily through ``lookup``."""

    def __init__(self, lookup: Lookup) -> None:
        super().__init__()
        self._lookup = lookup

    def __missing__(self, key: str) -> str:
        return self._lookup(key)


def render(template: str, lookup: Lookup) -> str:
    return string.Formatter().vformat(template, (), _Names(lookup))


def apply_auth(contract: Contract, operation: str | None, request: Request, how: AuthAs,
               credential: Lookup, token: Callable[[str, str], str]) -> Request:
    """Put the credentials ``how`` asks for where the operation's security schemes say.

    ``credential(name)`` gives a configured value; ``token(name, source)`` exchanges the
    configured credential ``source`` for the obtained credential ``name`` (``x-tokens``).
    """
    for scheme_name, scheme in [] if how.none else contract.security_for(operation):
        if scheme_name in how.omit:
            continue
        tokens: Mapping[str, str] = scheme.get("x-tokens") or {}

        def lookup(name: str, tokens: Mapping[str, str] = tokens) -> str:
            if name in tokens:
                return token(name, how.swap.get(tokens[name], tokens[name]))
            return credential(how.swap.get(name, name))

        if scheme_name in how.values:
            value = render(how.values[scheme_name], lookup)
        elif how.invalid:
            # The documented form (scheme word, separators) with values no account has.
            value = render(str(scheme["x-credential"]), lambda _name: INVALID_CREDENTIAL)
        else:
            value = render(str(scheme["x-credential"]), lookup)
        where, name = scheme_location(scheme)
        _place(request, where, name, value)
    for header, template in how.also.items():
        _place(request, "header", header, render(template, lambda n: credential(how.swap.get(n, n))))
    return request


AUTH_AS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "none": {"type": "boolean"},
        "invalid": {"type": "boolean"},
        "swap": {"type": "object", "additionalProperties": {"type": "string"}},
        "values": {"type": "object", "additionalProperties": {"type": "string"}},
        "omit": {"type": "array", "items": {"type": "string"}},
        "also": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}


def auth_as(spec: Mapping[str, Any]) -> AuthAs:
    """An ``AuthAs`` from its catalogue form (validated against ``AUTH_AS_SCHEMA`` by the loader)."""
    return AuthAs(none=bool(spec.get("none")), invalid=bool(spec.get("invalid")),
                  swap=dict(spec.get("swap") or {}), values=dict(spec.get("values") or {}),
                  omit=frozenset(spec.get("omit") or ()), also=dict(spec.get("also") or {}))

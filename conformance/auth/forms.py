"""Every value the configured credentials can travel in, derived from the contract.

The auth code sends what templates say: each security scheme's ``x-credential``
(``{API_KEY}:{SHARED_SECRET}``, ``Bearer {KEY_PREFIX}:{KEY_ID}:{KEY_SECRET}``, ``Bearer
{USER_ID}.{ACCESS_TOKEN}``) and the templates rules give (``as: {values: ...}``, ``also:``, a
malformed key on purpose). Any secret may stand in any secret's place (``swap``: another plan's
key). So the joined values are rendered here from the same templates and the real values, and
become secrets of their own; ``transport/scrub.forms_of`` then gives each every encoding.
Nothing is listed by hand per service.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from conformance.contract import Contract
from conformance.transport.joins import names_in, render_all, wire_values

__all__ = ["CredentialForms", "credential_templates"]


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, Mapping):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, (list, tuple)):
        for item in node:
            yield from _strings(item)


def _names(text: str) -> list[str] | None:
    try:
        return names_in(text)
    except ValueError:  # braces that are not a template (a JSON example body)
        return None


def credential_templates(contract: Contract, names: set[str]) -> list[str]:
    """The schemes' ``x-credential`` templates and every string of a rule's params that is a
    template over ``names`` alone."""
    schemes = contract.openapi.get("components", {}).get("securitySchemes") or {}
    texts = [str(s["x-credential"]) for s in schemes.values() if s.get("x-credential")]
    texts += [text for rule in contract.rules for text in _strings(rule.params) if "{" in text]
    out = []
    for text in dict.fromkeys(texts):
        found = _names(text)
        if found and set(found) <= names:
            out.append(text)
    return out


class CredentialForms:
    """The combined values of one target's credentials; ``lookup(name)`` is its configured value."""

    def __init__(self, contract: Contract, lookup: Callable[[str], str | None]) -> None:
        credentials = contract.settings.get("credentials", [])
        schemes = contract.openapi.get("components", {}).get("securitySchemes") or {}
        self._tokens = {str(n) for s in schemes.values() for n in (s.get("x-tokens") or {})}
        secret_names = {c["name"] for c in credentials if c.get("secret", True)}
        values = {c["name"]: lookup(c["name"]) for c in credentials}
        secrets = list(dict.fromkeys(v for n, v in values.items() if v and n in secret_names))
        # A secret placeholder takes any secret (a check may swap one key for another); a
        # setting (an id) takes its own value.
        self._choices: dict[str, list[str]] = {
            name: (secrets if name in secret_names else [value]) for name, value in values.items() if value}
        self._templates = [t for t in credential_templates(contract, set(values) | self._tokens)
                           if set(names_in(t)) & (secret_names | self._tokens)]
        self._secrets = secrets
        # Where the OAuth 2.0 flows issue tokens: the session learns every credential they answer.
        self.issuers = frozenset(str(flow[key]) for s in schemes.values() for flow in (s.get("flows") or {}).values()
                                 if isinstance(flow, Mapping) for key in ("tokenUrl", "refreshUrl") if flow.get(key))

    def configured(self) -> list[str]:
        """The configured secrets and every combined value they travel in."""
        rendered = {r for t in self._templates if not set(names_in(t)) & self._tokens
                    for r in render_all(t, self._choices)}
        joined = wire_values(rendered | set(self._secrets))
        return list(dict.fromkeys([*self._secrets, *sorted(joined)]))

    def obtained(self, value: str) -> list[str]:
        """The combined values an obtained credential (a token) travels in."""
        choices = {**self._choices, **{name: [value] for name in self._tokens}}
        rendered = {r for t in self._templates if set(names_in(t)) & self._tokens for r in render_all(t, choices)}
        return sorted(wire_values(rendered | {value}))

"""Dated requests: report windows from the target's "today", never from the harness's clock.

The report operations' examples carry from/to dates that are only right for one day. Their
media types say which members are relative (``x-relative-dates: {from: {days: -10, format:
date}}``); ``dated(ctx)`` gives a context whose contract's examples are re-dated from the TODAY
setting (default ``settings.today``, the simulator's date) and whose ``x-settings`` members take
configured target settings. The named check ``dated`` runs a generic check (required, enum,
limit, wrong-types) on that context, so those rules stay generic.

Proposed as a shared building block: examples with relative dates (see the report).
"""

from __future__ import annotations

import dataclasses
from datetime import date, timedelta
from typing import Any

from conformance.checks.boundary import BASE_PARAMS, enum_values, limit_boundary, required_member
from conformance.checks.context import CheckContext
from conformance.checks.registry import named
from conformance.checks.types import wrong_types_refused
from conformance.contract import Contract
from conformance.errors import ContractFileError

__all__ = ["date_text", "dated", "dated_body", "stamp_text", "today"]

_GENERIC = {"required": required_member, "enum": enum_values, "limit": limit_boundary,
            "wrong-types": wrong_types_refused}
# Keyed by the source contract's identity; the source is kept so its id cannot be reused.
_CACHE: dict[tuple[int, str, str], tuple[Contract, Contract]] = {}


def today(ctx: CheckContext) -> date:
    """The target's today: the TODAY setting, else the contract's default (the simulator's)."""
    text = ctx.optional("TODAY") or str(ctx.contract.settings.get("today", ""))
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ContractFileError(f"{ctx.rule.id}: TODAY / settings.today {text!r} is not YYYY-mm-DD") from None


def date_text(day: date) -> str:
    return day.isoformat()


def stamp_text(day: date, clock: str = "00:00:00") -> str:
    return f"{day.isoformat()} {clock}"


def _relative(spec: dict[str, Any], base: date) -> str:
    day = base + timedelta(days=int(spec["days"]))
    return stamp_text(day) if spec.get("format") == "datetime" else date_text(day)


def _settings_values(ctx: CheckContext) -> dict[str, Any]:
    zone = ctx.optional("TIMEZONE_ID")
    return {"TIMEZONE_ID": int(zone)} if zone and zone.lstrip("-").isdigit() else {}


def dated_body(ctx: CheckContext, operation: str, **members: Any) -> dict[str, Any]:
    """The operation's example re-dated from today, with ``members`` set on top."""
    return {**dated(ctx).contract.request_example(operation), **members}


def dated(ctx: CheckContext) -> CheckContext:
    """``ctx`` with a contract whose dated examples are right for the target's today.

    Only the example objects are replaced: schema objects stay the same, so validators cached
    by schema identity still apply."""
    base = today(ctx)
    values = _settings_values(ctx)
    key = (id(ctx.contract), base.isoformat(), repr(sorted(values.items())))
    if key not in _CACHE or _CACHE[key][0] is not ctx.contract:
        examples: dict[str, Any] = {}
        for operation in ctx.contract.operations():
            media = ctx.contract.json_media(operation)
            relative, settings = media.get("x-relative-dates"), media.get("x-settings") or {}
            if not relative and not settings:
                continue
            example = dict(media.get("example") or {})
            for member, spec in (relative or {}).items():
                example[member] = _relative(spec, base)
            for member, name in settings.items():
                if name in values:
                    example[member] = values[name]
            examples[operation] = example
        _CACHE[key] = (ctx.contract, ctx.contract.with_examples(examples))
    return dataclasses.replace(ctx, contract=_CACHE[key][1])


@named("dated", params={**BASE_PARAMS, "generic": {"enum": sorted(_GENERIC)}, "valid_value": {},
                        "wrong_values": {"type": "array", "minItems": 1}}, required=("generic",))
def dated_generic(ctx: CheckContext) -> None:
    """The generic check ``params.generic`` names, on the re-dated examples."""
    _GENERIC[ctx.rule.params["generic"]](dated(ctx))

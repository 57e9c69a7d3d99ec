"""The Account resource as this simulator reads volume 3 part A: validation of create and
update bodies, and the stored record. Written from the document, not from schemas/outreach.
Choices the document leaves open are marked SIM-CHOICE."""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import Any

from conformance.simulators.base import SimError

__all__ = ["PROVIDER_CODES", "READ_ONLY", "check_create", "check_update", "new_account", "typed"]

PROVIDER_CODES = (1, 2, 3, 4, 8)
SENDING_GAP_MIN, SENDING_GAP_MAX = 0, 1440
READ_ONLY = frozenset({
    "timestamp_created", "timestamp_updated", "organization", "warmup_status", "status", "setup_pending",
    "is_managed_account", "added_by", "modified_by", "timestamp_last_used", "timestamp_warmup_start",
    "status_message", "warmup_pool_id", "dfy_password_changed", "stat_warmup_score",
})
_CREATE_STRINGS = ("imap_username", "imap_password", "imap_host", "smtp_username", "smtp_password", "smtp_host")
_CREATE_NUMBERS = ("imap_port", "smtp_port")
CREATE_ONLY = frozenset({*_CREATE_STRINGS, *_CREATE_NUMBERS, "reply_to", "skip_cname_check"})
# Members a create requires, by their type (provider_code's list is checked with the writable fields).
_REQUIRED = {**dict.fromkeys(("email", "first_name", "last_name", *_CREATE_STRINGS), "a non-empty string"),
             **dict.fromkeys(("provider_code", *_CREATE_NUMBERS), "a number")}
# Writable fields the table types "or null", by their type.
_NULLABLE = {"daily_limit": "a number", "inbox_placement_test_limit": "a number", "tracking_domain_name": "a string",
             "tracking_domain_status": "a string", "signature": "a string", "enable_slow_ramp": "a boolean"}
# SIM-CHOICE: the organization every seeded key belongs to.
ORGANIZATION = "5b1f3c2e-7d4a-4c8e-9a0b-1c2d3e4f5a6b"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_IS: dict[str, Callable[[Any], Any]] = {
    "a number": _is_number, "a string": lambda v: isinstance(v, str), "a boolean": lambda v: isinstance(v, bool),
    "a non-empty string": lambda v: isinstance(v, str) and v, "an object": lambda v: isinstance(v, dict),
}


def typed(body: dict[str, Any], name: str, kind: str, required: bool = False, within: str = "") -> None:
    """``body[name]`` is ``kind`` (a key of _IS) where present; absent, refused if ``required``.
    ``within`` names the object ``body`` is a member of, for the message."""
    if name not in body:
        if required:
            raise SimError(400, f"{within}{name} is required")
    elif not _IS[kind](body[name]):
        raise SimError(400, f"{within}{name} must be {kind}")


def _writable(body: dict[str, Any]) -> None:
    """Types of the Account's writable fields, shared by create and update."""
    for name, kind in _NULLABLE.items():
        if body.get(name) is not None and not _IS[kind](body[name]):
            raise SimError(400, f"{name} must be {kind} or null")
    typed(body, "sending_gap", "a number")
    if "sending_gap" in body and not SENDING_GAP_MIN <= body["sending_gap"] <= SENDING_GAP_MAX:
        raise SimError(400, f"sending_gap must be {SENDING_GAP_MIN} to {SENDING_GAP_MAX} minutes")
    typed(body, "warmup", "an object")
    for name, kind in (("limit", "a number"), ("reply_rate", "a number"), ("warmup_custom_ftag", "a string"),
                       ("increment", "a string"), ("advanced", "an object")):
        typed(body.get("warmup", {}), name, kind, within="warmup.")
    for name in ("first_name", "last_name"):
        typed(body, name, "a non-empty string")
    if "provider_code" in body:
        code = body["provider_code"]
        if not _is_number(code) or code not in PROVIDER_CODES:
            raise SimError(400, f"provider_code must be one of {', '.join(map(str, PROVIDER_CODES))}")


def _no_read_only(body: dict[str, Any], refuse: bool) -> dict[str, Any]:
    """SIM-CHOICE: read-only fields are refused (the document says they are never input, not
    whether sending one is refused or ignored); ``refuse=False`` drops them instead."""
    sent = sorted(READ_ONLY & set(body))
    if sent and refuse:
        raise SimError(400, f"read-only fields cannot be set: {', '.join(sent)}")
    return {k: v for k, v in body.items() if k not in READ_ONLY}


def check_create(body: dict[str, Any], refuse_read_only: bool = True) -> dict[str, Any]:
    body = _no_read_only(body, refuse_read_only)
    for name, kind in _REQUIRED.items():
        typed(body, name, kind, required=True)
    if "@" not in body["email"] or "/" in body["email"]:
        raise SimError(400, "email must be an email address")
    for name in ("reply_to", "warmup_custom_ftag"):
        typed(body, name, "a non-empty string")
    typed(body, "skip_cname_check", "a boolean")
    _writable(body)
    return body


def check_update(body: dict[str, Any], refuse_read_only: bool = True) -> dict[str, Any]:
    body = _no_read_only(body, refuse_read_only)
    if "email" in body:
        raise SimError(400, "email identifies the account and cannot be changed")
    _writable(body)
    # SIM-CHOICE: create-only fields sent on update are ignored (not shown).
    return {k: v for k, v in body.items() if k not in CREATE_ONLY}


def iso(seconds: float) -> str:
    return _dt.datetime.fromtimestamp(seconds, tz=_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


def new_account(body: dict[str, Any], now: float) -> dict[str, Any]:
    """The stored record: the writable fields sent, server-chosen read-only values."""
    stamp = iso(now)
    account: dict[str, Any] = {
        "email": body["email"], "first_name": body["first_name"], "last_name": body["last_name"],
        "provider_code": body["provider_code"], "timestamp_created": stamp, "timestamp_updated": stamp,
        "organization": ORGANIZATION, "warmup_status": 0, "status": 1, "setup_pending": False,
        "is_managed_account": False,
        "warmup": {"limit": 10, "advanced": {}, "increment": "disabled", "reply_rate": 30},
        "added_by": None, "modified_by": None, "daily_limit": None, "tracking_domain_name": None,
        "tracking_domain_status": None, "enable_slow_ramp": None, "inbox_placement_test_limit": None,
        "timestamp_last_used": None, "timestamp_warmup_start": None, "warmup_pool_id": None,
        "dfy_password_changed": None, "stat_warmup_score": None, "sending_gap": 10, "signature": None,
    }
    for name, value in body.items():
        if name in account and name not in READ_ONLY:
            account[name] = value
    if "warmup_custom_ftag" in body:  # the create-only member lands in the warmup object
        account["warmup"] = {**account["warmup"], "warmup_custom_ftag": body["warmup_custom_ftag"]}
    return account

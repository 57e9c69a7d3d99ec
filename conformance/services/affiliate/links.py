"""Smart links (campaigns) and temporary uploads of the affiliate simulator.

Create and PUT share one validation; PUT replaces the whole smart link, so an optional field
the PUT omits goes back to the simulator's default (the document: "omitted optional fields
take defaults").
"""

from __future__ import annotations

import base64
import binascii
import copy
import io
import zipfile
from typing import Any

from conformance.simulators.base import SimError

__all__ = ["DEFAULTS", "ENUMS", "RELATIONSHIPS", "ZIP_TYPES", "unpack_upload", "validate_smart_link"]

ENUMS = {
    "campaign_status": ("active", "paused", "deleted"),
    "redirect_routing_type": ("priority", "weight", "kpi"),
    "run_frequency": ("12_hours", "24_hours"),
    "metric": ("profit", "cvr", "evr", "conversions", "payout", "revenue"),
    "data_lookback_window": ("12_hours", "24_hours", "48_hours"),
}
KPI_FIELDS = ("run_frequency", "metric", "optimization_goal", "data_lookback_window", "data_collection_threshold")
_INTS = ("network_tracking_domain_id", "catch_all_network_offer_id", "optimization_goal", "data_collection_threshold")
_BOOLS = ("is_use_secure_link", "is_open_to_affiliates", "is_whitelist_check_enabled")
_STRINGS = ("campaign_name", "conversion_method")
RELATIONSHIPS = ("reporting", "redirects", "offers", "catch_all_offer_basic")
ZIP_TYPES = ("application/zip", "application/x-zip-compressed")

# What an omitted optional field becomes (the simulator's choice; the document shows none).
DEFAULTS: dict[str, Any] = {
    "campaign_status": "active", "network_tracking_domain_id": 0, "is_use_secure_link": False,
    "catch_all_network_offer_id": 0, "is_open_to_affiliates": False, "labels": [], "redirects": [],
    "conversion_method": "server_postback", "is_whitelist_check_enabled": False,
}


def _int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_redirects(redirects: Any, routing: str) -> list[dict[str, Any]]:
    if not isinstance(redirects, list):
        raise SimError(400, "redirects must be an array")
    out = []
    for number, item in enumerate(redirects):
        if not isinstance(item, dict):
            raise SimError(400, "a redirect must be an object")
        for key in ("redirect_network_offer_id", "redirect_network_offer_url_id", "routing_value"):
            if key in item and not _int(item[key]):
                raise SimError(400, f"redirects[{number}].{key} must be an integer")
        # A redirect's ruleset is a Ruleset, whose fields the document lists: an object.
        if "ruleset" in item and not isinstance(item["ruleset"], dict):
            raise SimError(400, f"redirects[{number}].ruleset must be an object")
        # Its countries: "countries array of {targeting_type, ...}" (volume 3, Ruleset).
        countries = (item.get("ruleset") or {}).get("countries", [])
        if not isinstance(countries, list) or not all(isinstance(c, dict) for c in countries):
            raise SimError(400, f"redirects[{number}].ruleset.countries must be an array of objects")
        if routing in ("priority", "weight") and "routing_value" not in item:
            raise SimError(400, f"redirects[{number}].routing_value is required for {routing} routing")
        out.append(copy.deepcopy(item))
    return out


def validate_smart_link(body: dict[str, Any]) -> dict[str, Any]:
    """The fields of a create or PUT body, checked; raises SimError(400) otherwise."""
    for name in ("campaign_name", "redirect_routing_type"):  # the simulator's required fields
        if name not in body:
            raise SimError(400, f"{name} is required")
    for name, allowed in ENUMS.items():
        if name in body and body[name] not in allowed:
            raise SimError(400, f"{name} must be one of {', '.join(allowed)}")
    for names, valid, kind in ((_INTS, _int, "an integer"), (_BOOLS, lambda v: isinstance(v, bool), "a boolean"),
                               (_STRINGS, lambda v: isinstance(v, str), "a string")):
        for name in names:
            if name in body and not valid(body[name]):
                raise SimError(400, f"{name} must be {kind}")
    labels = body.get("labels", [])
    if not isinstance(labels, list) or not all(isinstance(x, str) for x in labels):
        raise SimError(400, "labels must be an array of strings")
    routing = body["redirect_routing_type"]
    if routing == "kpi":
        missing = [f for f in KPI_FIELDS if f not in body]
        if missing:
            raise SimError(400, f"{', '.join(missing)} required for kpi routing")
    fields = {k: copy.deepcopy(v) for k, v in body.items() if k in DEFAULTS or k in ENUMS or k in _INTS
              or k in _BOOLS or k in _STRINGS or k in ("labels", "redirects")}
    fields["redirects"] = _check_redirects(body.get("redirects", []), routing)
    return fields


def unpack_upload(body: dict[str, Any], unzip: bool) -> list[tuple[str, bytes]]:
    """(name, bytes) of each file the upload makes available."""
    mime, content = body.get("mime_type"), body.get("content_base64")
    if not isinstance(mime, str) or not mime:
        raise SimError(400, "mime_type is required")
    if not isinstance(content, str):
        raise SimError(400, "content_base64 is required")
    try:
        raw = base64.b64decode(content, validate=True)
    except (binascii.Error, ValueError):
        raise SimError(400, "content_base64 is not base64") from None
    if not unzip:
        return [("upload", raw)]
    if mime not in ZIP_TYPES:
        raise SimError(400, "unzip needs application/zip or application/x-zip-compressed")
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            infos = [i for i in archive.infolist() if not i.is_dir()][:100]
            if sum(i.file_size for i in infos) > 4 * 1024 * 1024:
                raise SimError(400, "archive too large")
            return [(i.filename, archive.read(i)) for i in infos]
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError):
        raise SimError(400, "content is not a zip archive") from None

"""Allowed variants of the marketplace simulator: choices the document leaves open (volume 3,
part B). Each one is a conforming server written by someone else; every rule must still pass
(or skip honestly) under each, the mirror image of the faults."""

from __future__ import annotations

from decimal import Decimal
from typing import Any
from urllib.parse import parse_qsl, urlencode

from conformance.faults.base import FaultySimulator, Variant, on_request, on_response, variant
from conformance.faults.toolkit import path, response_body
from conformance.services.marketplace.faults import GET_LISTINGS, OK, with_query
from conformance.services.marketplace.simulator import CONNECT_PATH
from conformance.transport.model import Request, Response

__all__ = ["VARIANTS"]


def _money_as_number_string(node: Any) -> Any:
    # Where Money appears is not shown: prices and totals as numbers returned as strings
    # ("18.50"), no Money object anywhere.
    if isinstance(node, dict):
        if {"amount", "divisor"} <= set(node) and isinstance(node["divisor"], int) and node["divisor"]:
            return str(Decimal(node["amount"]) / Decimal(node["divisor"]))
        return {key: _money_as_number_string(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_money_as_number_string(value) for value in node]
    return node


_ANY_GET = path("", "GET")


def _no_money(sim: Any) -> Any:
    wrapped = response_body(_ANY_GET, _money_as_number_string, OK)(sim)
    # No member holds a Money object, so the target names none (MONEY_FIELDS empty: not set).
    wrapped.credentials = {**sim.credentials, "MONEY_FIELDS": ""}  # type: ignore[misc]
    return wrapped
_CONNECT = path(f"^{CONNECT_PATH}$", "GET")


def _implicit_grant(sim: Any) -> Any:
    # Gap implicit-grant: a server that also supports response_type=token (RFC 6749 section 4.2)
    # grants it as it grants a code, and answers with the token in the redirect's fragment.
    def before(request: Request) -> Request:
        if _CONNECT(request) and request.params.get("response_type") == "token":
            request = with_query(request, lambda q: {**q, "response_type": "code"})
            request.headers = {**request.headers, "x-conformance-implicit": "1"}
        return request

    def after(request: Request, response: Response) -> Response:
        location = response.header("location") or ""
        if request.header("x-conformance-implicit") and "code=" in location:
            uri, _, query = location.partition("?")
            granted = dict(parse_qsl(query))
            fragment = {"access_token": f"implicit-{granted.get('code', '')}", "token_type": "Bearer",
                        "expires_in": "3600", **({"state": granted["state"]} if "state" in granted else {})}
            response.headers = {**response.headers, "location": f"{uri}#{urlencode(fragment)}"}
        return response

    return FaultySimulator(sim, before=before, after=after)


def _extension_error_code(request: Request, response: Response) -> Response:
    # Gap oauth-error-codes: an unknown scope reported with an extension code (RFC 6749 section 8.5).
    location = response.header("location") or ""
    if _CONNECT(request) and "error=invalid_scope" in location:
        response.headers = {**response.headers, "location": location.replace("error=invalid_scope",
                                                                             "error=scope_not_found", 1)}
    return response


def _weighed(node: Any) -> Any:
    # Gap money-members: a listing's weight as an object with amount and divisor, which is like a
    # Money object by two member names and is none (no currency).
    if isinstance(node, dict):
        out = {key: _weighed(value) for key, value in node.items()}
        if "item_weight" in node:
            out["weight"] = {"amount": 250, "divisor": 1, "unit": "g"}
        return out
    if isinstance(node, list):
        return [_weighed(value) for value in node]
    return node


def _edit_only(request: Request) -> Request:
    # "inactive or edit" is one state; which name the filter takes is not shown: only edit.
    if GET_LISTINGS(request) and request.params.get("state") == "inactive":
        request = with_query(request, lambda q: {**q, "state": "zz-inactive-not-taken"})
    return request


_RENAMES = {"listing_id": "id", "state": "listing_state", "status": "receipt_status", "quantity": "quantity_available"}


def _renamed(body: Any) -> Any:
    # Gap field-names: the item array, a listing's id, state, quantity and a receipt's status
    # named otherwise (data, id, listing_state, quantity_available, receipt_status).
    if isinstance(body, dict) and "count" in body and isinstance(body.get("results"), list):
        rows = [{_RENAMES.get(k, k): v for k, v in r.items()} if isinstance(r, dict) else r
                for r in body["results"]]
        return {**{k: v for k, v in body.items() if k != "results"}, "data": rows}
    return body


def _other_member_names(sim: Any) -> Any:
    wrapped = response_body(_ANY_GET, _renamed, OK)(sim)
    # The target's settings say so, as a user would set CONFORMANCE_MARKETPLACE_ITEMS_FIELD etc.
    wrapped.credentials = {**sim.credentials, "ITEMS_FIELD": "data", "LISTING_ID_FIELD": "id",  # type: ignore[misc]
                           "LISTING_STATE_FIELD": "listing_state", "RECEIPT_STATUS_FIELD": "receipt_status",
                           "LISTING_QUANTITY_FIELD": "quantity_available"}
    return wrapped


VARIANTS: tuple[Variant, ...] = (
    variant("money-as-number-strings", "prices and totals are numbers returned as strings, no Money object")(
        _no_money),
    variant("edit-only-filter", "of 'inactive or edit', the state filter takes only edit")(on_request(_edit_only)),
    variant("implicit-grant", "response_type=token is granted too, the access token in the redirect's fragment "
            "(RFC 6749 section 4.2)")(_implicit_grant),
    variant("extension-error-code", "an unknown scope is reported with the extension error code scope_not_found "
            "(RFC 6749 section 8.5)")(on_response(_extension_error_code)),
    variant("money-like-weight", "a listing carries weight {amount, divisor, unit}: two Money member names, no "
            "Money")(response_body(_ANY_GET, _weighed, OK)),
    variant("other-member-names", "collections hold their records in data; a listing names its id id, its "
            "state listing_state and its quantity quantity_available, a receipt its status receipt_status (settings "
            "say so)")(_other_member_names),
)

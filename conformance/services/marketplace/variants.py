"""Allowed variants of the marketplace simulator: choices the document leaves open (volume 3,
part B). Each one is a conforming server written by someone else; every rule must still pass
(or skip honestly) under each, the mirror image of the faults."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from conformance.faults.base import Variant, on_request, variant
from conformance.faults.toolkit import path, response_body
from conformance.services.marketplace.faults import GET_LISTINGS, OK, with_query
from conformance.transport.model import Request

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


def _edit_only(request: Request) -> Request:
    # "inactive or edit" is one state; which name the filter takes is not shown: only edit.
    if GET_LISTINGS(request) and request.params.get("state") == "inactive":
        request = with_query(request, lambda q: {**q, "state": "zz-inactive-not-taken"})
    return request


_RENAMES = {"listing_id": "id", "state": "listing_state", "status": "receipt_status"}


def _renamed(body: Any) -> Any:
    # Gap field-names: the item array, a listing's id, state and a receipt's status named
    # otherwise (data, id, listing_state, receipt_status).
    if isinstance(body, dict) and "count" in body and isinstance(body.get("results"), list):
        rows = [{_RENAMES.get(k, k): v for k, v in r.items()} if isinstance(r, dict) else r
                for r in body["results"]]
        return {**{k: v for k, v in body.items() if k != "results"}, "data": rows}
    return body


def _other_member_names(sim: Any) -> Any:
    wrapped = response_body(_ANY_GET, _renamed, OK)(sim)
    # The target's settings say so, as a user would set CONFORMANCE_MARKETPLACE_ITEMS_FIELD etc.
    wrapped.credentials = {**sim.credentials, "ITEMS_FIELD": "data", "LISTING_ID_FIELD": "id",  # type: ignore[misc]
                           "LISTING_STATE_FIELD": "listing_state", "RECEIPT_STATUS_FIELD": "receipt_status"}
    return wrapped


VARIANTS: tuple[Variant, ...] = (
    variant("money-as-number-strings", "prices and totals are numbers returned as strings, no Money object")(
        response_body(_ANY_GET, _money_as_number_string, OK)),
    variant("edit-only-filter", "of 'inactive or edit', the state filter takes only edit")(on_request(_edit_only)),
    variant("other-member-names", "collections hold their records in data; a listing names its id id and its "
            "state listing_state, a receipt its status receipt_status (settings say so)")(_other_member_names),
)

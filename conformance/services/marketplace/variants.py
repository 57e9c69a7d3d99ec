"""Allowed variants of the marketplace simulator: choices the document leaves open (volume 3,
part B). Each one is a conforming server written by someone else; every rule must still pass
(or skip honestly) under each, the mirror image of the faults."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from conformance.faults.base import Variant, on_request, on_response, variant
from conformance.faults.toolkit import path, response_body, status
from conformance.services.marketplace.faults import CREATE_LISTING, DELETE_IMAGE, GET_LISTINGS, OK, with_query
from conformance.transport.model import Request, Response

__all__ = ["VARIANTS"]


def _bodiless_create(request: Request, response: Response) -> Response:
    # createDraftListing's status and body are not shown: a 201 without a body is as good.
    # (Not the toolkit's status(): the answer loses its body and headers.)
    if CREATE_LISTING(request) and response.status == 201:
        return Response(201, {}, b"")
    return response


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


def _string_ids(node: Any) -> Any:
    # The id type is not shown (gap id-types): ids as opaque strings in answers.
    if isinstance(node, dict):
        return {k: (f"id-{v}" if k.endswith("_id") and isinstance(v, int) else _string_ids(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_string_ids(value) for value in node]
    return node


def _edit_only(request: Request) -> Request:
    # "inactive or edit" is one state; which name the filter takes is not shown: only edit.
    if GET_LISTINGS(request) and request.params.get("state") == "inactive":
        request = with_query(request, lambda q: {**q, "state": "zz-inactive-not-taken"})
    return request


# The refusal statuses are not shown: a bad key or token is answered 403, not 401 (on the
# application's operations; the token endpoint's invalid_client follows RFC 6749 5.2).
_APPLICATION = path(r"^/v3/application")


def _reversed_order(body: Any) -> Any:
    # getListingsByShop's order is not shown (gap listings-default-state): a page's records in
    # another order (the pages themselves stay disjoint).
    if isinstance(body, dict) and isinstance(body.get("results"), list):
        return {**body, "results": list(reversed(body["results"]))}
    return body


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
    variant("bodiless-create", "createDraftListing answers 201 without a body")(on_response(_bodiless_create)),
    # What a second delete answers is not shown (gap delete-again): an idempotent 200 with a
    # body, and the first delete answering 200 with a body too.
    variant("idempotent-delete", "deleteListingImage answers 200 with a body, again for an image already deleted")(
        status(DELETE_IMAGE, 200, when=(204, 404), body={"deleted": True})),
    variant("money-as-number-strings", "prices and totals are numbers returned as strings, no Money object")(
        response_body(_ANY_GET, _money_as_number_string, OK)),
    variant("string-ids", "ids in answers are opaque strings (id-<n>)")(response_body(_ANY_GET, _string_ids, OK)),
    variant("edit-only-filter", "of 'inactive or edit', the state filter takes only edit")(on_request(_edit_only)),
    variant("refusals-403", "a refused key or token is answered 403 instead of 401")(
        status(_APPLICATION, 403, when=401)),
    variant("other-member-names", "collections hold their records in data; a listing names its id id and its "
            "state listing_state, a receipt its status receipt_status (settings say so)")(_other_member_names),
    variant("reversed-page-order", "listings come in another order within each page")(
        response_body(GET_LISTINGS, _reversed_order, OK)),
)

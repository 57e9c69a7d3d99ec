"""Allowed variants of the marketplace simulator: choices the document leaves open (volume 3,
part B). Each one is a conforming server written by someone else; every rule must still pass
(or skip honestly) under each, the mirror image of the faults."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from conformance.faults.base import Variant, json_edit, on_request, on_response, variant
from conformance.services.marketplace.fault_support import _CREATE, _IMAGE, _is_listings, _query
from conformance.transport.model import Request, Response

__all__ = ["VARIANTS"]


def _bodiless_create(request: Request, response: Response) -> Response:
    # createDraftListing's status and body are not shown: a 201 without a body is as good.
    if request.method == "POST" and _CREATE.match(request.path) and response.status == 201:
        return Response(201, {}, b"")
    return response


def _idempotent_delete(request: Request, response: Response) -> Response:
    # What a second delete answers is not shown (gap delete-again): an idempotent 200 with a
    # body, and the first delete answering 200 with a body too.
    if request.method == "DELETE" and _IMAGE.match(request.path) and response.status in (204, 404):
        return Response.json_response(200, {"deleted": True})
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


def _ok_get_json(edit: Any) -> Any:
    def after(request: Request, response: Response) -> Response:
        if request.method == "GET" and 200 <= response.status < 300 and response.body:
            response.body = json_edit(response.body, edit)
        return response
    return on_response(after)


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
    if _is_listings(request) and request.params.get("state") == "inactive":
        request = _query(request, lambda q: {**q, "state": "zz-inactive-not-taken"})
    return request


def _other_error_body(request: Request, response: Response) -> Response:
    # The API error body shape is not shown (redirect-borne OAuth errors are untouched).
    if response.status >= 400 and request.path.startswith("/v3/application"):
        try:
            message = str((json.loads(response.body) or {}).get("error_description", "error"))
        except (ValueError, AttributeError):
            message = "error"
        response.body = json.dumps({"errors": [{"message": message}]}).encode()
    return response


def _forbidden_keys(request: Request, response: Response) -> Response:
    # The refusal statuses are not shown: a bad key or token is answered 403, not 401 (on the
    # application's operations; the token endpoint's invalid_client follows RFC 6749 5.2).
    if response.status == 401 and request.path.startswith("/v3/application"):
        response.status = 403
    return response


def _reversed_order(body: Any) -> Any:
    # getListingsByShop's order is not shown (gap listings-default-state): a page's records in
    # another order (the pages themselves stay disjoint).
    if isinstance(body, dict) and isinstance(body.get("results"), list):
        return {**body, "results": list(reversed(body["results"]))}
    return body


def _reversed_pages(request: Request, response: Response) -> Response:
    if _is_listings(request) and 200 <= response.status < 300:
        response.body = json_edit(response.body, _reversed_order)
    return response


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
    wrapped = _ok_get_json(_renamed)(sim)
    # The target's settings say so, as a user would set CONFORMANCE_MARKETPLACE_ITEMS_FIELD etc.
    wrapped.credentials = {**sim.credentials, "ITEMS_FIELD": "data", "LISTING_ID_FIELD": "id",
                           "LISTING_STATE_FIELD": "listing_state", "RECEIPT_STATUS_FIELD": "receipt_status"}
    return wrapped


VARIANTS: tuple[Variant, ...] = (
    variant("bodiless-create", "createDraftListing answers 201 without a body")(on_response(_bodiless_create)),
    variant("idempotent-delete", "deleteListingImage answers 200 with a body, again for an image already deleted")(
        on_response(_idempotent_delete)),
    variant("money-as-number-strings", "prices and totals are numbers returned as strings, no Money object")(
        _ok_get_json(_money_as_number_string)),
    variant("string-ids", "ids in answers are opaque strings (id-<n>)")(_ok_get_json(_string_ids)),
    variant("edit-only-filter", "of 'inactive or edit', the state filter takes only edit")(on_request(_edit_only)),
    variant("other-error-body", "API errors carry {errors: [{message}]}")(on_response(_other_error_body)),
    variant("refusals-403", "a refused key or token is answered 403 instead of 401")(on_response(_forbidden_keys)),
    variant("other-member-names", "collections hold their records in data; a listing names its id id and its "
            "state listing_state, a receipt its status receipt_status (settings say so)")(_other_member_names),
    variant("reversed-page-order", "listings come in another order within each page")(
        on_response(_reversed_pages)),
)

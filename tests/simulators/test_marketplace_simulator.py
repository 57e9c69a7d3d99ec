"""The marketplace simulator's core, called directly (no transport): ``sim.handle(Request)``.

Numbers come from the contract (schemas/marketplace), not from the simulator's constants, so
these tests also show that the simulator's own reading of the document agrees with it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.contract import load_contract
from conformance.services.marketplace.oauth_server import CODE_SECONDS, pkce_challenge
from conformance.services.marketplace.simulator import (
    SIM_KEYSTRING,
    SIM_LIMITED_REFRESH_TOKEN,
    SIM_OTHER_SHOP_ID,
    SIM_REDIRECT_URI,
    SIM_REFRESH_TOKEN,
    SIM_SHARED_SECRET,
    SIM_SHOP_ID,
    MarketplaceSimulator,
)
from conformance.simulators.base import Clock
from conformance.transport.model import Request, Response

CONTRACT = load_contract("marketplace")
BASE = CONTRACT.base_path
LIMIT = CONTRACT.where_schema("GET /listings", "query.limit")
OFFSET = CONTRACT.where_schema("GET /listings", "query.offset")
STATES = CONTRACT.deref({"$ref": "#/components/schemas/ListingState"})["enum"]
STATUSES = CONTRACT.deref({"$ref": "#/components/schemas/ReceiptStatus"})["enum"]
ACCESS_SECONDS = CONTRACT.rule("marketplace.oauth.access-token-lifetime").params[
    "access_token_seconds"
]
REFRESH_SECONDS = CONTRACT.rule("marketplace.oauth.refresh-token-lifetime").params[
    "refresh_token_seconds"
]
SCOPES = "shops_r shops_w listings_w transactions_r transactions_w"
KEY = {"x-api-key": f"{SIM_KEYSTRING}:{SIM_SHARED_SECRET}"}
TOKEN = "/v3/public/oauth/token"
LISTINGS = f"{BASE}/listings"
RECEIPTS = f"{BASE}/shop/{SIM_SHOP_ID}/receipts"
SHOP_LISTINGS = f"{BASE}/shop/{SIM_SHOP_ID}/listings"
VERIFIER = "v" * 20 + "-._~" + "0123456789abcdefghijklmnop"  # 50 unreserved characters
DRAFT = {"title": "Mug", "quantity": "2", "price": "12.50"}


@pytest.fixture()
def sim() -> MarketplaceSimulator:
    return MarketplaceSimulator(clock=Clock())


def get(
    sim: MarketplaceSimulator, path: str, headers: dict[str, str] | None = None, **params: Any
) -> Response:
    return sim.handle(
        Request.build("GET", path, params=params, headers=KEY if headers is None else headers)
    )


def authorize(sim: MarketplaceSimulator, **overrides: str | None) -> Response:
    query = {
        "response_type": "code",
        "client_id": SIM_KEYSTRING,
        "redirect_uri": SIM_REDIRECT_URI,
        "scope": SCOPES,
        "state": "client-state-7f3a9c",  # unguessable in real use; fixed here for determinism
        "code_challenge": pkce_challenge(VERIFIER),
        "code_challenge_method": "S256",
    }
    query.update(overrides)
    return sim.handle(Request.build("GET", "/oauth/connect", params=query))


def redirect_query(response: Response) -> dict[str, str]:
    assert response.status == 302, response.summary()
    location = response.header("location") or ""
    assert location.startswith(SIM_REDIRECT_URI)
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


def token(sim: MarketplaceSimulator, **form: str) -> Response:
    return sim.handle(Request.build("POST", TOKEN, headers=KEY, form=form))


def exchange(
    sim: MarketplaceSimulator,
    code: str,
    verifier: str = VERIFIER,
    redirect_uri: str = SIM_REDIRECT_URI,
) -> Response:
    return token(
        sim,
        grant_type="authorization_code",
        client_id=SIM_KEYSTRING,
        redirect_uri=redirect_uri,
        code=code,
        code_verifier=verifier,
    )


def refreshed(sim: MarketplaceSimulator, refresh_token: str = SIM_REFRESH_TOKEN) -> dict[str, str]:
    response = token(
        sim, grant_type="refresh_token", client_id=SIM_KEYSTRING, refresh_token=refresh_token
    )
    assert response.status == 200, response.summary()
    return {**KEY, "authorization": f"Bearer {response.json()['access_token']}"}


def floats(node: Any) -> list[Any]:
    if isinstance(node, float):
        return [node]
    if isinstance(node, dict):
        return [f for v in node.values() for f in floats(v)]
    if isinstance(node, list):
        return [f for v in node for f in floats(v)]
    return []


# -- application key ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "value",
    [
        None,
        SIM_KEYSTRING,
        f"{SIM_KEYSTRING}:",
        f"{SIM_KEYSTRING}:wrong",
        f":{SIM_SHARED_SECRET}",
        f"unknown:{SIM_SHARED_SECRET}",
        "",
    ],
)
def test_key_with_both_parts_is_required(sim: MarketplaceSimulator, value: str | None) -> None:
    headers = {} if value is None else {"x-api-key": value}
    assert get(sim, LISTINGS, headers=headers).status == 401
    assert (
        sim.handle(Request.build("POST", TOKEN, headers=headers, form={"grant_type": "x"})).status
        == 401
    )


def test_valid_key_is_accepted_and_errors_have_one_shape(sim: MarketplaceSimulator) -> None:
    ok = get(sim, LISTINGS)
    assert ok.status == 200 and ok.header("content-type") == "application/json; charset=utf-8"
    body = get(sim, LISTINGS, headers={}).json()
    assert set(body) == {"error", "error_description"}


# -- paging ------------------------------------------------------------------------------
def test_default_limit_and_offset(sim: MarketplaceSimulator) -> None:
    first = get(sim, LISTINGS).json()
    assert len(first["results"]) == LIMIT["default"] < first["count"]
    assert first == get(sim, LISTINGS, offset=OFFSET["default"], limit=LIMIT["default"]).json()


@pytest.mark.parametrize("limit", ["minimum", "maximum"])
def test_limit_bounds_are_accepted(sim: MarketplaceSimulator, limit: str) -> None:
    page = get(sim, LISTINGS, limit=LIMIT[limit]).json()
    assert len(page["results"]) == min(LIMIT[limit], page["count"])


@pytest.mark.parametrize(
    "params",
    [
        {"limit": LIMIT["minimum"] - 1},
        {"limit": LIMIT["maximum"] + 1},
        {"limit": 0},
        {"offset": OFFSET["maximum"] + 1},
        {"offset": -1},
        {"limit": "abc"},
        {"limit": "25.5"},
        {"limit": ""},
        {"offset": "1e3"},
        {"limit": "9" * 5000},
        {"limit": "٣٠"},
    ],
)
def test_out_of_range_or_non_integer_paging_is_refused(
    sim: MarketplaceSimulator, params: dict[str, Any]
) -> None:
    assert get(sim, LISTINGS, **params).status == 400
    assert get(sim, RECEIPTS, headers=refreshed(sim), **params).status == 400


def test_offset_maximum_is_accepted_and_count_is_total(sim: MarketplaceSimulator) -> None:
    counts = {
        get(sim, LISTINGS, limit=limit, offset=offset).json()["count"]
        for limit in (LIMIT["minimum"], LIMIT["maximum"])
        for offset in (0, 50, OFFSET["maximum"])
    }
    assert len(counts) == 1 and counts.pop() > LIMIT["maximum"]
    assert get(sim, LISTINGS, offset=OFFSET["maximum"]).json()["results"] == []


@pytest.mark.parametrize("limit", [25, 60, 100])
def test_pages_are_disjoint_and_complete(sim: MarketplaceSimulator, limit: int) -> None:
    seen: list[int] = []
    offset, count = 0, None
    while True:
        page = get(sim, LISTINGS, limit=limit, offset=offset).json()
        count = page["count"] if count is None else count
        assert page["count"] == count
        assert len(page["results"]) == max(0, min(limit, count - offset))
        if not page["results"]:
            break
        seen += [item["listing_id"] for item in page["results"]]
        offset += limit
    assert len(seen) == len(set(seen)) == count


def test_receipts_page_and_cover_every_status(sim: MarketplaceSimulator) -> None:
    headers = refreshed(sim)
    page = get(sim, RECEIPTS, headers=headers, limit=LIMIT["maximum"]).json()
    assert page["count"] == len(page["results"])
    assert {r["status"] for r in page["results"]} == set(STATUSES)
    assert get(sim, RECEIPTS, headers=headers).json()["count"] == page["count"]


# -- standard parameter types -------------------------------------------------------------
def test_numbers_are_strings_and_money_is_integers(sim: MarketplaceSimulator) -> None:
    listings = get(sim, LISTINGS, includes="Images,Shop").json()
    receipts = get(sim, RECEIPTS, headers=refreshed(sim)).json()
    assert floats(listings) == [] and floats(receipts) == []
    item = listings["results"][0]
    assert isinstance(item["item_weight"], str) and float(item["item_weight"]) > 0
    for money in [item["price"]] + [r["grandtotal"] for r in receipts["results"]]:
        assert isinstance(money["amount"], int) and isinstance(money["divisor"], int)
        assert len(money["currency_code"]) == 3


def test_every_state_is_accepted_and_filters(sim: MarketplaceSimulator) -> None:
    for state in STATES:
        page = get(sim, LISTINGS, state=state, limit=LIMIT["maximum"]).json()
        assert page["count"] > 0
        group = {"inactive", "edit"} if state in ("inactive", "edit") else {state}
        assert {item["state"] for item in page["results"]} <= group
    for item in get(sim, LISTINGS, state="active", limit=LIMIT["maximum"]).json()["results"]:
        assert item["quantity"] > 0


@pytest.mark.parametrize("state", ["bogus", "ACTIVE", "", "active,draft", "sold out"])
def test_enum_value_outside_the_list_is_an_error(sim: MarketplaceSimulator, state: str) -> None:
    assert get(sim, LISTINGS, state=state).status == 400


def test_booleans_accept_true_false_1_0(sim: MarketplaceSimulator) -> None:
    headers = refreshed(sim)
    paid = {
        v: get(sim, RECEIPTS, headers=headers, was_paid=v).json()["count"]
        for v in ("true", "false", "1", "0")
    }
    assert paid["true"] == paid["1"] and paid["false"] == paid["0"]
    assert paid["true"] + paid["false"] == get(sim, RECEIPTS, headers=headers).json()["count"]
    assert get(sim, RECEIPTS, headers=headers, was_paid="yes").status == 400


def test_arrays_are_comma_separated_without_brackets(sim: MarketplaceSimulator) -> None:
    item = get(sim, LISTINGS, includes="Images,Shop").json()["results"][0]
    assert item["images"] and item["shop"]["shop_id"] == item["shop_id"]
    assert get(sim, LISTINGS, includes="[Images,Shop]").status == 400
    assert get(sim, LISTINGS, includes="Images,").status == 400


# -- OAuth 2.0 with PKCE -----------------------------------------------------------------
def test_full_pkce_flow_expiry_and_refresh(sim: MarketplaceSimulator) -> None:
    state = "client-state-123"
    back = redirect_query(authorize(sim, state=state))
    assert back["state"] == state and back["code"]
    response = exchange(sim, back["code"])
    assert response.status == 200, response.summary()
    tokens = response.json()
    assert tokens["expires_in"] == ACCESS_SECONDS
    user_id, _, rest = tokens["access_token"].partition(".")
    assert user_id.isdigit() and rest
    headers = {**KEY, "authorization": f"Bearer {tokens['access_token']}"}
    assert get(sim, RECEIPTS, headers=headers).status == 200
    sim.clock.advance(ACCESS_SECONDS - 1)
    assert get(sim, RECEIPTS, headers=headers).status == 200
    sim.clock.advance(1)
    assert get(sim, RECEIPTS, headers=headers).status == 401
    assert get(sim, RECEIPTS, headers=refreshed(sim, tokens["refresh_token"])).status == 200


def test_token_values_are_deterministic() -> None:
    def run() -> dict[str, Any]:
        sim = MarketplaceSimulator(clock=Clock())
        code = redirect_query(authorize(sim, state="s"))["code"]
        return {"code": code, **exchange(sim, code).json()}

    assert run() == run()


@pytest.mark.parametrize(
    "redirect_uri",
    [
        "http://client.sim.invalid/cb",
        "ftp://x/cb",
        "not a uri",
        "https://",
        "https://[::1/cb",
        "",
        "https://x/cb#frag",
        "https://exämple.invalid/cb",
        "https://x/c b",
        "https://x/\r\nSet-Cookie: a=b",
    ],
)
def test_non_https_redirect_uri_fails_without_redirect(
    sim: MarketplaceSimulator, redirect_uri: str
) -> None:
    response = authorize(sim, redirect_uri=redirect_uri)
    assert response.status == 400 and response.header("location") is None


@pytest.mark.parametrize("client_id", [None, "", "unknown-app"])
def test_unknown_client_fails_without_redirect(
    sim: MarketplaceSimulator, client_id: str | None
) -> None:
    response = authorize(sim, client_id=client_id)
    assert response.status == 400 and response.header("location") is None


@pytest.mark.parametrize(
    ("overrides", "error"),
    [
        ({"scope": "shops_r no_such_scope"}, "invalid_scope"),
        ({"scope": "shops_r,listings_w"}, "invalid_scope"),
        ({"scope": None}, "invalid_scope"),
        ({"response_type": "token"}, "unsupported_response_type"),
        ({"response_type": None}, "invalid_request"),
        ({"code_challenge_method": "plain"}, "invalid_request"),
        ({"code_challenge_method": None}, "invalid_request"),
        ({"code_challenge": None}, "invalid_request"),
        ({"code_challenge": "short"}, "invalid_request"),
    ],
)
def test_authorization_errors_come_back_on_the_redirect(
    sim: MarketplaceSimulator, overrides: dict[str, str | None], error: str
) -> None:
    back = redirect_query(authorize(sim, state="keep-me", **overrides))
    assert back["state"] == "keep-me" and back["error"] == error and back["error_description"]
    assert "code" not in back


@pytest.mark.parametrize("state", [None, ""])
def test_state_must_be_non_empty(sim: MarketplaceSimulator, state: str | None) -> None:
    back = redirect_query(authorize(sim, state=state))
    assert back["error"] == "invalid_request" and "code" not in back


def test_wrong_verifier_is_refused(sim: MarketplaceSimulator) -> None:
    code = redirect_query(authorize(sim))["code"]
    response = exchange(sim, code, verifier="w" * 50)
    assert response.status == 400 and response.json()["error"] == "invalid_grant"


def test_reused_code_is_refused(sim: MarketplaceSimulator) -> None:
    code = redirect_query(authorize(sim))["code"]
    assert exchange(sim, code).status == 200
    assert exchange(sim, code).json()["error"] == "invalid_grant"


def test_redirect_uri_must_match_and_code_expires(sim: MarketplaceSimulator) -> None:
    code = redirect_query(authorize(sim))["code"]
    assert exchange(sim, code, redirect_uri=SIM_REDIRECT_URI + "/other").status == 400
    code = redirect_query(authorize(sim))["code"]
    sim.clock.advance(CODE_SECONDS)
    assert exchange(sim, code).json()["error"] == "invalid_grant"


@pytest.mark.parametrize(
    "missing", ["grant_type", "client_id", "redirect_uri", "code", "code_verifier"]
)
def test_token_request_fields_are_required(sim: MarketplaceSimulator, missing: str) -> None:
    code = redirect_query(authorize(sim))["code"]
    form = {
        "grant_type": "authorization_code",
        "client_id": SIM_KEYSTRING,
        "redirect_uri": SIM_REDIRECT_URI,
        "code": code,
        "code_verifier": VERIFIER,
    }
    del form[missing]
    assert token(sim, **form).status == 400


@pytest.mark.parametrize(
    "request_",
    [
        Request.build("POST", TOKEN, headers=KEY, json_body={"grant_type": "refresh_token"}),
        Request.build(
            "POST",
            TOKEN,
            headers={**KEY, "content-type": "application/x-www-form-urlencoded"},
            content=b"grant_type=%ff%fe",
        ),
        Request.build(
            "POST",
            TOKEN,
            headers={**KEY, "content-type": "application/x-www-form-urlencoded; charset=latin-1"},
            content=b"grant_type=refresh_token",
        ),
        Request.build("POST", TOKEN, headers=KEY, form={"grant_type": "password"}),
        Request.build(
            "POST",
            TOKEN,
            headers={**KEY, "content-type": "application/x-www-form-urlencoded"},
            content=b"grant_type=refresh_token&grant_type=authorization_code",
        ),
        Request.build(
            "POST",
            TOKEN,
            headers={**KEY, "content-type": "application/x-www-form-urlencoded"},
            content=b"a=1&" * 30_000,
        ),
    ],
)
def test_malformed_token_requests_are_4xx(sim: MarketplaceSimulator, request_: Request) -> None:
    assert 400 <= sim.handle(request_).status < 500


def test_form_with_charset_and_utf8_is_accepted(sim: MarketplaceSimulator) -> None:
    body = (
        f"grant_type=refresh_token&client_id={SIM_KEYSTRING}"
        f"&refresh_token={SIM_REFRESH_TOKEN}&note=caf%C3%A9"
    ).encode()
    headers = {**KEY, "content-type": "application/x-www-form-urlencoded; charset=utf-8"}
    assert sim.handle(Request.build("POST", TOKEN, headers=headers, content=body)).status == 200


def test_refresh_token_lives_ninety_days(sim: MarketplaceSimulator) -> None:
    sim.clock.advance(REFRESH_SECONDS - 1)
    refreshed(sim)
    sim.clock.advance(1)
    response = token(
        sim, grant_type="refresh_token", client_id=SIM_KEYSTRING, refresh_token=SIM_REFRESH_TOKEN
    )
    assert response.status == 400 and response.json()["error"] == "invalid_grant"


# -- bearer and scopes -------------------------------------------------------------------
@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "",
        "Bearer",
        "Bearer 123.nope",
        "Bearer abc.def",
        "Basic Zm9vOmJhcg==",
        "Bearer " + "9" * 5000 + ".x",
        f"Bearer {SIM_REFRESH_TOKEN}",
    ],
)
def test_scoped_operations_need_a_valid_bearer(
    sim: MarketplaceSimulator, authorization: str | None
) -> None:
    headers = dict(KEY) if authorization is None else {**KEY, "authorization": authorization}
    assert get(sim, RECEIPTS, headers=headers).status == 401
    create = Request.build("POST", SHOP_LISTINGS, headers=headers, form=DRAFT)
    assert sim.handle(create).status == 401


def test_scopes_are_enforced(sim: MarketplaceSimulator) -> None:
    limited, full = refreshed(sim, SIM_LIMITED_REFRESH_TOKEN), refreshed(sim)
    assert get(sim, RECEIPTS, headers=limited).status == 403
    assert (
        sim.handle(Request.build("POST", SHOP_LISTINGS, headers=limited, form=DRAFT)).status == 403
    )
    assert get(sim, RECEIPTS, headers=full).status == 200
    assert sim.handle(Request.build("POST", SHOP_LISTINGS, headers=full, form=DRAFT)).status == 201


def test_scope_granted_on_connect_is_the_scope_of_the_token(sim: MarketplaceSimulator) -> None:
    code = redirect_query(authorize(sim, scope="transactions_r"))["code"]
    headers = {**KEY, "authorization": f"Bearer {exchange(sim, code).json()['access_token']}"}
    assert get(sim, RECEIPTS, headers=headers).status == 200
    assert (
        sim.handle(Request.build("POST", SHOP_LISTINGS, headers=headers, form=DRAFT)).status == 403
    )


def test_another_users_shop_is_refused(sim: MarketplaceSimulator) -> None:
    assert (
        get(sim, f"{BASE}/shop/{SIM_OTHER_SHOP_ID}/receipts", headers=refreshed(sim)).status == 403
    )


# -- listings and images -----------------------------------------------------------------
def test_created_draft_appears_among_drafts(sim: MarketplaceSimulator) -> None:
    before = get(sim, LISTINGS, state="draft").json()["count"]
    created = sim.handle(
        Request.build(
            "POST",
            SHOP_LISTINGS,
            headers=refreshed(sim),
            form={**DRAFT, "title": "Café mug", "is_supply": "0"},
        )
    )
    assert created.status == 201
    listing = created.json()
    assert listing["state"] == "draft" and listing["price"] == {
        "amount": 1250,
        "divisor": 100,
        "currency_code": "USD",
    }
    assert get(sim, LISTINGS, state="draft").json()["count"] == before + 1


@pytest.mark.parametrize(
    "form",
    [
        {},
        {**DRAFT, "title": ""},
        {**DRAFT, "quantity": "-1"},
        {**DRAFT, "price": "abc"},
        {**DRAFT, "price": "0"},
        {**DRAFT, "is_supply": "maybe"},
        {**DRAFT, "title": "x" * 10_000},
    ],
)
def test_invalid_draft_is_refused(sim: MarketplaceSimulator, form: dict[str, str]) -> None:
    response = sim.handle(Request.build("POST", SHOP_LISTINGS, headers=refreshed(sim), form=form))
    assert response.status == 400


def test_delete_listing_image_with_ids_in_the_path(sim: MarketplaceSimulator) -> None:
    headers = refreshed(sim)
    listing = get(sim, LISTINGS, includes="Images").json()["results"][0]
    image = listing["images"][0]["listing_image_id"]
    path = f"{BASE}/shop/{SIM_SHOP_ID}/listings/{listing['listing_id']}/images/{image}"
    moved = {
        **headers,
        "shop_id": str(SIM_SHOP_ID),
        "listing_id": str(listing["listing_id"]),
        "listing_image_id": str(image),
    }
    assert (
        sim.handle(Request.build("DELETE", f"{BASE}/shop/listings/images", headers=moved)).status
        == 404
    )
    assert sim.handle(Request.build("DELETE", path, headers=headers)).status == 204
    assert sim.handle(Request.build("DELETE", path, headers=headers)).status == 404
    assert (
        sim.handle(Request.build("DELETE", path.replace(str(image), "abc"), headers=headers)).status
        == 400
    )


def test_seeded_credentials_name_real_things(sim: MarketplaceSimulator) -> None:
    creds = MarketplaceSimulator.credentials
    required = {c["name"] for c in CONTRACT.settings["credentials"] if not c.get("optional")}
    assert required <= set(creds) <= {c["name"] for c in CONTRACT.settings["credentials"]}
    listing = sim.listings[int(creds["LISTING_ID"])]
    assert (
        listing.shop_id == int(creds["SHOP_ID"])
        and int(creds["LISTING_IMAGE_ID"]) in listing.images
    )
    assert creds["REFRESH_TOKEN"].startswith(creds["USER_ID"] + ".")
    path = (
        f"{BASE}/shop/{creds['SHOP_ID']}/listings/{creds['LISTING_ID']}"
        f"/images/{creds['LISTING_IMAGE_ID']}"
    )
    assert (
        sim.handle(
            Request.build("DELETE", path, headers=refreshed(sim, creds["REFRESH_TOKEN"]))
        ).status
        == 204
    )


# -- hostile input -----------------------------------------------------------------------
def test_huge_and_malformed_bodies_are_4xx(sim: MarketplaceSimulator) -> None:
    headers = {**refreshed(sim), "content-type": "application/x-www-form-urlencoded"}
    for body in (
        b"x" * (5 * 1024 * 1024),
        b"title=%zz&&&==",
        b"\xff\xfe\x00",
        b"title=" + b"a" * 70_000,
    ):
        response = sim.handle(Request.build("POST", SHOP_LISTINGS, headers=headers, content=body))
        assert 400 <= response.status < 500, response.summary()
    plain = {**refreshed(sim), "content-type": "text/plain"}
    assert sim.handle(Request.build("POST", SHOP_LISTINGS, headers=plain, content=b"title=Mug")).status == 415
    nested = Request.build("POST", SHOP_LISTINGS, headers=refreshed(sim), json_body={**DRAFT, "tags": ["a"]})
    assert sim.handle(nested).status == 400


def test_json_posts_are_read_as_their_form() -> None:
    """The vendor's client posts JSON (numbers as numbers, unset members as null); the document
    says form posts are urlencoded and does not refuse JSON."""
    sim = MarketplaceSimulator(clock=Clock())
    refresh = {"grant_type": "refresh_token", "client_id": f"{SIM_KEYSTRING}:{SIM_SHARED_SECRET}",
               "refresh_token": SIM_REFRESH_TOKEN}
    answer = sim.handle(Request.build("POST", TOKEN, headers=KEY, json_body=refresh))
    assert answer.status == 200, answer.summary()
    headers = {**KEY, "authorization": f"Bearer {answer.json()['access_token']}"}
    draft = {"title": "Mug", "quantity": 2, "price": 12.5, "is_supply": False, "tags": None}
    created = sim.handle(Request.build("POST", SHOP_LISTINGS, headers=headers, json_body=draft))
    assert created.status == 201, created.summary()
    assert created.json()["quantity"] == 2 and created.json()["price"]["amount"] == 1250
    wrong = {**refresh, "client_id": f"{SIM_KEYSTRING}:not-the-secret"}
    assert sim.handle(Request.build("POST", TOKEN, headers=KEY, json_body=wrong)).status == 401


def test_another_shop_resource_moves_every_shop_path_and_keeps_the_documented_ones() -> None:
    sim = MarketplaceSimulator(clock=Clock(), shop_resource="shops")
    headers = refreshed(sim)
    for path in (SHOP_LISTINGS, SHOP_LISTINGS.replace("/shop/", "/shops/"), RECEIPTS.replace("/shop/", "/shops/")):
        assert get(sim, path, headers).status == 200, path
    listing = next(item for item in sim.listings.values() if item.shop_id == SIM_SHOP_ID and item.images)
    for resource in ("shops", "shop"):
        image = f"{BASE}/{resource}/{SIM_SHOP_ID}/listings/{listing.listing_id}/images/{listing.images[0]}"
        assert sim.handle(Request.build("DELETE", image, headers=headers)).status == 204, image
    # A known path with another method: 405 naming what it takes; an unknown path: 404.
    put = sim.handle(Request.build("PUT", RECEIPTS.replace("/shop/", "/shops/"), headers=headers))
    assert put.status == 405 and put.headers["allow"] == "GET" and "takes GET" in put.json()["error_description"]
    assert get(sim, f"{BASE}/shops/{SIM_SHOP_ID}/nothing", headers).status == 404


_TEXT = st.text(max_size=40)
_PATHS = st.sampled_from(
    [
        "/oauth/connect",
        TOKEN,
        LISTINGS,
        SHOP_LISTINGS,
        RECEIPTS,
        f"{BASE}/shop/{{}}/listings",
        f"{BASE}/shop/{{}}/receipts",
        f"{BASE}/shop/{SIM_SHOP_ID}/listings/{{}}/images/{{}}",
        f"{BASE}/{{}}",
    ]
)


@settings(
    max_examples=50,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    method=st.sampled_from(["GET", "POST", "DELETE", "PUT"]),
    path=_PATHS,
    segments=st.lists(
        st.text(alphabet=st.characters(blacklist_characters="/"), min_size=1, max_size=12),
        min_size=2,
        max_size=2,
    ),
    query=st.lists(
        st.tuples(
            st.sampled_from(
                [
                    "limit",
                    "offset",
                    "state",
                    "includes",
                    "was_paid",
                    "scope",
                    "state",
                    "client_id",
                    "redirect_uri",
                    "code_challenge",
                ]
            ),
            _TEXT,
        ),
        max_size=6,
    ),
    key=st.one_of(st.none(), st.just(KEY["x-api-key"]), _TEXT),
    authorization=st.one_of(st.none(), _TEXT.map(lambda t: "Bearer " + t)),
    content_type=st.sampled_from(
        [None, "application/x-www-form-urlencoded", "application/json", "text/plain"]
    ),
    body=st.binary(max_size=200),
)
def test_hostile_input_is_never_5xx(
    method: str,
    path: str,
    segments: list[str],
    query: list[tuple[str, str]],
    key: str | None,
    authorization: str | None,
    content_type: str | None,
    body: bytes,
) -> None:
    sim = MarketplaceSimulator(clock=Clock())
    headers = {
        name: value
        for name, value in (
            ("x-api-key", key),
            ("authorization", authorization),
            ("content-type", content_type),
        )
        if value is not None
    }
    request = Request(method, path.format(*segments), query, headers, body)
    response = sim.handle(request)
    assert response.status < 500, response.summary()
    for value in response.headers.values():  # servable: headers travel as latin-1 bytes
        value.encode("latin-1")

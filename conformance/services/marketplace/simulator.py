"""Simulator of the marketplace service (volume 3, part B, API v3).

Written from the document, not from schemas/marketplace: the numbers below are this
simulator's own reading of the text. Choices the document leaves open are marked SIM-CHOICE;
the harness never checks them (they are gaps in the rule catalogue). The OAuth 2.0 server
lives in ``marketplace_oauth``.

Seeded world: user SIM_USER_ID owns shop SIM_SHOP_ID with listings in every documented state
(enough active ones that paging with limit 25..100 takes several pages), two images per
listing and receipts in every documented status; a second user owns a small second shop.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, ClassVar

from conformance.services.marketplace.oauth_server import SCOPES, Grant, OAuthServer, parse_form
from conformance.simulators.base import Clock, SimError, Simulator
from conformance.transport.model import Request, Response

__all__ = [
    "LISTING_STATES",
    "MarketplaceSimulator",
    "RECEIPT_STATUSES",
    "SIM_CLIENT_ID",
    "SIM_DELETABLE_IMAGE_ID",
    "SIM_DELETABLE_LISTING_ID",
    "SIM_KEYS",
    "SIM_KEYSTRING",
    "SIM_LIMITED_REFRESH_TOKEN",
    "SIM_OTHER_SHOP_ID",
    "SIM_REDIRECT_URI",
    "SIM_REFRESH_TOKEN",
    "SIM_SHARED_SECRET",
    "SIM_SHOP_ID",
    "SIM_USER_ID",
]

APP = "/v3/application"
TOKEN_PATH = "/v3/public/oauth/token"
CONNECT_PATH = "/oauth/connect"  # SIM-CHOICE: the simulator is its own {auth_url}

LIMIT_DEFAULT, LIMIT_MIN, LIMIT_MAX = 25, 25, 100
OFFSET_DEFAULT, OFFSET_MAX = 0, 12_000
LISTING_STATES = ("active", "inactive", "edit", "sold_out", "draft", "expired")
# "inactive or edit" is one state with two names: a filter on either finds both.
_STATE_GROUPS = {"inactive": {"inactive", "edit"}, "edit": {"inactive", "edit"}}
RECEIPT_STATUSES = ("open", "paid", "completed", "payment processing", "canceled")
_PAID = {"paid", "completed"}
_BOOLEANS = {"true": True, "false": False, "1": True, "0": False}

# Seeded credentials, the same in process and served. The keystring is also the OAuth client_id.
SIM_KEYSTRING = "simmarketkeystring0001"
SIM_CLIENT_ID = SIM_KEYSTRING
SIM_SHARED_SECRET = "simmarketsharedsecret0001"
SIM_KEYS: dict[str, str] = {SIM_KEYSTRING: SIM_SHARED_SECRET}
SIM_USER_ID = 50_000_001
SIM_OTHER_USER_ID = 50_000_002
SIM_SHOP_ID = 70_000_001
SIM_OTHER_SHOP_ID = 70_000_002
SIM_REDIRECT_URI = "https://client.sim.invalid/oauth/callback"
SIM_REFRESH_TOKEN = f"{SIM_USER_ID}.sim-refresh-all-scopes"
SIM_LIMITED_REFRESH_TOKEN = f"{SIM_USER_ID}.sim-refresh-shops-r"
_LIMITED_SCOPES = frozenset({"shops_r"})

# SIM-CHOICE: scopes of the operations the document leaves open (deleteListingImage).
SCOPE_CREATE_LISTING = "listings_w"  # documented
SCOPE_RECEIPTS = "transactions_r"  # documented
SCOPE_DELETE_IMAGE = "listings_d"  # SIM-CHOICE

# SIM-CHOICE: the seeded world's size. 130 active listings in one shop: five pages of 25.
ACTIVE_LISTINGS = 130
LISTINGS_PER_OTHER_STATE = 3
IMAGES_PER_LISTING = 2
RECEIPTS_PER_STATUS = 8
# The listing and image the deleteListingImage rule may delete: the shop's last seeded listing
# (expired, so no paging walk over active listings notices) and its first image.
# Ids count up from these bases in seeding order, so the seeded ids are known in advance.
_ID_BASES = {"listing": 1_000_000_000, "image": 2_000_000_000, "receipt": 3_000_000_000}
_SHOP_LISTINGS = ACTIVE_LISTINGS + LISTINGS_PER_OTHER_STATE * (len(LISTING_STATES) - 1)
SIM_DELETABLE_LISTING_ID = _ID_BASES["listing"] + _SHOP_LISTINGS
SIM_DELETABLE_IMAGE_ID = _ID_BASES["image"] + IMAGES_PER_LISTING * (_SHOP_LISTINGS - 1) + 1
INCLUDES = ("Images", "Shop")  # SIM-CHOICE: an array parameter of getListingsByShop
TITLE_MAX = 140  # SIM-CHOICE
QUANTITY_MAX = 999  # SIM-CHOICE
_DIGITS = re.compile(r"[0-9]{1,9}")
_ID = re.compile(r"[0-9]{1,18}")
_PRICE = re.compile(r"[0-9]{1,7}(\.[0-9]{1,2})?")

_ERROR_CODES = {400: "invalid_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
                405: "method_not_allowed", 413: "payload_too_large", 415: "unsupported_media_type"}


@dataclass
class Listing:
    listing_id: int
    shop_id: int
    title: str
    state: str
    quantity: int
    amount: int  # price in cents
    weight: str  # a number, so kept and returned as a string
    is_supply: bool
    created: int
    images: list[int] = field(default_factory=list)


@dataclass
class Shop:
    shop_id: int
    user_id: int
    name: str


class MarketplaceSimulator(Simulator):
    service = "marketplace"
    # The sim target's values of the contract's credentials (rules.yaml `credentials`).
    credentials: ClassVar[dict[str, str]] = {
        "API_KEY": SIM_KEYSTRING,
        "SHARED_SECRET": SIM_SHARED_SECRET,
        "CLIENT_ID": SIM_CLIENT_ID,
        "REFRESH_TOKEN": SIM_REFRESH_TOKEN,
        "LIMITED_REFRESH_TOKEN": SIM_LIMITED_REFRESH_TOKEN,
        "USER_ID": str(SIM_USER_ID),
        "SHOP_ID": str(SIM_SHOP_ID),
        "REDIRECT_URI": SIM_REDIRECT_URI,
        "AUTO_CONSENT": "1",  # nobody to ask: the seeded user consents to every valid request
        "LISTING_ID": str(SIM_DELETABLE_LISTING_ID),
        "LISTING_IMAGE_ID": str(SIM_DELETABLE_IMAGE_ID),
        "MONEY_FIELDS": "price,grandtotal",  # where this simulator puts its Money objects
    }

    def __init__(self, clock: Clock | None = None, shop_resource: str = "shop") -> None:
        # SIM-CHOICE: createDraftListing's and getShopReceipts' paths are not shown; served under
        # APP/<shop_resource>/{shop_id}/ (option: "shops" serves the real vendor's shape).
        super().__init__(clock)
        self.oauth = OAuthServer(self.clock, SIM_KEYS, consenting_user=SIM_USER_ID)
        self.oauth.seed_refresh_token(SIM_REFRESH_TOKEN, SIM_USER_ID, SIM_CLIENT_ID, SCOPES)
        self.oauth.seed_refresh_token(SIM_LIMITED_REFRESH_TOKEN, SIM_USER_ID, SIM_CLIENT_ID,
                                      _LIMITED_SCOPES)
        self.shops = {
            SIM_SHOP_ID: Shop(SIM_SHOP_ID, SIM_USER_ID, "SimPottery"),
            SIM_OTHER_SHOP_ID: Shop(SIM_OTHER_SHOP_ID, SIM_OTHER_USER_ID, "SimWeaving"),
        }
        self.listings: dict[int, Listing] = {}
        self.images: dict[int, int] = {}  # listing_image_id -> listing_id
        self.receipts: list[dict[str, Any]] = []
        self._next = dict(_ID_BASES)
        self._seed()
        self.route("GET", CONNECT_PATH, self.oauth.connect)  # a browser request: no x-api-key
        self._api("POST", TOKEN_PATH, lambda req, grant, app: self.oauth.token(req, app))
        self._api("GET", APP + "/listings", self.get_listings)
        # SIM-CHOICE: the other reading of the getListingsByShop conflict is served too.
        self._api("GET", APP + "/shop/{shop_id}/listings", self.get_listings)
        shop = f"{APP}/{shop_resource}/{{shop_id}}"
        self._api("POST", shop + "/listings", self.create_draft_listing, scope=SCOPE_CREATE_LISTING)
        self._api("GET", shop + "/receipts", self.get_shop_receipts, scope=SCOPE_RECEIPTS)
        image = "/listings/{listing_id}/images/{listing_image_id}"
        self._api("DELETE", APP + "/shop/{shop_id}" + image, self.delete_listing_image, scope=SCOPE_DELETE_IMAGE)
        if shop_resource != "shop":
            # SIM-CHOICE: another shop resource moves every shop path, the documented ones as
            # aliases (the harness's documented paths still answer): the vendor's client lists
            # and deletes under /shops/{shop_id}/ too.
            self._api("GET", shop + "/listings", self.get_listings)
            self._api("DELETE", shop + image, self.delete_listing_image, scope=SCOPE_DELETE_IMAGE)

    def _id(self, kind: str) -> int:
        self._next[kind] += 1
        return self._next[kind]

    def _seed(self) -> None:
        start = int(self.clock.now()) - 86_400 * 30
        plan = [("active", ACTIVE_LISTINGS)]
        plan += [(state, LISTINGS_PER_OTHER_STATE) for state in LISTING_STATES[1:]]
        n = 0
        for state, count in plan:
            for _ in range(count):
                n += 1
                # Quantity: active means "has quantity"; sold_out has none left.
                quantity = 0 if state == "sold_out" else 1 + n % 7
                self._add_listing(SIM_SHOP_ID, f"Stoneware piece No. {n}", state, quantity,
                                  1_000 + 25 * n, start + 60 * n)
        self._add_listing(SIM_OTHER_SHOP_ID, "Café table runner", "active", 2, 4_500, start)
        self._add_listing(SIM_OTHER_SHOP_ID, "Wool throw", "draft", 1, 9_900, start)
        for i in range(RECEIPTS_PER_STATUS * len(RECEIPT_STATUSES)):
            status = RECEIPT_STATUSES[i % len(RECEIPT_STATUSES)]
            self.receipts.append({
                "receipt_id": self._id("receipt"),
                "shop_id": SIM_SHOP_ID,
                "buyer_user_id": 60_000_000 + i,
                "status": status,
                "was_paid": status in _PAID,
                "grandtotal": {"amount": 1_500 + 10 * i, "divisor": 100, "currency_code": "USD"},
                "tax_rate": "0.0825",  # a number, returned as a string
                "created_timestamp": start + 3_600 * i,
            })

    def _add_listing(self, shop_id: int, title: str, state: str, quantity: int, amount: int,
                     created: int, weight: str = "0.35", is_supply: bool = False,
                     images: int = IMAGES_PER_LISTING) -> Listing:
        listing = Listing(self._id("listing"), shop_id, title, state, quantity, amount, weight,
                          is_supply, created)
        for _ in range(images):
            image_id = self._id("image")
            listing.images.append(image_id)
            self.images[image_id] = listing.listing_id
        self.listings[listing.listing_id] = listing
        return listing

    # -- cross-cutting: application key, bearer, scopes, error body ----------------------
    def _api(self, method: str, template: str, handler: Callable[..., Response], *,
             scope: str | None = None) -> None:
        """Register a route behind x-api-key and, for a scoped operation, the bearer token."""

        def guarded(request: Request, **ids: str) -> Response:
            app = self._app_key(request)
            grant = None
            if scope is not None:
                grant = self.oauth.authenticate(request.header("authorization"), app)
                if scope not in grant.scopes:
                    raise SimError(403, f"this operation needs scope {scope}",
                                   error="insufficient_scope")
            return handler(request, grant=grant, app=app, **ids)

        self.route(method, template, guarded)

    @staticmethod
    def _app_key(request: Request) -> str:
        raw = request.header("x-api-key")
        # SIM-CHOICE: every key failure is a 401 (the status is not documented).
        if raw is None:
            raise SimError(401, "x-api-key is required on every request")
        keystring, sep, secret = raw.partition(":")
        if not keystring or not sep or not secret:
            raise SimError(401, "x-api-key must be <KEYSTRING>:<SHARED_SECRET>")
        expected = SIM_KEYS.get(keystring)
        if expected is None or not hmac.compare_digest(secret.encode(), expected.encode()):
            raise SimError(401, "x-api-key is not a known keystring and shared secret")
        return keystring

    def error_response(self, err: SimError) -> Response:
        # SIM-CHOICE: the error body is not documented; one shape for the API and the token
        # endpoint alike, RFC 6749 section 5.2 style.
        code = str(err.extra.get("error") or _ERROR_CODES.get(err.status, "error"))
        return Response.json_response(err.status, {"error": code, "error_description": err.message})

    def finish(self, request: Request, response: Response) -> Response:
        if response.is_json:  # "Bodies are UTF-8": say so
            response.headers["content-type"] = "application/json; charset=utf-8"
        return response

    # -- parameter parsing (standard parameter types) ------------------------------------
    @staticmethod
    def _integer(request: Request, name: str, default: int, low: int | None, high: int) -> int:
        raw = request.params.get(name)
        if raw is None:
            return default
        # ASCII digits only, and short: int() would take other scripts' digits, and very long
        # digit strings raise ValueError in int().
        if not _DIGITS.fullmatch(raw):
            raise SimError(400, f"{name} must be a non-negative integer")
        value = int(raw)
        if (low is not None and value < low) or value > high:
            raise SimError(400, f"{name} must be between {low or 0} and {high}")
        return value

    @staticmethod
    def _boolean(raw: str | None, name: str) -> bool | None:
        if raw is None:
            return None
        if raw not in _BOOLEANS:
            raise SimError(400, f"{name} must be true, false, 1 or 0")
        return _BOOLEANS[raw]

    @staticmethod
    def _array(raw: str | None, name: str, allowed: tuple[str, ...]) -> list[str]:
        if raw is None:
            return []
        items = raw.split(",")
        # Comma-separated without brackets; a bracketed list is an out-of-enum value.
        if any(item not in allowed for item in items):
            raise SimError(400, f"{name} is a comma-separated list of {', '.join(allowed)}")
        return items

    @staticmethod
    def _path_id(raw: str, name: str) -> int:
        # SIM-CHOICE: ids are positive integers; anything else in the path is a 400.
        if not _ID.fullmatch(raw):
            raise SimError(400, f"{name} must be a positive integer")
        return int(raw)

    def _owned_shop(self, raw_shop_id: str, grant: Grant | None) -> Shop:
        shop = self.shops.get(self._path_id(raw_shop_id, "shop_id"))
        if shop is None:
            raise SimError(404, "no such shop")  # SIM-CHOICE
        if grant is not None and grant.user_id != shop.user_id:
            raise SimError(403, "the token's user does not own this shop")  # SIM-CHOICE
        return shop

    def _page(self, request: Request, records: list[dict[str, Any]]) -> Response:
        limit = self._integer(request, "limit", LIMIT_DEFAULT, LIMIT_MIN, LIMIT_MAX)
        offset = self._integer(request, "offset", OFFSET_DEFAULT, None, OFFSET_MAX)
        # count is the total regardless of limit; the page is a slice of a stable order.
        return Response.json_response(200, {"count": len(records),
                                            "results": records[offset:offset + limit]})

    # -- rendering -----------------------------------------------------------------------
    def _render_listing(self, listing: Listing, includes: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {
            "listing_id": listing.listing_id,
            "shop_id": listing.shop_id,
            "title": listing.title,
            "state": listing.state,
            "quantity": listing.quantity,
            "price": {"amount": listing.amount, "divisor": 100, "currency_code": "USD"},
            "item_weight": listing.weight,
            "is_supply": listing.is_supply,
            "created_timestamp": listing.created,
        }
        if "Images" in includes:
            out["images"] = [self._render_image(listing, image_id) for image_id in listing.images]
        if "Shop" in includes:
            shop = self.shops[listing.shop_id]
            out["shop"] = {"shop_id": shop.shop_id, "shop_name": shop.name}
        return out

    @staticmethod
    def _render_image(listing: Listing, image_id: int) -> dict[str, Any]:
        return {
            "listing_image_id": image_id,
            "listing_id": listing.listing_id,
            "rank": listing.images.index(image_id) + 1,
            "url_fullxfull": f"https://img.sim.invalid/{listing.listing_id}/{image_id}.jpg",
        }

    # -- endpoints -----------------------------------------------------------------------
    def get_listings(self, request: Request, grant: Grant | None, app: str,
                     shop_id: str | None = None) -> Response:
        shop = None if shop_id is None else self._owned_shop(shop_id, None)
        # SIM-CHOICE: without state, active listings (the example shows state=active); the
        # shop-less path lists every shop's listings.
        raw_state = request.params.get("state", "active")
        if raw_state not in LISTING_STATES:
            raise SimError(400, f"state must be one of {', '.join(LISTING_STATES)}")
        states = _STATE_GROUPS.get(raw_state, {raw_state})
        includes = self._array(request.params.get("includes"), "includes", INCLUDES)
        chosen = [
            self._render_listing(listing, includes)
            for listing in sorted(self.listings.values(), key=lambda item: item.listing_id)
            if listing.state in states and (shop is None or listing.shop_id == shop.shop_id)
        ]
        return self._page(request, chosen)

    def get_shop_receipts(self, request: Request, grant: Grant | None, app: str,
                          shop_id: str) -> Response:
        shop = self._owned_shop(shop_id, grant)
        # SIM-CHOICE: a boolean filter, to exercise the documented boolean spellings.
        was_paid = self._boolean(request.params.get("was_paid"), "was_paid")
        chosen = [
            dict(r) for r in self.receipts
            if r["shop_id"] == shop.shop_id and (was_paid is None or r["was_paid"] == was_paid)
        ]
        return self._page(request, chosen)

    def create_draft_listing(self, request: Request, grant: Grant | None, app: str,
                             shop_id: str) -> Response:
        shop = self._owned_shop(shop_id, grant)
        media = (request.header("content-type") or "").split(";")[0].strip().lower()
        if media not in ("application/x-www-form-urlencoded", "application/json"):
            # SIM-CHOICE: form posts (the document says they are urlencoded) and, as the vendor's
            # client sends them, flat JSON objects (the document does not refuse JSON).
            raise SimError(415, "send the listing as application/x-www-form-urlencoded or JSON")
        form = parse_form(request)
        # SIM-CHOICE: the fields are not documented; title, quantity and price are required.
        title = form.get("title", "").strip()
        if not title or len(title) > TITLE_MAX:
            raise SimError(400, f"title is required, 1 to {TITLE_MAX} characters")
        quantity_raw = form.get("quantity", "")
        if not _DIGITS.fullmatch(quantity_raw) or not 1 <= int(quantity_raw) <= QUANTITY_MAX:
            raise SimError(400, f"quantity must be an integer from 1 to {QUANTITY_MAX}")
        price_raw = form.get("price", "")
        if not _PRICE.fullmatch(price_raw) or Decimal(price_raw) <= 0:
            raise SimError(400, "price must be a positive number with at most two decimals")
        is_supply = self._boolean(form.get("is_supply"), "is_supply") or False
        listing = self._add_listing(
            shop.shop_id, title, "draft", int(quantity_raw), int(Decimal(price_raw) * 100),
            int(self.clock.now()), is_supply=is_supply, images=0,  # a new draft has no images yet
        )
        # SIM-CHOICE: 201 with the listing; status and body are not documented.
        return Response.json_response(201, self._render_listing(listing, []))

    def delete_listing_image(self, request: Request, grant: Grant | None, app: str, shop_id: str,
                             listing_id: str, listing_image_id: str) -> Response:
        shop = self._owned_shop(shop_id, grant)
        listing = self.listings.get(self._path_id(listing_id, "listing_id"))
        image_id = self._path_id(listing_image_id, "listing_image_id")
        if listing is None or listing.shop_id != shop.shop_id or image_id not in listing.images:
            raise SimError(404, "no such image of this listing")  # SIM-CHOICE
        listing.images.remove(image_id)
        del self.images[image_id]
        return Response(204)  # SIM-CHOICE: the success status is not documented

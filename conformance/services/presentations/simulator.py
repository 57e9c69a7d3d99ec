"""Simulator of the presentation-generation service (volume 1, part B).

Written from the document, not from schemas/presentations: the numbers below are this
simulator's own reading of the text. Choices the document leaves open are marked SIM-CHOICE;
the harness never checks them (they are gaps in the rule catalogue).
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from conformance.simulators.base import Clock, SimError, Simulator
from conformance.transport.model import Request, Response

__all__ = ["PresentationsSimulator", "SIM_KEYS", "FAIL_MARKER"]

INPUT_TEXT_MAX = 400_000
INSTRUCTIONS_MAX = 5_000
FOLDER_IDS_MAX = 10
NUM_CARDS_MIN, NUM_CARDS_MAX = 1, 75
TEXT_MODES = {"generate", "condense", "preserve"}
FORMATS = {"presentation", "document", "social", "webpage"}
CARD_SPLITS = {"inputTextBreaks", "auto"}
# SIM-CHOICE: "a web source also exists" without a name; this simulator calls it webAllImages.
WEB_SOURCE = "webAllImages"
IMAGE_SOURCES = {"aiGenerated", "webFreeToUseCommercially", "noImages", WEB_SOURCE}
EXPORTS = {"pptx", "pdf", "png"}
POSITIONS = ("topLeft", "topCenter", "topRight", "bottomLeft", "bottomCenter", "bottomRight")

# SIM-CHOICE: durations, costs, page size and rate ceilings are not documented.
PROCESSING_SECONDS = 30.0
PAGE_SIZE = 10
BURST_CAPACITY = 20
BURST_REFILL_PER_SECOND = 2.0
HOURLY_CAPACITY = 2_000
DAILY_CAPACITY = 20_000
EXPORT_TTL_SECONDS = 7 * 24 * 3600
# SIM-CHOICE: a sandbox convenience, like magic card numbers: input starting with this fails.
FAIL_MARKER = "[[sim:fail]]"

# Seeded accounts, the same in process and served: (plan, credits).
SIM_KEYS: dict[str, tuple[str, float]] = {
    "sim-ultra-key": ("ultra", 100_000.0),
    "sim-broke-key": ("ultra", 0.0),
    "sim-free-key": ("free", 100_000.0),
}
PAID_PLANS = {"pro", "ultra", "teams", "business"}
THEMES = [f"theme-{i:02d}" for i in range(1, 24)]
FOLDERS = [f"folder-{i:02d}" for i in range(1, 13)]
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+$")


@dataclass
class Account:
    plan: str
    credits: float


@dataclass
class Generation:
    id: str
    created: float
    cost: float
    export_as: str | None
    fail: bool
    account: Account
    settled: dict[str, Any] = field(default_factory=dict)


@dataclass
class Window:
    capacity: float
    refill_per_second: float
    level: float
    stamp: float

    def take(self, now: float) -> bool:
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.refill_per_second)
        self.stamp = now
        if self.level < 1:
            return False
        self.level -= 1
        return True


class PresentationsSimulator(Simulator):
    service = "presentations"
    credentials: ClassVar[dict[str, str]] = {
        "API_KEY": "sim-ultra-key",
        "NO_CREDITS_API_KEY": "sim-broke-key",
        "DENIED_API_KEY": "sim-free-key",
        "FAIL_INPUT": FAIL_MARKER,
        "WEB_IMAGE_SOURCE": WEB_SOURCE,
        # SIM-CHOICE: any gammaId names a template here; this is the one runs are told to use.
        "TEMPLATE_ID": "g_template_1",
        # SIM-CHOICE: folderIds are not checked against the folders here; these are listed ones.
        "FOLDER_IDS": ",".join(FOLDERS[:FOLDER_IDS_MAX + 1]),
    }

    def __init__(self, clock: Clock | None = None) -> None:
        super().__init__(clock)
        self.accounts = {key: Account(plan, credits) for key, (plan, credits) in SIM_KEYS.items()}
        self.generations: dict[str, Generation] = {}
        self.processing_seconds = PROCESSING_SECONDS
        self._windows: dict[str, list[Window]] = {}
        self._counter = 0
        # SIM-CHOICE: the id format is not documented (allowed variants issue others).
        self.new_id = lambda n: f"gen_{n:06d}"
        self.refuse_unknown_members = True
        self.themes, self.folders = list(THEMES), list(FOLDERS)
        for method, path, handler in (
            ("POST", "/v1.0/generations", self.create),
            ("POST", "/v1.0/generations/from-template", self.create_from_template),
            ("GET", "/v1.0/generations/{generation_id}", self.get_generation),
            ("GET", "/v1.0/themes", self.list_themes),
            ("GET", "/v1.0/folders", self.list_folders),
        ):
            self.route(method, path, handler)

    # -- cross-cutting: auth, rate limits, headers ---------------------------------------
    def handle(self, request: Request) -> Response:
        key = request.header("x-api-key")
        # The key may not travel as a Bearer token: the document says that yields 401.
        if key is None or key not in self.accounts:
            return self.finish(request, self.error_response(SimError(401, "invalid or missing API key")))
        if self.accounts[key].plan not in PAID_PLANS:
            return self.finish(request, self.error_response(SimError(403, "API access needs a paid plan")))
        if not all(w.take(self.clock.now()) for w in self._windows_for(key)):
            return self.finish(request, self.error_response(SimError(429, "rate limited; back off")))
        return super().handle(request)

    def _windows_for(self, key: str) -> list[Window]:
        if key not in self._windows:
            now = self.clock.now()
            self._windows[key] = [
                Window(BURST_CAPACITY, BURST_REFILL_PER_SECOND, BURST_CAPACITY, now),
                Window(HOURLY_CAPACITY, HOURLY_CAPACITY / 3600, HOURLY_CAPACITY, now),
                Window(DAILY_CAPACITY, DAILY_CAPACITY / 86400, DAILY_CAPACITY, now),
            ]
        return self._windows[key]

    def finish(self, request: Request, response: Response) -> Response:
        windows = self._windows.get(request.header("x-api-key") or "")
        levels = [int(w.level) for w in windows] if windows else [BURST_CAPACITY, HOURLY_CAPACITY, DAILY_CAPACITY]
        response.headers["x-ratelimit-remaining-burst"] = str(levels[0])
        response.headers["x-ratelimit-remaining"] = str(levels[1])
        response.headers["x-ratelimit-remaining-daily"] = str(levels[2])
        return response

    # -- validation ----------------------------------------------------------------------
    @staticmethod
    def _string(body: dict[str, Any], name: str, *, required: bool = False,
                min_len: int = 0, max_len: int | None = None) -> str | None:
        if name not in body:
            if required:
                raise SimError(400, f"{name} is required")
            return None
        value = body[name]
        if not isinstance(value, str):
            raise SimError(400, f"{name} must be a string")
        if len(value) < min_len or (max_len is not None and len(value) > max_len):
            raise SimError(400, f"{name} must be {min_len} to {max_len} characters")
        return value

    @staticmethod
    def _choice(body: dict[str, Any], name: str, allowed: set[str], *, required: bool = False) -> str | None:
        if name not in body:
            if required:
                raise SimError(400, f"{name} is required")
            return None
        if not isinstance(body[name], str) or body[name] not in allowed:
            raise SimError(400, f"{name} must be one of {sorted(allowed)}")
        return str(body[name])

    @staticmethod
    def _object(body: dict[str, Any], name: str, strings: tuple[str, ...] = ()) -> dict[str, Any]:
        value = body.get(name, {})
        if not isinstance(value, dict):
            raise SimError(400, f"{name} must be an object")
        for member in strings:
            if member in value and not isinstance(value[member], str):
                raise SimError(400, f"{name}.{member} must be a string")
        return value

    def _folder_ids(self, body: dict[str, Any]) -> None:
        ids = body.get("folderIds", [])
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise SimError(400, "folderIds must be an array of strings")
        if len(ids) > FOLDER_IDS_MAX:
            raise SimError(400, f"folderIds holds at most {FOLDER_IDS_MAX} ids")

    def _sharing(self, body: dict[str, Any]) -> None:
        sharing = self._object(body, "sharingOptions", ("workspaceAccess", "externalAccess"))
        email = sharing.get("emailOptions", {})
        if not isinstance(email, dict):
            raise SimError(400, "sharingOptions.emailOptions must be an object")
        recipients = email.get("recipients", [])
        if not isinstance(recipients, list) or not all(
            isinstance(r, str) and _EMAIL.match(r) for r in recipients
        ):
            raise SimError(400, "sharingOptions.emailOptions.recipients must be e-mail addresses")
        if "access" in email and not isinstance(email["access"], str):
            raise SimError(400, "sharingOptions.emailOptions.access must be a string")

    def _check_known(self, body: dict[str, Any], known: set[str]) -> None:
        # SIM-CHOICE: unknown members are refused (the document does not say either way).
        unknown = sorted(set(body) - known) if self.refuse_unknown_members else []
        if unknown:
            raise SimError(400, f"unknown parameters: {', '.join(unknown)}")

    # -- endpoints -----------------------------------------------------------------------
    def create(self, request: Request) -> Response:
        body = self.json_body(request)
        self._check_known(body, {
            "inputText", "textMode", "additionalInstructions", "format", "numCards", "cardSplit",
            "themeId", "textOptions", "imageOptions", "cardOptions", "sharingOptions",
            "folderIds", "exportAs",
        })
        text = self._string(body, "inputText", required=True, min_len=1, max_len=INPUT_TEXT_MAX)
        self._choice(body, "textMode", TEXT_MODES, required=True)
        self._string(body, "additionalInstructions", max_len=INSTRUCTIONS_MAX)
        self._choice(body, "format", FORMATS)
        self._choice(body, "cardSplit", CARD_SPLITS)
        self._string(body, "themeId")
        cards = body.get("numCards", 10)
        if isinstance(cards, bool) or not isinstance(cards, (int, float)) or not (
            NUM_CARDS_MIN <= cards <= NUM_CARDS_MAX
        ):
            raise SimError(400, f"numCards must be a number from {NUM_CARDS_MIN} to {NUM_CARDS_MAX}")
        self._object(body, "textOptions", ("amount", "tone", "audience", "language"))
        image = self._object(body, "imageOptions", ("model", "style"))
        if "source" in image and (not isinstance(image["source"], str) or image["source"] not in IMAGE_SOURCES):
            raise SimError(400, f"imageOptions.source must be one of {sorted(IMAGE_SOURCES)}")
        card_options = self._object(body, "cardOptions", ("dimensions",))
        header_footer = card_options.get("headerFooter", {})
        if not isinstance(header_footer, dict):
            raise SimError(400, "cardOptions.headerFooter must be an object")
        for pos in POSITIONS:
            if pos in header_footer and not isinstance(header_footer[pos], dict):
                raise SimError(400, f"cardOptions.headerFooter.{pos} must be an object")
        for flag in ("hideFromFirstCard", "hideFromLastCard"):
            if flag in header_footer and not isinstance(header_footer[flag], bool):
                raise SimError(400, f"cardOptions.headerFooter.{flag} must be a boolean")
        self._sharing(body)
        self._folder_ids(body)
        export = self._choice(body, "exportAs", EXPORTS)
        warnings = []
        if image.get("source") == WEB_SOURCE and "model" in image:
            warnings.append("imageOptions.model is ignored for web image sources")
        return self._start(request, float(int(cards)) + 2, export, str(text), warnings)

    def create_from_template(self, request: Request) -> Response:
        body = self.json_body(request)
        self._check_known(body, {"prompt", "gammaId", "themeId", "exportAs", "sharingOptions", "folderIds"})
        prompt = self._string(body, "prompt", required=True)
        self._string(body, "gammaId", required=True)
        self._string(body, "themeId")
        export = self._choice(body, "exportAs", EXPORTS)
        self._sharing(body)
        self._folder_ids(body)
        return self._start(request, 8.0, export, str(prompt), [])

    def _start(self, request: Request, cost: float, export: str | None, text: str,
               warnings: list[str]) -> Response:
        account = self.accounts[str(request.header("x-api-key"))]
        if account.credits < cost:
            raise SimError(402, "insufficient credits")
        self._counter += 1
        gen_id = str(self.new_id(self._counter))
        self.generations[gen_id] = Generation(
            gen_id, self.clock.now(), cost, export, text.startswith(FAIL_MARKER), account
        )
        payload: dict[str, Any] = {"generationId": gen_id}
        if warnings:
            payload["warnings"] = "; ".join(warnings)
        return Response.json_response(200, payload)

    def get_generation(self, request: Request, generation_id: str) -> Response:
        gen = self.generations.get(generation_id)
        if gen is None or gen.account is not self.accounts[str(request.header("x-api-key"))]:
            raise SimError(404, "no such generation")  # SIM-CHOICE: status not documented
        if not gen.settled and self.clock.now() >= gen.created + self.processing_seconds:
            self._settle(gen)
        return Response.json_response(200, gen.settled or {"generationId": gen.id, "status": "pending"})

    def _settle(self, gen: Generation) -> None:
        if gen.fail:
            gen.settled = {"generationId": gen.id, "status": "failed",
                           "error": {"message": "generation failed", "code": "SIM_FAILURE"}}
            return
        gen.account.credits = max(0.0, gen.account.credits - gen.cost)
        gen.settled = {
            "generationId": gen.id,
            "status": "completed",
            "gammaUrl": f"https://sim.invalid/docs/{gen.id}",
            "credits": {"deducted": gen.cost, "remaining": gen.account.credits},
        }
        if gen.export_as:
            expires = int(self.clock.now() + EXPORT_TTL_SECONDS)
            gen.settled["exportUrl"] = (
                f"https://sim.invalid/export/{gen.id}.{gen.export_as}?expires={expires}&sig=sim"
            )

    def _page(self, request: Request, items: list[str], kind: str) -> Response:
        after = request.params.get("after")
        start = 0
        if after is not None:
            try:
                decoded = base64.urlsafe_b64decode(after.encode()).decode()
                prefix, _, offset = decoded.partition(":")
                start = int(offset)
                if prefix != kind or not 0 < start <= len(items):
                    raise ValueError
            except ValueError:
                raise SimError(400, "after is not a cursor from this list") from None
        page = items[start:start + PAGE_SIZE]
        more = start + PAGE_SIZE < len(items)
        payload: dict[str, Any] = {
            "data": [{"id": i, "name": i.replace("-", " ").title()} for i in page],
            "hasMore": more,
        }
        if more:
            payload["nextCursor"] = base64.urlsafe_b64encode(
                f"{kind}:{start + PAGE_SIZE}".encode()).decode()
        return Response.json_response(200, payload)

    def list_themes(self, request: Request) -> Response:
        return self._page(request, self.themes, "themes")

    def list_folders(self, request: Request) -> Response:
        return self._page(request, self.folders, "folders")

"""The presentations simulator on its own: documented behaviour and hostile input."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.services.presentations.simulator import FAIL_MARKER, PresentationsSimulator
from conformance.simulators.base import MAX_BODY_BYTES
from conformance.transport.model import Request, Response

KEY = PresentationsSimulator.credentials["API_KEY"]


def call(sim: PresentationsSimulator, method: str, path: str, *, key: str | None = KEY,
         **kwargs: Any) -> Response:
    headers = {"X-API-KEY": key} if key else {}
    headers.update(kwargs.pop("headers", {}))
    return sim.handle(Request.build(method, "/v1.0" + path, headers=headers, **kwargs))


def start(sim: PresentationsSimulator, **extra: Any) -> str:
    res = call(sim, "POST", "/generations", json_body={"inputText": "x", "textMode": "generate", **extra})
    assert res.status == 200, res.body
    return str(res.json()["generationId"])


def test_generation_completes_on_the_simulated_clock() -> None:
    sim = PresentationsSimulator()
    gen = start(sim, exportAs="pdf")
    assert call(sim, "GET", f"/generations/{gen}").json()["status"] == "pending"
    sim.clock.advance(sim.processing_seconds)
    body = call(sim, "GET", f"/generations/{gen}").json()
    assert body["status"] == "completed"
    assert body["exportUrl"].startswith("https://") and body["credits"]["deducted"] > 0


def test_failure_marker_fails_the_generation() -> None:
    sim = PresentationsSimulator()
    res = call(sim, "POST", "/generations", json_body={"inputText": FAIL_MARKER + "x", "textMode": "generate"})
    sim.clock.advance(sim.processing_seconds)
    body = call(sim, "GET", f"/generations/{res.json()['generationId']}").json()
    assert body["status"] == "failed" and "error" in body


def test_bearer_is_refused_and_headers_are_everywhere() -> None:
    sim = PresentationsSimulator()
    res = call(sim, "GET", "/themes", key=None, headers={"Authorization": f"Bearer {KEY}"})
    assert res.status == 401
    assert res.header("x-ratelimit-remaining-burst") is not None


def test_burst_is_limited_then_recovers() -> None:
    sim = PresentationsSimulator()
    statuses = [call(sim, "GET", "/folders").status for _ in range(100)]
    assert 429 in statuses
    sim.clock.advance(60)
    assert call(sim, "GET", "/folders").status == 200


def test_cursor_walk_covers_every_theme_once() -> None:
    sim = PresentationsSimulator()
    seen: list[str] = []
    cursor = None
    while True:
        body = call(sim, "GET", "/themes", params={"after": cursor} if cursor else None).json()
        seen += [t["id"] for t in body["data"]]
        if not body["hasMore"]:
            break
        cursor = body["nextCursor"]
    assert len(seen) == len(set(seen)) > 10


def test_forged_cursor_is_a_400() -> None:
    assert call(PresentationsSimulator(), "GET", "/themes", params={"after": "!!"}).status == 400


def test_hostile_bodies_get_4xx() -> None:
    sim = PresentationsSimulator()
    cases = [
        b"{not json", b"[]", b'"text"', json.dumps({"inputText": 5, "textMode": "generate"}).encode(),
        json.dumps({"inputText": "x", "textMode": "generate", "surprise": 1}).encode(),
        b"\xff\xfe\x00", b"x" * (MAX_BODY_BYTES + 1),
    ]
    for body in cases:
        res = call(sim, "POST", "/generations", content=body, headers={"content-type": "application/json"})
        assert 400 <= res.status < 500, (body[:40], res.status)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)
members = st.sampled_from(["inputText", "textMode", "numCards", "folderIds", "imageOptions",
                           "cardOptions", "sharingOptions", "textOptions", "exportAs", "format"])


@settings(max_examples=50, derandomize=True, database=None, deadline=None)
@given(st.dictionaries(members, json_values, max_size=6))
def test_no_body_makes_the_simulator_fail(body: dict[str, Any]) -> None:
    sim = PresentationsSimulator()
    for path in ("/generations", "/generations/from-template"):
        assert call(sim, "POST", path, json_body=body).status < 500


@settings(max_examples=50, derandomize=True, database=None, deadline=None)
@given(st.text(max_size=30), st.text(max_size=30))
def test_no_path_or_cursor_makes_the_simulator_fail(segment: str, cursor: str) -> None:
    sim = PresentationsSimulator()
    assert call(sim, "GET", f"/generations/{segment}").status < 500
    assert call(sim, "GET", "/folders", params={"after": cursor}).status < 500


def test_only_the_unnamed_web_source_warns_about_the_model() -> None:
    # The document names no web source; the simulator's is its WEB_IMAGE_SOURCE setting.
    sim = PresentationsSimulator()
    web = PresentationsSimulator.credentials["WEB_IMAGE_SOURCE"]
    res = call(sim, "POST", "/generations", json_body={
        "inputText": "x", "textMode": "generate", "imageOptions": {"source": web, "model": "m"}})
    assert res.status == 200 and "model" in res.json()["warnings"]
    listed = call(sim, "POST", "/generations", json_body={
        "inputText": "x", "textMode": "generate", "imageOptions": {"source": "aiGenerated", "model": "m"}})
    assert listed.status == 200 and "warnings" not in listed.json()


def test_malformed_json_is_a_400_not_a_crash() -> None:
    sim = PresentationsSimulator()
    res = call(sim, "POST", "/generations", content=b'{"inputText": "x", "textMode": ',
               headers={"content-type": "application/json"})
    assert res.status == 400


def test_id_format_and_lists_are_attributes_variants_can_change() -> None:
    sim = PresentationsSimulator()
    sim.new_id = lambda n: f"other-{n}"
    assert start(sim) == "other-1"
    sim.folders = sim.folders[:3]
    page = call(sim, "GET", "/folders").json()
    assert len(page["data"]) == 3 and page["hasMore"] is False

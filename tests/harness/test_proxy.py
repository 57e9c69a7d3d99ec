"""``conformance proxy`` (issue 33): a caller's traffic through the proxy to the presentations
simulator, checked on both sides and written as a run.

Driven in process (the proxy's ASGI app in front of the simulator's, both through httpx's ASGI
transport: nothing leaves the process) except where the process boundary is the point: the command
itself, stopped by a signal, and `conformance triage` over what it wrote. No verdict depends on
timing: every exchange is checked before the in-process call returns, and the command's tests wait
for lines and exit statuses, never for a clock.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from conformance.contract import load_contract
from conformance.proxy.app import ProxyApp, ProxySession
from conformance.proxy.forward import Forwarder
from conformance.services import create_simulator, fault_decorator
from conformance.settings import Limits
from conformance.simulators.asgi import SimulatorApp
from tests.harness.inprocess import run_isolated
from tests.harness.proxying import SECONDS as _SECONDS
from tests.harness.proxying import Seen, report, through
from tests.harness.proxying import capturing as _capturing
from tests.harness.proxying import serving as _serving
from tests.hostile.server import MODES as HOSTILE_MODES
from tests.hostile.server import hostile_server

SERVICE = "presentations"
KEY = create_simulator(SERVICE).credentials["API_KEY"]


@dataclass
class Proxied:
    session: ProxySession
    seen: Seen
    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)

    def send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return asyncio.run(self._send(method, path, **kwargs))

    async def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        transport = httpx.ASGITransport(ProxyApp(self.session))  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:9") as client:
            response = await client.request(method, path, **kwargs)
            await response.aread()
        # The forwarder's client was bound to the loop that just ended: a fresh one per call.
        self.session.forwarder = _forwarder(self.session.forwarder)
        return response


_TRANSPORTS: dict[int, tuple[httpx.AsyncBaseTransport, Limits]] = {}


def _forwarder(old: Forwarder) -> Forwarder:
    transport, limits = _TRANSPORTS[id(old)]
    new = Forwarder("http://127.0.0.1:8", limits, transport=transport)
    _TRANSPORTS[id(new)] = (transport, limits)
    return new


def proxied(tmp_path: Path, fault: str | None = None, *, record: bool = False, limits: Limits | None = None,
            change: Callable[[dict[str, Any]], None] | None = None) -> Proxied:
    sim = create_simulator(SERVICE)
    if fault:
        sim = fault_decorator(SERVICE, fault)(sim)
    seen = Seen()
    limits = limits or Limits()
    transport = httpx.ASGITransport(_capturing(SimulatorApp(sim), seen, change))
    forwarder = Forwarder("http://127.0.0.1:8", limits, transport=transport)
    _TRANSPORTS[id(forwarder)] = (transport, limits)
    session = ProxySession(load_contract(SERVICE), forwarder, limits,
                           record_to=tmp_path / "cassettes" if record else None)
    return Proxied(session, seen)


GOOD_BODY = {"inputText": "a talk on tides", "textMode": "generate", "numCards": 10}


def test_a_clean_exchange_passes_its_rules_and_passes_through(tmp_path: Path) -> None:
    p = proxied(tmp_path)
    got = p.send("GET", "/v1.0/themes", headers={"X-API-KEY": KEY})
    status, headers, body = p.seen.answers[-1]
    assert got.status_code == status == 200 and got.content == body
    rules = report(p, tmp_path)
    assert rules["presentations.themes.page-shape"]["status"] == "passed"
    assert rules["presentations.themes.page-shape"]["exchanges"] == {"seen": 1, "passed": 1, "failed": 0,
                                                                     "observed": 0}
    assert rules["presentations.rate-limit.headers"]["status"] == "passed"
    # A rule no exchange touched is not exercised, never passed.
    assert rules["presentations.folders.page-shape"]["status"] == "skipped"
    assert rules["presentations.folders.page-shape"]["skip_kind"] == "not-exercised"
    assert not rules["_proxy"]["caller_mistakes"] and not rules["_proxy"]["vendor_unattributed"]
    assert not p.session.tally.vendor_failed()


def test_a_fault_fails_its_rule_naming_the_exchange(tmp_path: Path) -> None:
    p = proxied(tmp_path, "theme-items-without-id")
    p.send("GET", "/v1.0/folders", headers={"X-API-KEY": KEY})
    p.send("GET", "/v1.0/themes", headers={"X-API-KEY": KEY})
    rules = report(p, tmp_path)
    shape = rules["presentations.themes.page-shape"]
    assert shape["status"] == "failed" and shape["exchanges"]["failed"] == 1
    assert "exchange 2: GET /v1.0/themes" in shape["message"] and "'id' is a required property" in shape["message"]
    assert rules["presentations.folders.page-shape"]["status"] == "passed"
    assert p.session.tally.vendor_failed()
    assert "FAILED: presentations.themes.page-shape" in (tmp_path / "triage.md").read_text()
    junit = ET.parse(tmp_path / "junit.xml").getroot()
    (failed,) = [c for c in junit.iter("testcase") if c.find("failure") is not None]
    assert failed.get("name") == "test_rule[presentations.themes.page-shape]"
    assert failed.get("classname") == "conformance.presentations.GET /themes"
    results = [json.loads(f.read_text()) for f in (tmp_path / "allure-results").glob("*-result.json")]
    assert len(results) == len(load_contract(SERVICE).rules)
    (broken,) = [r for r in results if r["status"] == "failed"]
    assert broken["fullName"] == "conformance.presentations#presentations.themes.page-shape"
    assert "exchange 2: GET /v1.0/themes" in broken["statusDetails"]["message"]


def test_an_undocumented_status_is_observed_and_an_undocumented_5xx_fails_by_pointer(tmp_path: Path) -> None:
    # GET /themes documents 200, 401 and 429: the fault answers a missing key with 403. The
    # documents do not list every status (checks/generic.py): observed, not judged.
    p = proxied(tmp_path, "status-remapped:auth.key-required")
    p.send("GET", "/v1.0/themes")
    (seen,) = report(p, tmp_path)["_proxy"]["vendor_unattributed"]
    assert (seen["pointer"], seen["verdict"]) == ("#/paths/~1themes/get/responses", "observed")
    assert "status 403 is not documented" in seen["examples"][0] and not p.session.tally.vendor_failed()
    assert "what the documents do not list" in (tmp_path / "triage.md").read_text()
    # A 5xx is the service breaking, whatever it was sent (here a caller's mistake: textMode 5).
    for fault, failed in ((None, False), ("refusal-as-500:generate.text-mode-enum", True)):
        p = proxied(tmp_path, fault)
        got = p.send("POST", "/v1.0/generations", headers={"X-API-KEY": KEY}, json={**GOOD_BODY, "textMode": 5})
        data = report(p, tmp_path)
        assert got.status_code == (500 if failed else 400) and p.session.tally.vendor_failed() is failed
        assert {m["where"] for m in data["_proxy"]["caller_mistakes"]} == {"body.textMode"}  # its type and its enum
        if failed:
            (broke,) = data["_proxy"]["vendor_unattributed"]
            assert broke["verdict"] == "failed" and "status 500 is not documented" in broke["examples"][0]


def test_a_missing_rate_limit_header_fails_the_header_rule(tmp_path: Path) -> None:
    def drop(message: dict[str, Any]) -> None:  # the test's own fault: one documented header gone
        if message["type"] == "http.response.start":
            message["headers"] = [(k, v) for k, v in message["headers"] if k != b"x-ratelimit-remaining-daily"]

    for change, status in ((None, "passed"), (drop, "failed")):
        p = proxied(tmp_path, change=change)
        p.send("GET", "/v1.0/folders", headers={"X-API-KEY": KEY})
        rule = report(p, tmp_path)["presentations.rate-limit.headers"]
        assert rule["status"] == status
        if change:
            assert "no x-ratelimit-remaining-daily header" in rule["message"]


def test_an_undocumented_content_type_fails_by_pointer(tmp_path: Path) -> None:
    def as_text(message: dict[str, Any]) -> None:  # the test's own fault: JSON labelled text/plain
        if message["type"] == "http.response.start":
            message["headers"] = [(k, b"text/plain" if k == b"content-type" else v) for k, v in message["headers"]]

    for change in (None, as_text):
        p = proxied(tmp_path, change=change)
        p.send("GET", "/v1.0/folders", headers={"X-API-KEY": KEY})
        loose = report(p, tmp_path)["_proxy"]["vendor_unattributed"]
        assert p.session.tally.vendor_failed() is bool(change)
        if change:
            assert [e["pointer"] for e in loose] == ["#/paths/~1folders/get/responses/200/content"]
            assert "answered as text/plain" in loose[0]["examples"][0]


@pytest.mark.parametrize(("body", "rule", "where"), [
    ({**GOOD_BODY, "numCards": 150}, "presentations.generate.num-cards-range", "body.numCards"),
    ({"inputText": "a talk on tides"}, "presentations.generate.text-mode-required", "body.textMode"),
    ({**GOOD_BODY, "textMode": "shout"}, "presentations.generate.text-mode-enum", "body.textMode"),
])
def test_a_callers_mistake_is_reported_on_its_side_and_the_answer_passes_through_byte_for_byte(
        tmp_path: Path, body: dict[str, Any], rule: str, where: str) -> None:
    p = proxied(tmp_path)
    control = p.send("POST", "/v1.0/generations", headers={"X-API-KEY": KEY}, json=GOOD_BODY)
    got = p.send("POST", "/v1.0/generations", headers={"X-API-KEY": KEY}, json=body)
    status, headers, raw = p.seen.answers[-1]
    assert control.status_code == 200 and got.status_code == status == 400
    assert got.content == raw
    assert [(k.lower(), v) for k, v in got.headers.raw] == [(k.lower(), v) for k, v in headers]
    data = report(p, tmp_path)
    mistakes = data["_proxy"]["caller_mistakes"]
    assert [(m["rules"], m["where"], m["upstream_status"]) for m in mistakes] == [([rule], where, 400)]
    assert "exchange 2" in mistakes[0]["exchange"]
    # The caller's mistake is not the vendor's failure.
    assert not p.session.tally.vendor_failed() and data[rule]["status"] == "skipped"
    triage = (tmp_path / "triage.md").read_text()
    assert "## The caller's mistakes" in triage and rule in triage.split("## The caller's mistakes")[1]


def test_the_wrong_auth_scheme_is_the_callers_mistake(tmp_path: Path) -> None:
    p = proxied(tmp_path)
    p.send("GET", "/v1.0/themes", headers={"X-API-KEY": KEY})
    assert not p.session.tally.caller
    got = p.send("GET", "/v1.0/themes", headers={"Authorization": f"Bearer {KEY}"})
    assert got.status_code == 401
    (mistake,) = report(p, tmp_path)["_proxy"]["caller_mistakes"]
    assert mistake["kind"] == "auth" and mistake["rules"] == ["presentations.auth.bearer-rejected"]
    assert "apiKey in header X-API-KEY" in mistake["message"] and "authorization instead" in mistake["message"]
    p.send("GET", "/v1.0/folders")
    assert p.session.tally.caller[-1]["rules"] == ["presentations.auth.key-required"]


@pytest.mark.parametrize(("fault", "send", "rule"), [
    ("credential-unchecked:auth.bearer-rejected", {"headers": {"Authorization": f"Bearer {KEY}"}},
     "presentations.auth.bearer-rejected"),
    ("off-list-accepted:generate.text-mode-enum",
     {"headers": {"X-API-KEY": KEY}, "json": {**GOOD_BODY, "textMode": "shout"}},
     "presentations.generate.text-mode-enum"),
])
def test_a_mistake_the_document_says_is_refused_answered_2xx_fails_its_rule(
        tmp_path: Path, fault: str, send: dict[str, Any], rule: str) -> None:
    method, path = ("POST", "/v1.0/generations") if "json" in send else ("GET", "/v1.0/themes")
    for broken in (None, fault):
        p = proxied(tmp_path, broken)
        # A valid request first (the simulator's fault takes a wrong value as the last one it took).
        p.send(method, path, headers={"X-API-KEY": KEY}, **({"json": GOOD_BODY} if "json" in send else {}))
        got = p.send(method, path, **send)
        data = report(p, tmp_path)
        # The caller's mistake either way; the vendor's failure only where it took the request.
        assert [m["rules"] for m in data["_proxy"]["caller_mistakes"]] == [[rule]]
        if broken is None:
            # Refused: not a pass either (a refusal check needs a control that succeeded first).
            assert 400 <= got.status_code < 500 and data[rule]["status"] == "skipped"
            assert not p.session.tally.vendor_failed()
        else:
            assert got.status_code == 200 and data[rule]["status"] == "failed"
            assert f"exchange 2: {method} {path}" in data[rule]["message"]
            assert "200 to a request the document says is refused with" in data[rule]["message"]


@pytest.mark.parametrize(("variant", "member", "value"), [
    (None, "imageOptions", {"source": "webAllImages"}),  # "a web source also exists", unnamed: maybe this one
    ("case-folding-enums", "textMode", "Generate"),  # no sentence says matching is case-sensitive
])
def test_a_mistake_accepted_where_the_documents_leave_it_open_is_not_judged(
        tmp_path: Path, variant: str | None, member: str, value: Any) -> None:
    p = proxied(tmp_path, variant)
    got = p.send("POST", "/v1.0/generations", headers={"X-API-KEY": KEY}, json={**GOOD_BODY, member: value})
    data = report(p, tmp_path)
    assert got.status_code == 200 and len(data["_proxy"]["caller_mistakes"]) == 1  # the list's words, still
    assert not p.session.tally.vendor_failed()


def test_a_mistake_accepted_where_the_rule_names_no_refusal_is_not_the_vendors_failure(tmp_path: Path) -> None:
    # marketplace.paging.limit-range ("24 and 101 are errors") names no status a violation gets:
    # the proxy does not judge the vendor on it. The same limit=150 is the caller's mistake both times.
    for fault in (None, "bound-accepted:paging.limit-range"):
        with through("marketplace", fault) as t:
            creds = create_simulator("marketplace").credentials
            got = httpx.get(f"{t.url}/v3/application/listings", params={"limit": "150"}, timeout=_SECONDS,
                            headers={"x-api-key": f"{creds['API_KEY']}:{creds['SHARED_SECRET']}"})
        data = report(t.session, tmp_path)
        assert got.status_code == (200 if fault else 400)
        assert [m["rules"] for m in data["_proxy"]["caller_mistakes"]] == [["marketplace.paging.limit-range"]]
        assert data["marketplace.paging.limit-range"]["status"] == "skipped" and not t.session.tally.vendor_failed()


def test_an_operation_the_contract_does_not_know_is_reported_not_judged(tmp_path: Path) -> None:
    p = proxied(tmp_path)
    got = p.send("GET", "/v1.0/slides", headers={"X-API-KEY": KEY})
    assert got.status_code == 404
    data = report(p, tmp_path)
    assert data["_proxy"]["unknown_operations"] == {"GET /v1.0/slides": 1}
    assert not p.session.tally.vendor_failed() and not data["_proxy"]["caller_mistakes"]


def test_no_credential_the_caller_sends_reaches_a_written_file(tmp_path: Path) -> None:
    p = proxied(tmp_path, "theme-items-without-id", record=True)
    p.send("GET", "/v1.0/themes", headers={"X-API-KEY": KEY})
    p.send("GET", "/v1.0/themes", headers={"Authorization": f"Bearer {KEY}"})
    p.send("POST", "/v1.0/generations", headers={"X-API-KEY": KEY}, json={**GOOD_BODY, "numCards": 150})
    # The key where no name says it is one (a cursor, a path): only its value tells.
    p.send("GET", "/v1.0/themes", params={"after": KEY}, headers={"X-API-KEY": KEY})
    report(p, tmp_path)
    written = [f for f in tmp_path.rglob("*") if f.is_file()]
    assert len(list((tmp_path / "cassettes").glob("exchange-*.yaml"))) == 4
    assert {"summary.json", "triage.md"} <= {f.name for f in written}
    for path in written:
        assert KEY not in path.read_text(encoding="utf-8"), path
    # Recorded in the run's cassette format: the contract digest, the request and the answer.
    cassette = json.loads((tmp_path / "cassettes" / "exchange-00003.yaml").read_text())
    assert cassette["contract_digest"] == load_contract(SERVICE).digest
    (interaction,) = cassette["interactions"]
    assert interaction["response"]["status"]["code"] == 400 and "numCards" in interaction["request"]["body"]


def test_a_gzip_bomb_passes_through_unchanged_and_is_not_checked(tmp_path: Path) -> None:
    bomb = gzip.compress(b"{" + b" " * 200_000 + b"}")

    def compress(message: dict[str, Any]) -> None:  # a hostile upstream: a small body inflating past the cap
        if message["type"] == "http.response.start":
            message["headers"] = [(k, v) for k, v in message["headers"] if k != b"content-length"] + [
                (b"content-encoding", b"gzip"), (b"content-length", str(len(bomb)).encode())]
        elif message["type"] == "http.response.body":
            message["body"] = bomb

    p = proxied(tmp_path, limits=Limits(max_response_bytes=50_000), change=compress)
    got = p.send("GET", "/v1.0/themes", headers={"X-API-KEY": KEY})
    assert got.status_code == 200 and got.headers["content-encoding"] == "gzip"
    assert got.headers["content-length"] == str(len(bomb)) == str(len(p.seen.answers[-1][2]))
    data = report(p, tmp_path)
    assert [k for k in data["_proxy"]["unchecked"] if "CONFORMANCE_MAX_RESPONSE_BYTES" in k]
    assert data["presentations.themes.page-shape"]["status"] == "skipped"


def test_a_callers_body_over_the_cap_is_not_forwarded(tmp_path: Path) -> None:
    p = proxied(tmp_path, limits=Limits(max_response_bytes=1000))
    got = p.send("POST", "/v1.0/generations", headers={"X-API-KEY": KEY}, json={**GOOD_BODY, "inputText": "x" * 5000})
    assert got.status_code == 413 and got.headers["x-conformance-proxy"] == "1"
    assert not p.seen.answers


# -- the command: a real proxy in front of `conformance serve`, stopped by a signal ----------------


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}


@contextmanager
def _started(args: list[str], last: str, env: dict[str, str] | None = None,
             ) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """``conformance ARGS``, yielded once it printed a line starting with ``last``; killed if it
    never does (the watchdog), interrupted and reaped at the end."""
    proc = subprocess.Popen([sys.executable, "-m", "conformance", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=_env() | (env or {}))
    watchdog = threading.Timer(_SECONDS, proc.kill)
    watchdog.start()
    try:
        lines: list[str] = []
        assert proc.stdout is not None
        while not any(line.startswith(last) for line in lines):
            line = proc.stdout.readline()
            if not line:
                raise AssertionError(f"{args[0]} ended early: {proc.wait(_SECONDS)} {proc.stderr.read()}")
            lines.append(line.rstrip("\n"))
        watchdog.cancel()
        yield proc, lines
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(_SECONDS)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(_SECONDS)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


def _value(lines: list[str], suffix: str) -> str:
    return next(line.split("=", 1)[1].strip("'") for line in lines if line.startswith("export ")
                and line.split("=", 1)[0].endswith(suffix))


def _session(tmp_path: Path, fault: str | None, stop: signal.Signals, again: signal.Signals | None = None,
             ) -> tuple[int, Path]:
    """A proxy session through the command: two requests, then ``stop``; its exit status and report dir.
    ``again``: a second signal while the report is being written (the proxy pauses where it starts
    writing, the test hook ``CONFORMANCE_TEST_PAUSE_AT``, and gets it there)."""
    served = ["serve", SERVICE, "--port", "0", *(["--fault", fault] if fault else [])]
    out = tmp_path / f"proxy-{fault or 'clean'}"
    pause = {"CONFORMANCE_TEST_PAUSE_AT": "proxy-report"} if again else {}
    with _started(served, "export CONFORMANCE_ALLOW=") as (_serve, lines):
        upstream = _value(lines, "_BASE_URL")
        command = ["proxy", SERVICE, "--upstream", upstream, "--port", "0", "--report-dir", str(out), "--record"]
        with _started(command, "export ", pause) as (proxy, proxy_lines):
            base = _value(proxy_lines, "_BASE_URL")
            with httpx.Client(base_url=base, timeout=_SECONDS, trust_env=False) as client:
                assert client.get("/v1.0/themes", headers={"X-API-KEY": KEY}).status_code == 200
                assert client.post("/v1.0/generations", headers={"X-API-KEY": KEY},
                                   json={**GOOD_BODY, "numCards": 150}).status_code == 400
            proxy.send_signal(stop)
            if again:
                watchdog = threading.Timer(_SECONDS, proxy.kill)
                watchdog.start()
                assert proxy.stderr is not None
                while "paused at proxy-report" not in (line := proxy.stderr.readline()):
                    assert line, f"the proxy ended before its report: {proxy.poll()}"
                watchdog.cancel()
                assert not (out / "summary.json").exists()
                proxy.send_signal(again)
            code = proxy.wait(_SECONDS)
    return code, out


def test_the_command_writes_a_run_on_sigterm_and_its_status_is_the_verdict(tmp_path: Path) -> None:
    # A second signal while the report is written is deferred: the report is whole, the status
    # still the verdict (a third would end it at once with 130/143, as a run's).
    code, out = _session(tmp_path, None, signal.SIGTERM, again=signal.SIGINT)
    assert code == 0 and {f.name for f in out.iterdir()} >= {"summary.json", "triage.md", "junit.xml"}
    data = json.loads((out / "summary.json").read_text())
    service = data["services"][SERVICE]
    # How a session ends, not an interruption (readers take an interrupted run for no verdict).
    assert data["target"] == "proxy" and data["interrupted"] is None and service["proxy"]["stopped_by"] == "SIGTERM"
    assert service["proxy"]["exchanges"] == 2 and service["proxy"]["caller_mistakes_total"] == 1
    for path in out.rglob("*"):
        assert not path.is_file() or KEY not in path.read_text(encoding="utf-8"), path

    code, faulty = _session(tmp_path, "theme-items-without-id", signal.SIGINT)
    assert code == 1

    # The proxy's sessions triage against a run's summary and against each other.
    run_dir = tmp_path / "run"
    # The run and the triage in this process: what they answer is tested, not how a process starts.
    run = run_isolated(("run", "--service", SERVICE, "--no-allure", "--report-dir", str(run_dir),
                        "-k", "page-shape or rate-limit"))
    assert run.returncode == 0, run.stdout + run.stderr
    for current, status, named in ((out, 0, None), (faulty, 1, "presentations.themes.page-shape")):
        triage = run_isolated(("triage", str(run_dir), str(current)))
        assert triage.returncode == status, triage.stdout + triage.stderr
        if named:
            assert named in triage.stdout.split("New failures")[1]


# -- the caller's parameters and the operation a path is, on another contract (no upstream needed) -----


@pytest.mark.parametrize(("query", "found"), [
    ([("limit", "50")], []),
    ([("limit", "150")], [("limit", "query.limit", ["marketplace.paging.limit-range"])]),
    ([("limit", "fifty")], [("type", "query.limit", ["marketplace.types.integer"])]),
    ([("offset", "12001")], [("limit", "query.offset", ["marketplace.paging.offset-max"])]),
])
def test_query_parameters_are_held_to_their_schemas(query: list[tuple[str, str]],
                                                     found: list[tuple[str, str, list[str]]]) -> None:
    from conformance.proxy.caller import caller_findings
    from conformance.proxy.findings import RuleIndex
    from conformance.proxy.operations import OperationIndex
    from conformance.transport.model import Request

    contract = load_contract("marketplace")
    matched = OperationIndex(contract).match("GET", "/v3/application/listings")
    assert matched is not None and matched.operation == "GET /listings"
    request = Request("GET", "/v3/application/listings", query=query)
    got = [(f.kind, f.where, f.rules) for f in caller_findings(contract, RuleIndex(contract), matched.operation,
                                                                request, matched.path_values) if f.kind != "auth"]
    assert got == found


def test_a_literal_path_segment_wins_over_a_template() -> None:
    from conformance.proxy.operations import OperationIndex

    index = OperationIndex(load_contract(SERVICE))
    assert index.match("POST", "/v1.0/generations/from-template").operation == "POST /generations/from-template"
    got = index.match("GET", "/v1.0/generations/gen_1")
    assert got is not None and got.operation == "GET /generations/{generationId}"
    assert got.path_values == {"generationId": "gen_1"}
    assert index.match("GET", "/generations/gen_1") is None  # without the server prefix: not this contract's


# -- a vendor's published client through a served proxy (tests/clients: gamma-app-mcp) -----------------


@pytest.mark.parametrize("fault", [None, "theme-items-without-id"])
def test_the_published_client_through_the_proxy(tmp_path: Path, fault: str | None) -> None:
    gamma = pytest.importorskip("gamma_app_mcp.client")
    from conformance.simulators.base import WallClock

    sim = create_simulator(SERVICE, WallClock(rate=1000.0))  # generations finish within a few polls
    if fault:
        sim = fault_decorator(SERVICE, fault)(sim)
    limits = Limits()
    forwarder = Forwarder("http://127.0.0.1:8", limits, transport=httpx.ASGITransport(SimulatorApp(sim)))
    session = ProxySession(load_contract(SERVICE), forwarder, limits)
    with _serving(session) as url:
        api = gamma.GammaClient(api_key=KEY, base_url=url, timeout=_SECONDS)
        try:
            job = api.generate("A short talk on tide pools", text_mode="generate", num_cards=3, export_as="pdf")
            for _ in range(200):
                if api.get_status(job["generationId"])["status"] != "pending":
                    break
            assert api.list_themes(limit=2)["data"] and api.list_folders()["data"]
        finally:
            api.session.close()
    rules = report(session, tmp_path)
    assert not rules["_proxy"]["caller_mistakes"], rules["_proxy"]["caller_mistakes"]
    assert not rules["_proxy"]["unknown_operations"] and not rules["_proxy"]["harness_errors"]
    assert rules["presentations.folders.page-shape"]["status"] == "passed"
    assert rules["presentations.themes.page-shape"]["status"] == ("failed" if fault else "passed")
    assert session.tally.vendor_failed() is bool(fault)



@pytest.mark.parametrize("upstream", ["ftp://example.test", "not a url", "http://[::1", "http://u:secret@127.0.0.1:9"])
def test_a_bad_upstream_is_one_line_and_exit_2(upstream: str, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main

    assert main(["proxy", SERVICE, "--upstream", upstream, "--port", "0", "--report-dir", "/nonexistent"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("conformance: error: --upstream") and "secret" not in err[0]


def test_an_unreachable_upstream_is_the_proxys_502_and_judges_nothing(tmp_path: Path) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    p = proxied(tmp_path)
    transport = httpx.MockTransport(refuse)
    p.session.forwarder = Forwarder("http://127.0.0.1:8", Limits(), transport=transport)
    _TRANSPORTS[id(p.session.forwarder)] = (transport, Limits())
    got = p.send("GET", "/v1.0/themes", headers={"X-API-KEY": KEY})
    assert got.status_code == 502 and got.headers["x-conformance-proxy"] == "1"
    data = report(p, tmp_path)
    assert [k for k in data["_proxy"]["unchecked"] if "ConnectError" in k]
    assert data["presentations.themes.page-shape"]["skip_kind"] == "not-exercised"
    assert not p.session.tally.vendor_failed()


def test_a_callers_body_nested_past_the_bound_is_forwarded_and_not_checked(tmp_path: Path) -> None:
    p = proxied(tmp_path)
    deep = '{"inputText": ' + "[" * 5000 + "]" * 5000 + ', "textMode": "generate"}'
    got = p.send("POST", "/v1.0/generations", headers={"X-API-KEY": KEY, "content-type": "application/json"},
                 content=deep.encode())
    assert got.content == p.seen.answers[-1][2]
    data = report(p, tmp_path)
    assert [k for k in data["_proxy"]["unchecked"] if "CONFORMANCE_MAX_JSON_DEPTH" in k]
    assert not data["_proxy"]["harness_errors"] and not data["_proxy"]["caller_mistakes"]


def test_a_callers_compressed_body_is_forwarded_as_sent_and_not_inflated(tmp_path: Path) -> None:
    bomb = gzip.compress(b" " * 5_000_000)  # 5 MB of JSON whitespace in about 5 KB
    p = proxied(tmp_path, limits=Limits(max_response_bytes=50_000))
    got = p.send("POST", "/v1.0/generations", headers={"X-API-KEY": KEY, "content-type": "application/json",
                                                        "content-encoding": "gzip"}, content=bomb)
    assert got.content == p.seen.answers[-1][2]  # the upstream's answer to it, whatever it is
    data = report(p, tmp_path)
    assert [k for k in data["_proxy"]["unchecked"] if "Content-Encoding: gzip: not decoded" in k]
    assert not data["_proxy"]["caller_mistakes"] and not data["_proxy"]["harness_errors"]


def test_a_caller_that_never_finishes_its_body_gets_a_408(tmp_path: Path) -> None:
    p = proxied(tmp_path, limits=Limits(request_seconds=0.2))
    sent: list[dict[str, Any]] = []

    async def never() -> dict[str, Any]:
        await asyncio.Event().wait()  # the rest of the body never comes
        raise AssertionError

    async def keep(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/v1.0/generations", "raw_path": b"/v1.0/generations",
             "query_string": b"", "headers": [(b"x-api-key", KEY.encode())]}
    asyncio.run(ProxyApp(p.session)(scope, never, keep))
    assert sent[0]["status"] == 408 and not p.seen.answers


def test_a_body_that_is_not_json_names_the_schema_not_the_operations_error_rules(tmp_path: Path) -> None:
    p = proxied(tmp_path)
    p.send("POST", "/v1.0/generations", headers={"X-API-KEY": KEY, "content-type": "application/json"},
           content=b"{not json")
    p.send("POST", "/v1.0/generations", headers={"X-API-KEY": KEY, "content-type": "text/plain"},
           content=json.dumps(GOOD_BODY).encode())
    p.send("POST", "/v1.0/generations", headers={"X-API-KEY": KEY}, json={**GOOD_BODY, "inputText": "a" * 400_001})
    first, second, third = report(p, tmp_path)["_proxy"]["caller_mistakes"]
    assert (first["rules"], first["message"]) == ([], "the body is not JSON")
    assert first["pointer"] == "#/paths/~1generations/post/requestBody/content/application~1json/schema"
    assert (second["rules"], second["pointer"]) == ([], "#/paths/~1generations/post/requestBody/content")
    # jsonschema quotes the 400,001 characters: the finding keeps where and why.
    assert third["where"] == "body.inputText" and "(400" in third["message"] and len(third["message"]) < 400


@pytest.mark.parametrize("fault", [None, "missing", "not-a-number"])
def test_documented_response_headers_no_rule_probes_are_held_by_pointer(tmp_path: Path, fault: str | None) -> None:
    # POST /generations/from-template documents the rate-limit headers; the catalogue's header rule
    # does not probe it, so a broken header names the response's header by pointer.
    def change(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start" and fault:
            kept = [(k, v) for k, v in message["headers"] if k != b"x-ratelimit-remaining-daily"]
            wrong = [(b"x-ratelimit-remaining-daily", b"plenty")] if fault == "not-a-number" else []
            message["headers"] = kept + wrong

    p = proxied(tmp_path, change=change)
    got = p.send("POST", "/v1.0/generations/from-template", headers={"X-API-KEY": KEY},
                 json={"prompt": "a launch", "gammaId": "g_template_1"})
    assert got.status_code == 200
    loose = report(p, tmp_path)["_proxy"]["vendor_unattributed"]
    assert p.session.tally.vendor_failed() is bool(fault)
    if fault:
        (entry,) = loose
        assert entry["pointer"] == "#/paths/~1generations~1from-template/post/responses/200/headers/" \
                                   "x-ratelimit-remaining-daily"
        assert ("no x-ratelimit-remaining-daily" if fault == "missing" else "'plenty' does not match") \
            in entry["examples"][0]


def test_a_page_saying_more_without_its_cursor_fails_the_shape_rule(tmp_path: Path) -> None:
    # The gap next-cursor-on-last-page is about the last page (the schema allows null there); a
    # page saying hasMore without the cursor to send breaks the documented shape.
    for fault, status in ((None, "passed"), ("next-dropped:folders.paging-walk", "failed")):
        p = proxied(tmp_path, fault)
        p.send("GET", "/v1.0/folders", headers={"X-API-KEY": KEY})
        rule = report(p, tmp_path)["presentations.folders.page-shape"]
        assert rule["status"] == status
        if fault:
            assert "'nextCursor' is a required property" in rule["message"]


def test_a_vendor_finding_against_a_rule_resting_on_a_gap_is_observed() -> None:
    from conformance.proxy.findings import VENDOR, Finding, RuleIndex

    contract = load_contract("outreach")
    rule = contract.rule("outreach.warmup.enable-returns-job")
    found = RuleIndex(contract).attribute(Finding(VENDOR, "schema", str(rule.operation), None, "", "m"), [rule])
    assert (found.verdict, found.gap, found.rules) == ("observed", "outreach.gap.warmup-job", [rule.id])


# -- the hostile suite's upstreams through the proxy (tests/hostile/server.py) --------------------------

# Modes that give no whole answer within the bounds: the caller gets the proxy's own 502, unchecked.
_NO_ANSWER = {"big-body", "broken-chunking", "endless-body", "gzip-gzip-endless", "hang", "reset", "slow-connect",
              "stall", "trickle", "trickle-body", "trickle-headers"}


@pytest.mark.parametrize("mode", HOSTILE_MODES)
def test_a_hostile_upstream_is_bounded_and_what_it_sent_passes_through(tmp_path: Path, mode: str) -> None:
    # A mode that never answers ends at the 1 s bound; one that answers gets a bound no busy machine
    # reaches (decoding a bomb up to the cap on two loaded cores took over 1 s), so no verdict rests on speed.
    limits = Limits(request_seconds=1.0 if mode in _NO_ANSWER else 30.0, max_response_bytes=1 << 20)

    async def through(url: str) -> tuple[int, httpx.Headers, int, ProxySession]:
        session = ProxySession(load_contract(SERVICE), Forwarder(url, limits), limits)
        transport = httpx.ASGITransport(ProxyApp(session))  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:9") as client:
            request = client.build_request("GET", "/v1.0/themes", headers={"X-API-KEY": KEY})
            response = await client.send(request, stream=True)
            size = sum([len(chunk) async for chunk in response.aiter_raw()])  # as sent: a bomb stays small
            await response.aclose()
        await session.forwarder.aclose()
        return response.status_code, response.headers, size, session

    with hostile_server(mode) as url:
        status, headers, size, session = asyncio.run(through(url))
    assert not session.harness_errors
    if mode in _NO_ANSWER:
        assert status == 502 and headers["x-conformance-proxy"] == "1"
        assert [k for k in session.tally.unchecked if "gave no answer" in k]
        assert session.tally.exchanges == 0  # nothing was checked, nothing judged
    else:
        assert "x-conformance-proxy" not in headers and session.tally.exchanges == 1
        assert size <= limits.max_response_bytes
    if "bomb" in mode:
        assert status == 200 and headers["content-encoding"].startswith("gzip")
        assert [k for k in session.tally.unchecked if "CONFORMANCE_MAX_RESPONSE_BYTES" in k]
    # One clear verdict per mode, by rule or pointer, as a run gives one per rule (the hostile server
    # sends no rate-limit headers, which "every response (success and error)" carries).
    tally = session.tally
    failed = {r for r, t in tally.rules.items() if t.failed} | {p for p, v in tally.unattributed if v == "failed"}
    assert failed == _FAILED.get(mode, set()), failed


_RATE, _SHAPE = "presentations.rate-limit.headers", "presentations.themes.page-shape"
_FAILED = {"429-retry-after": {_RATE}, "redirect-loop": {_RATE},  # 429 is documented; a 302 is observed
           **{m: {_RATE, "#/paths/~1themes/get/responses"} for m in ("500-storm", "503-storm")},
           **{m: {_RATE, _SHAPE} for m in ("deep-json", "malformed-json", "non-utf8", "wide-json")},
           **{m: {_RATE, "#/paths/~1themes/get/responses/200/content"} for m in ("html-200", "wrong-content-type")}}


def test_hostile_text_from_either_side_reaches_no_file_raw(tmp_path: Path) -> None:
    # tests/hostile/test_target_text.py's terminal and Markdown attacks, through the proxy: from the
    # upstream (a body before its JSON, a header) and from the caller (a member's value, a path).
    from tests.hostile.test_target_text import BODY, HEADER, RAW, _strings

    def hostile(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            message["headers"] = [*message["headers"], (b"x-hostile", HEADER.encode("latin-1"))]
        elif message["type"] == "http.response.body" and b"themes" not in message.get("body", b""):
            message["body"] = BODY.encode() + message["body"]

    p = proxied(tmp_path, change=hostile, record=True)
    p.send("GET", "/v1.0/folders", headers={"X-API-KEY": KEY})  # the upstream's: not JSON
    p.send("POST", "/v1.0/generations", headers={"X-API-KEY": KEY}, json={**GOOD_BODY, "textMode": BODY})
    p.send("GET", "/v1.0/" + quote(BODY, safe=""), headers={"X-API-KEY": KEY})  # a path no operation has
    p.send("GET", "/v1.0/generations/" + quote(BODY, safe=""), headers={"X-API-KEY": KEY})
    data = report(p, tmp_path)
    assert data["_proxy"]["caller_mistakes"] and data["_proxy"]["vendor_unattributed"]
    assert data["_proxy"]["unknown_operations"]
    leaks = []
    for path in sorted(f for f in tmp_path.rglob("*") if f.is_file() and "cassettes" not in f.parts):
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":  # as shown once parsed, where JSON's own escapes are undone
            text += "\n" + "\n".join(_strings(json.loads(text)))
        leaks += [f"{path.name}: {m.group()!r} at {m.start()}" for m in RAW.finditer(text)][:3]
    assert not leaks, leaks
    triage = (tmp_path / "triage.md").read_text()
    assert r"\x1b]52;c;cHduZWQ=\x07" in triage  # shown, escaped
    # The caller's text stays inside code spans: no heading of its own in the rendered page.
    assert not [line for line in triage.splitlines() if line.startswith("# All rules passed")]


def test_the_shodan_client_through_the_proxy_keeps_its_query_key_out_of_every_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shodan = pytest.importorskip("shodan")
    from conformance.services.scanning.simulator import ScanningSimulator
    from conformance.simulators.base import WallClock

    # The library's paths start with its own name: the path setting `conformance proxy --option
    # product=shodan` sets (the same variable as `run --option`).
    monkeypatch.setenv("CONFORMANCE_SCANNING_PRODUCT", "shodan")
    sim = ScanningSimulator(WallClock(), product="shodan")
    key = ScanningSimulator.credentials["API_KEY"]
    limits = Limits()
    forwarder = Forwarder("http://127.0.0.1:8", limits, transport=httpx.ASGITransport(SimulatorApp(sim)))
    session = ProxySession(load_contract("scanning"), forwarder, limits, record_to=tmp_path / "cassettes")
    with _serving(session) as url:
        api = shodan.Shodan(key)
        api.base_url = url
        api.api_rate_limit = 0
        assert api.host("192.0.2.10")["ip_str"] == "192.0.2.10"
        assert api.info()
    data = report(session, tmp_path)
    assert session.tally.exchanges == 2 and not data["_proxy"]["unknown_operations"]
    assert not data["_proxy"]["caller_mistakes"] and not session.tally.vendor_failed()
    for path in tmp_path.rglob("*"):
        assert not path.is_file() or key not in path.read_text(encoding="utf-8"), path


@pytest.mark.parametrize("option", ["nonsense=1", "product"])
def test_a_bad_path_option_is_one_line_and_exit_2(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main

    code = main(["proxy", "scanning", "--upstream", "http://127.0.0.1:9", "--port", "0", "--option", option,
                 "--report-dir", "/nonexistent"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and ("--option" in err[0] or "path setting" in err[0])


def test_a_check_that_raises_is_a_harness_error_not_the_callers_problem(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import conformance.proxy.app as app
    from conformance.cli.proxy import _write

    def broken(*args: object) -> None:
        raise TypeError("a bug in a check")

    p = proxied(tmp_path)
    p.send("GET", "/v1.0/folders", headers={"X-API-KEY": KEY})
    assert _write(p.session, tmp_path / "clean", None) == 0
    monkeypatch.setattr(app, "vendor_findings", broken)
    got = p.send("GET", "/v1.0/themes", headers={"X-API-KEY": KEY})
    assert got.status_code == 200 and got.content == p.seen.answers[-1][2]
    assert p.session.harness_errors == ["GET /v1.0/themes: TypeError: a bug in a check"]
    assert _write(p.session, tmp_path / "broken", None) == 2
    assert "harness error" in (tmp_path / "broken" / "triage.md").read_text()


def test_a_session_that_judged_nothing_exits_3_as_a_run_that_checked_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli.proxy import _write

    p = proxied(tmp_path)
    assert _write(p.session, tmp_path / "none", "SIGTERM") == 3  # no traffic at all
    p.send("GET", "/v1.0/slides", headers={"X-API-KEY": KEY})  # an operation the contract does not know
    assert _write(p.session, tmp_path / "unknown", "SIGTERM") == 3
    assert "no exchange passed or failed any rule (1 exchanges): incomplete, exit 3" in capsys.readouterr().err
    p.send("GET", "/v1.0/themes", headers={"X-API-KEY": KEY})
    assert _write(p.session, tmp_path / "judged", "SIGTERM") == 0
    assert json.loads((tmp_path / "none" / "summary.json").read_text())["interrupted"] is None


@pytest.mark.parametrize("command", ["proxy --recheck", "run --target replay"])
@pytest.mark.parametrize(("fault", "status"), [(None, 0), ("theme-items-without-id", 1)])
def test_a_recorded_session_rechecks_to_the_same_verdict_without_the_upstream(
        tmp_path: Path, fault: str | None, status: int, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.harness.inprocess import run_main

    p = proxied(tmp_path / "live", fault, record=True)
    p.send("GET", "/v1.0/themes", headers={"X-API-KEY": KEY})
    p.send("GET", "/v1.0/folders", params={"after": "folder-02"}, headers={"X-API-KEY": KEY})
    p.send("POST", "/v1.0/generations", headers={"X-API-KEY": KEY}, json={**GOOD_BODY, "numCards": 150})
    live = report(p, tmp_path / "live")
    # Both read the session's cassettes: `run --target replay` given the session's directory (or its
    # cassettes/) re-judges its traffic as `proxy --recheck` does, not a run's rules (none of whose
    # requests the traffic answers).
    args = (["proxy", SERVICE, "--recheck", str(tmp_path / "live" / "cassettes")] if command == "proxy --recheck"
            else ["run", "--target", "replay", "--service", SERVICE, "--cassette-dir", str(tmp_path / "live")])
    done = run_main([*args, "--report-dir", str(tmp_path / "again")], capsys)
    assert done.returncode == status, done.stderr
    again = json.loads((tmp_path / "again" / "summary.json").read_text())["services"][SERVICE]
    assert {r["id"]: (r["status"], r["exchanges"]) for r in again["rules"]} == {
        k: (v["status"], v["exchanges"]) for k, v in live.items() if k != "_proxy"}
    assert [m["rules"] for m in again["proxy"]["caller_mistakes"]] == [["presentations.generate.num-cards-range"]]


def test_replaying_a_proxy_session_names_its_service(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.harness.inprocess import run_main

    p = proxied(tmp_path, record=True)
    p.send("GET", "/v1.0/themes", headers={"X-API-KEY": KEY})
    done = run_main(["run", "--target", "replay", "--service", SERVICE, "--service", "scanning",
                     "--cassette-dir", str(tmp_path / "cassettes")], capsys)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "one --service ID" in done.stderr


def test_an_upstream_path_prefix_goes_before_every_forwarded_path(tmp_path: Path) -> None:
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        return httpx.Response(404, json={"message": "no"})

    p = proxied(tmp_path)
    transport = httpx.MockTransport(answer)
    p.session.forwarder = Forwarder("http://127.0.0.1:8/api/", Limits(), transport=transport)
    _TRANSPORTS[id(p.session.forwarder)] = (transport, Limits())
    assert p.send("GET", "/v1.0/themes?after=a%20b", headers={"X-API-KEY": KEY}).status_code == 404
    assert seen == ["http://127.0.0.1:8/api/v1.0/themes?after=a%20b"]
    assert Forwarder("http://127.0.0.1:8/api/", Limits()).url_for("/v1.0/themes") == "http://127.0.0.1:8/api/v1.0/themes"


@pytest.mark.parametrize("link", ["summary.json", "cassettes"])
def test_a_report_dir_holding_a_link_where_the_proxy_writes_is_refused(
        tmp_path: Path, link: str, capsys: pytest.CaptureFixture[str]) -> None:
    from conformance.cli import main

    out = tmp_path / "out"
    out.mkdir()
    (out / link).symlink_to(tmp_path / "elsewhere")
    assert main(["proxy", SERVICE, "--upstream", "http://127.0.0.1:9", "--port", "0", "--report-dir", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "symbolic link" in err[0] and not (tmp_path / "elsewhere").exists()

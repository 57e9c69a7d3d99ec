"""Tests every service gets without writing them: parametrised over every contract folder.

* a contract folder has a service package and the reverse;
* the package is uniform (SERVICE, simulator, faults breaking real rules, distinct names);
* over real HTTP the suite gives the verdicts it gives in process (clock stepped by the
  harness's own waits, so no verdict depends on how fast requests travel);
* no credential of the target reaches any file or output of a run (record, report, failures;
  one recorded run of every service, searched per service);
* the simulator answers hostile input with 4xx, never 5xx;
* faults caught by their rule and allowed variants passing: test_kill_matrix.py (one matrix run).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.contract import load_contract
from conformance.contract.loader import available_services, schemas_dir
from conformance.errors import SkipKind
from conformance.runner import collect_cases, run_case
from conformance.services import bound_faults, create_simulator, faults_for, load_service, service_packages, target_for
from conformance.settings import ALLOWANCES, Limits, RunSettings, env_name
from conformance.simulators.base import Clock, WallClock
from conformance.transport.model import Request
from conformance.transport.scrub import forms_of
from tests.conftest import serve

SERVICES = available_services()
# Our own served simulator has credits to spare: no spend budget.
UNBUDGETED = Limits(spend_budget=1_000_000)
RUN_TIMEOUT = 900  # one recorded run of every service, on a busy machine


def test_contract_folders_and_service_packages_match() -> None:
    folders = {p.name for p in schemas_dir().iterdir() if (p / "rules.yaml").is_file()}
    packages = set(service_packages())
    assert folders - packages == set(), f"contracts without a service package: {sorted(folders - packages)}"
    assert packages - folders == set(), f"service packages without a contract: {sorted(packages - folders)}"


@pytest.mark.parametrize("service", SERVICES)
def test_service_package_is_uniform(service: str) -> None:
    package = load_service(service)
    contract = load_contract(service)
    rule_ids = {r.id for r in contract.rules}
    assert package.id == service
    assert package.credentials(), "the simulator seeds no credentials"
    for fault in bound_faults(service, contract):  # rules.yaml binds each hand-written fault
        assert fault.breaks in rule_ids, f"fault {fault.name} breaks unknown rule {fault.breaks}"
    names = [f.name for f in package.faults] + [v.name for v in package.variants]
    assert len(names) == len(set(names)), "fault and variant names must be distinct"


def _verdicts(service: str, settings: RunSettings, **kwargs: Any) -> dict[str, str]:
    contract = load_contract(service)
    target = target_for(contract, settings, **kwargs)
    out = {}
    for case in collect_cases(contract):
        outcome = run_case(case, target)
        # A rule the target cannot check (e.g. a 90-day wait on a shared server) is its own verdict.
        kind = outcome.skip_kind
        out[case.id] = "not-checkable" if kind == SkipKind.NOT_ON_TARGET else outcome.status
    return out


@pytest.mark.slow
@pytest.mark.parametrize("service", SERVICES)
def test_http_verdicts_equal_in_process(service: str, served: Callable[..., Any],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    in_process = _verdicts(service, RunSettings(target="sim"))
    clock = Clock()
    with served(service, clock=clock) as (url, sim):
        monkeypatch.setenv(env_name(service, "BASE_URL"), url)
        for name, value in sim.credentials.items():
            monkeypatch.setenv(env_name(service, name), value)
        over_http = _verdicts(service, RunSettings(target="http", allow=frozenset(ALLOWANCES), limits=UNBUDGETED),
                              wait=clock.advance)
    differ = {r: (over_http[r], in_process[r]) for r in in_process
              if over_http.get(r) != in_process[r] and over_http.get(r) != "not-checkable"}
    assert not differ, f"(over http, in process): {differ}"
    assert "not-checkable" not in in_process.values()


@dataclass
class RecordedRun:
    root: Path
    proc: subprocess.CompletedProcess[str]
    credentials: dict[str, dict[str, str]]  # service -> the credentials its served simulator seeds


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory: pytest.TempPathFactory) -> RecordedRun:
    """One `conformance run --record` of every service over HTTP, each served behind its first fault
    (a fault makes rules fail, so the report carries failure attachments and curl lines too). One
    run, not one per service: the start-up and the report are paid once; each service's test then
    searches everything the run wrote for its own credentials."""
    root = tmp_path_factory.mktemp("recorded")
    env = {**os.environ, "CONFORMANCE_TIME_SCALE": "200", "CONFORMANCE_SPEND_BUDGET": str(UNBUDGETED.spend_budget)}
    credentials: dict[str, dict[str, str]] = {}
    with ExitStack() as stack:
        for service in SERVICES:
            sim = faults_for(service)[0].apply(create_simulator(service, WallClock(rate=200)))
            url = stack.enter_context(serve(sim))
            credentials[service] = dict(sim.credentials)
            env.update({env_name(service, "BASE_URL"): url,
                        **{env_name(service, k): v for k, v in credentials[service].items()}})
        proc = subprocess.run(
            [sys.executable, "-m", "conformance", "run", *[a for s in SERVICES for a in ("--service", s)],
             "--target", "http", "--record", "--allow", "spend", "--allow", "write",
             "--report-dir", str(root / "reports"), "--cassette-dir", str(root / "cassettes")],
            env=env, cwd=root, capture_output=True, text=True, timeout=RUN_TIMEOUT,
        )
    return RecordedRun(root, proc, credentials)


@pytest.mark.slow
@pytest.mark.parametrize("service", SERVICES)
def test_no_credential_reaches_any_artefact(service: str, recorded_run: RecordedRun) -> None:
    proc, root, creds = recorded_run.proc, recorded_run.root, recorded_run.credentials[service]
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    secret_names = {c["name"] for c in load_contract(service).settings["credentials"] if c.get("secret", True)}
    secrets = [v for k, v in creds.items() if k in secret_names]
    assert secrets, "the simulator seeds no secret credential"
    written = [p for p in root.rglob("*") if p.is_file()]
    assert list((root / "cassettes" / service).rglob("*.yaml")), f"no cassette written for {service}"
    summary = json.loads((root / "reports" / "summary.json").read_text(encoding="utf-8"))
    if any(r["status"] == "failed" for r in summary["services"][service]["rules"]):
        results = [json.loads(p.read_text(encoding="utf-8"))
                   for p in (root / "reports" / "allure-results").glob("*-result.json")]
        assert any(r.get("attachments") for r in results if r["status"] == "failed"
                   and {"name": "epic", "value": service} in r.get("labels", [])), f"{service}: no failure attachment"
    # Every form a value takes in text: raw, URL-encoded, JSON-escaped, base64.
    forms = {form for secret in secrets for form in forms_of(secret) if len(form) >= 8}
    contents = {path: path.read_bytes() for path in written}
    for form in forms:
        assert form not in proc.stdout and form not in proc.stderr, f"{service}: a credential in the output"
        for path, data in contents.items():
            assert form.encode() not in data, f"a credential ({form[:4]}...) leaked into {path.relative_to(root)}"


_HOSTILE_BODIES = [
    (b"{oops", "application/json"),
    (b"[1, 2, 3]", "application/json"),
    (b"\xff\xfe\xfd", "application/json"),
    (b"[" * 5000 + b"]" * 5000, "application/json"),
    (b"%%%=&&&=", "application/x-www-form-urlencoded"),
    (b"x" * (10 * 1024 * 1024), "application/json"),
]


def _authenticated(service: str, request: Request) -> Request:
    """The seeded key where the contract's plain key schemes put it (no token needed)."""
    from conformance.auth.variants import render, scheme_location

    contract = load_contract(service)
    creds = load_service(service).credentials()
    for _, scheme in contract.security_for(None):
        if scheme.get("type") == "apiKey":
            where, name = scheme_location(scheme)
            value = render(scheme["x-credential"], lambda n: creds.get(n, "x"))
            if where == "header":
                request.headers[name.lower()] = value
            else:
                request.query.append((name, value))
    return request


@pytest.mark.parametrize("service", SERVICES)
def test_simulator_answers_hostile_input_with_4xx(service: str) -> None:
    contract = load_contract(service)
    sim = create_simulator(service)
    for operation in contract.operations():
        method, template = operation.split(" ", 1)
        path = contract.prefix_for(operation) + re.sub(r"\{[^}]+\}", "x", template)
        if method in ("POST", "PUT", "PATCH"):
            for body, ctype in _HOSTILE_BODIES:
                request = _authenticated(service, Request(method, path, [], {"content-type": ctype}, body))
                status = sim.handle(request).status
                assert 400 <= status < 500, f"{operation} with body {body[:20]!r}: {status}"
        for odd in (path + "/%ff%fe", path + "/../..", path + "/" + "a" * 5000):
            status = sim.handle(_authenticated(service, Request(method, odd, [], {}, b""))).status
            assert status < 500, f"{method} {odd[:80]}: {status}"
        status = sim.handle(_authenticated(service, Request(method, path, [("\x00", "\xff" * 3)], {}, b""))).status
        assert status < 500, f"{operation} with an odd query: {status}"


def test_checks_neither_dispatch_on_rule_ids_nor_ask_target_names() -> None:
    """Behaviour comes from declared params and target capabilities, never from names."""
    import conformance

    root = Path(conformance.__file__).parent
    for path in [*root.glob("services/**/*.py"), *root.glob("checks/*.py"), *root.glob("auth/*.py")]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"rule(_id|\.id)\s*[!=]=", text), f"{path.name} branches on a rule id"
        assert not re.search(r"target\.name\s*[!=]=|\.name\s*==\s*\"(sim|http|replay)\"", text), (
            f"{path.name} asks the target's name instead of its capabilities")


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10 ** 40), max_value=10 ** 40)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@pytest.mark.parametrize("service", SERVICES)
def test_simulator_never_answers_500_to_fuzzed_requests(service: str) -> None:
    """A bounded fuzz (150 requests per service, fixed seed): any documented operation with odd
    path values, query pairs, headers and bodies (JSON of any shape and size of number, or raw
    bytes in any encoding) gets an answer below 500."""
    contract = load_contract(service)
    operations = contract.operations()
    sim = create_simulator(service)

    @settings(max_examples=150, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.sampled_from(operations), st.text(max_size=30), st.lists(st.tuples(st.text(max_size=10),
           st.text(max_size=30)), max_size=3), st.sampled_from(["application/json", "text/plain",
           "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""]),
           st.one_of(_JSON_VALUES.map(lambda v: json.dumps(v).encode()), st.binary(max_size=200)))
    def fuzz(operation: str, segment: str, query: list[tuple[str, str]], ctype: str, body: bytes) -> None:
        method, template = operation.split(" ", 1)
        path = contract.prefix_for(operation) + re.sub(r"\{[^}]+\}", quote(segment, safe="") or "x", template)
        headers = {"content-type": ctype} if ctype else {}
        request = _authenticated(service, Request(method, path, list(query), headers, body))
        status = sim.handle(request).status
        assert status < 500, f"{operation} {path!r} {query!r} {body[:60]!r}: {status}"

    fuzz()


@pytest.mark.slow
@pytest.mark.parametrize("service", SERVICES)
def test_live_target_without_allowances_is_sent_nothing_that_spends_or_writes(
        service: str, served: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    contract = load_contract(service)
    guarded = [op for op in contract.operations() if contract.effects(op)]
    patterns = [(op.split(" ", 1)[0], re.compile("^" + re.escape(contract.prefix_for(op)) + re.sub(
        r"\\\{[^}]+\\\}", "[^/]+", re.escape(op.split(" ", 1)[1])) + "$")) for op in guarded]
    seen: list[str] = []

    def spy(sim: Any) -> Any:
        from conformance.faults.base import FaultySimulator

        def before(request: Request) -> Request:
            seen.extend(f"{m} {request.path}" for m, rx in patterns if m == request.method and rx.match(request.path))
            return request

        return FaultySimulator(sim, before=before)

    clock = Clock()
    with served(service, clock=clock, decorate=spy) as (url, sim):
        monkeypatch.setenv(env_name(service, "BASE_URL"), url)
        for name, value in sim.credentials.items():
            monkeypatch.setenv(env_name(service, name), value)
        target = target_for(contract, RunSettings(target="http"), wait=clock.advance)
        outcomes = [run_case(case, target) for case in collect_cases(contract)]
    assert seen == [], f"sent without an allowance: {sorted(set(seen))}"
    if guarded:
        assert any(o.skip_kind == SkipKind.NEEDS_ALLOWANCE for o in outcomes)

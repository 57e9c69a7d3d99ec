"""The canary test: no credential, in any form, reaches any artefact of a run (issue 22, 3 and 4).

Each service's simulator is served over HTTP behind a wrapper that makes it hostile about secrets:

* the harness is configured with distinctive canary values in place of every secret credential
  (the wrapper maps them back to the simulator's seeded values and its answers forward again);
* every answer echoes each credential-bearing value the request carried (whole and without its
  scheme word) in response headers, in every encoding: base64 (both alphabets, with and without
  padding), URL-encoded (``quote``, ``quote_plus``), JSON-escaped. So ``KEY:SECRET``,
  ``PREFIX:ID:SECRET`` and ``Bearer <key>`` come back encoded whole, as from a careless server;
* the token endpoint (marketplace's OAuth 2.0) repeats each token it issues, in turn: in a header,
  under another member, in a BOM-prefixed body, in a list body, with trailing text, and in text
  no parser reads;
* a fault of the service makes rules fail, so reports carry failure attachments and curl lines.

One run (every service's selection, each service served behind its own wrapper) records cassettes
and writes its reports; then, for each service, every file written and the run's stdout and stderr
are searched for every canary, every value the simulator received that holds one (the
joined forms, as they really travelled) and every token issued, each in every encoding above.
The encodings are computed here, not taken from the scrubber under test.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus

import pytest

from conformance.contract import load_contract
from conformance.contract.loader import available_services
from conformance.services import create_simulator, faults_for
from conformance.settings import env_name
from conformance.simulators import Simulator
from conformance.simulators.base import WallClock
from conformance.transport.model import Request, Response
from tests.conftest import serve

RUN_TIMEOUT = 600  # one run of all eight selections, on a busy machine

# One selection per service, bounded, covering its auth style (and the fault's rule, added below):
# header key (presentations, affiliate), query key (scanning), bearer key (outreach, social),
# bearer PREFIX:ID:SECRET (contracts), KEY:SECRET header with an OAuth 2.0 bearer token
# (marketplace), an optional header credential (tokenrisk).
AUTH = "auth"
ALSO = {
    "marketplace": "oauth or shop-receipts",
    "tokenrisk": "tokens",
}
# Not marketplace's access-token-lifetime: it waits out the token's hour in real time (18 s at the
# served clock's rate, most of the run), and what it sends and is sent (a refresh grant, a token
# used) is what the refresh-grant and token-exchange rules already send, searched the same way.
WAITS_OUT = {"marketplace": "access-token-lifetime"}
# The services come from schemas/: a new one is never skipped, and runs its auth rules.
SERVICES = available_services()


def _own(service: str) -> str:
    return " or ".join([AUTH, *([ALSO[service]] if service in ALSO else [])])

# Every canary holds this text; found raw, or inside any base64 run at any alignment, it is a leak
# even where the exact joined value a test would look for is not known.
MARKER_TEXT = "Q7xZ"
_MARKER = re.compile(MARKER_TEXT.encode() + rb"[a-z]{3}")
_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/_-]{12,}")
TOKEN_MODES = ("header", "member", "bom", "list", "trailing", "unparsable")
_BOM = "\ufeff".encode()


def encodings(value: str) -> set[str]:
    raw = value.encode()
    b64, b64url = base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()
    return {value, b64, b64.rstrip("="), b64url, b64url.rstrip("="), quote(value, safe=""), quote(value),
            quote_plus(value), json.dumps(value)[1:-1]}


def _core(value: str) -> str:
    word, _, rest = value.partition(" ")
    return rest if rest and word in ("Bearer", "Basic") else value


class HostileCanarySim:
    """Wraps a (faulty) simulator: canaries in, canaries out, every credential echoed encoded,
    the token endpoint repeating what it issues. Records what it received and issued."""

    def __init__(self, inner: Simulator, canaries: dict[str, str], token_path: str | None) -> None:
        self._inner = inner
        self._to_seeded = canaries  # canary -> seeded
        self._to_canary = {seeded: canary for canary, seeded in canaries.items()}
        self._token_path = token_path
        self.received: set[str] = set()  # credential-bearing values as they travelled
        self.issued: dict[str, str] = {}  # token -> the hostile mode it was issued under
        self._answers = 0

    def _secret(self, value: str) -> bool:
        return any(c in value for c in self._to_seeded) or any(t in value for t in self.issued)

    def _swap(self, text: str, mapping: dict[str, str]) -> str:
        for old in sorted(mapping, key=len, reverse=True):
            text = text.replace(old, mapping[old])
        return text

    def handle(self, request: Request) -> Response:
        carried = [v for v in request.headers.values() if self._secret(v)]
        carried += [v for _, v in request.query if self._secret(v)]
        if b"=" in request.body:
            carried += [v for _, v in parse_qsl(request.body.decode("utf-8", "replace")) if self._secret(v)]
        self.received.update(carried)
        inner = Request(request.method, self._swap(request.path, self._to_seeded),
                        [(k, self._swap(v, self._to_seeded)) for k, v in request.query],
                        {k: self._swap(v, self._to_seeded) for k, v in request.headers.items()},
                        self._swap(request.body.decode("utf-8", "surrogateescape"), self._to_seeded)
                        .encode("utf-8", "surrogateescape"))
        response = self._inner.handle(inner)
        body = self._swap(response.body.decode("utf-8", "surrogateescape"), self._to_canary)
        headers = {k: self._swap(v, self._to_canary) for k, v in response.headers.items()}
        response = Response(response.status, headers, body.encode("utf-8", "surrogateescape"))
        if request.path == self._token_path and response.status == 200:
            response = self._hostile_token(response)
        for i, value in enumerate(dict.fromkeys(carried)):
            for j, form in enumerate(sorted(encodings(value) | encodings(_core(value)))):
                response.headers[f"x-echo-{i}-{j}"] = form
        return response

    def _hostile_token(self, response: Response) -> Response:
        mode = TOKEN_MODES[self._answers % len(TOKEN_MODES)]
        self._answers += 1
        payload = json.loads(response.body)
        token = payload["access_token"]
        self.issued.update({token: mode, payload.get("refresh_token") or token: mode})
        headers = dict(response.headers)
        if mode == "header":
            headers["x-issued"] = token
            return Response(200, headers, response.body)
        repeated = {**payload, "issued": token}
        text = json.dumps(repeated)
        body = {
            "member": text.encode(),
            "bom": _BOM + text.encode(),
            "list": json.dumps([repeated]).encode(),
            "trailing": text.encode() + f"\n<!-- issued {token} -->".encode(),
            "unparsable": "".join(f"{k}: {v}\n" for k, v in repeated.items()).encode() + b"{",
        }[mode]
        return Response(200, headers, body)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _canaries(service: str, seeded: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(credential name -> canary, canary -> seeded value). Credentials seeded with one value
    share a canary (marketplace's CLIENT_ID is its API_KEY)."""
    secret = [c["name"] for c in load_contract(service).settings["credentials"] if c.get("secret", True)]
    by_value: dict[str, str] = {}
    names: dict[str, str] = {}
    for i, name in enumerate(n for n in secret if seeded.get(n)):
        value = seeded[name]
        if value not in by_value:
            word = "Bearer " if value.startswith("Bearer ") else ""
            canary = f"cnry{service[:5]}{i}{MARKER_TEXT}{name.lower().replace('_', '')}"
            # A length a multiple of 3: base64 of a value joined after it then holds the rest
            # aligned, so a scrubber that replaces only the parts' own base64 leaves it readable.
            by_value[value] = word + canary + "x" * (-len(canary) % 3)
        names[name] = by_value[value]
    return names, {canary: seeded_value for seeded_value, canary in by_value.items()}


@dataclass
class CanaryRun:
    """One run of every service's selection, each service served behind its own hostile wrapper."""

    root: Path
    proc: subprocess.CompletedProcess[str]
    sims: dict[str, HostileCanarySim]
    names: dict[str, dict[str, str]]  # service -> credential name -> canary
    marker_leaks: set[tuple[str, str]] = field(default_factory=set)


def _selection() -> str:
    """Each service's own selection as one -k expression: the rules the eight one-service runs chose."""
    return " or ".join(f"({service} and ({_own(service)} or {faults_for(service)[0].breaks})"
                       + (f" and not {WAITS_OUT[service]})" if service in WAITS_OUT else ")")
                       for service in SERVICES)


def _serve_hostile(service: str, stack: ExitStack) -> tuple[str, HostileCanarySim]:
    contract = load_contract(service)
    schemes = contract.openapi.get("components", {}).get("securitySchemes") or {}
    token_path = next((str(f["tokenUrl"]) for s in schemes.values() for f in (s.get("flows") or {}).values()), None)
    inner = faults_for(service)[0].apply(create_simulator(service, WallClock(rate=200)))
    _, canaries = _canaries(service, dict(inner.credentials))
    sim = HostileCanarySim(inner, canaries, token_path)
    return stack.enter_context(serve(sim)), sim  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def canary_run(tmp_path_factory: pytest.TempPathFactory) -> CanaryRun:
    """One `conformance run` over every service (the start-up and the report paid once, not eight
    times); each service's test then searches everything the run wrote for its own values."""
    root = tmp_path_factory.mktemp("canaries")
    env = {**os.environ, "CONFORMANCE_TIME_SCALE": "200", "CONFORMANCE_SPEND_BUDGET": "1000000"}
    sims: dict[str, HostileCanarySim] = {}
    names: dict[str, dict[str, str]] = {}
    with ExitStack() as stack:
        for service in SERVICES:
            url, sims[service] = _serve_hostile(service, stack)
            names[service], _ = _canaries(service, dict(sims[service].credentials))
            env.update({env_name(service, "BASE_URL"): url,
                        **{env_name(service, k): v for k, v in sims[service].credentials.items()},
                        **{env_name(service, k): v for k, v in names[service].items()}})
        services = [a for s in SERVICES for a in ("--service", s)]
        proc = subprocess.run(
            [sys.executable, "-m", "conformance", "run", *services, "--target", "http", "--record",
             "--allow", "spend", "--allow", "write", "-k", _selection(),
             "--report-dir", str(root / "reports"), "--cassette-dir", str(root / "cassettes")],
            env=env, cwd=root, capture_output=True, text=True, timeout=RUN_TIMEOUT,
        )
    run = CanaryRun(root, proc, sims, names)
    run.marker_leaks = set(_leaks({}, proc, root))
    return run


def _marked(data: bytes) -> str | None:
    """How a canary shows in ``data`` (raw, or base64 at any offset, either alphabet), or None."""
    if _MARKER.search(data):
        return "raw"
    for run in _BASE64_RUN.finditer(data):
        text = run.group().translate(bytes.maketrans(b"-_", b"+/"))
        for offset in range(4):
            chunk = text[offset:]
            chunk = chunk[:len(chunk) // 4 * 4]
            if chunk and _MARKER.search(base64.b64decode(chunk)):
                return "inside base64"
    return None


def _leaks(needles: dict[str, str], proc: subprocess.CompletedProcess[str], root: Path, *,
           marker: bool = True) -> Iterator[tuple[str, str]]:
    """(what, where) for every needle form found anywhere the run wrote, and (``marker``) every
    place that shows the canaries' common marker."""
    places = {"stdout": proc.stdout.encode(), "stderr": proc.stderr.encode()}
    places.update({str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()})
    for where, data in places.items():
        how = _marked(data) if marker else None
        if how:
            parts = where.split("/")
            yield f"a canary {how}", parts[1] if parts[0] == "reports" and len(parts) > 1 else parts[0]
    for value, what in needles.items():
        for form in encodings(value):
            if len(form) < 8:
                continue
            kind = "raw" if form == value else "encoded"
            for where, data in places.items():
                if form.encode() in data:
                    parts = where.split("/")
                    yield f"{what}, {kind}", parts[1] if parts[0] == "reports" and len(parts) > 1 else parts[0]


@pytest.mark.slow
@pytest.mark.parametrize("service", SERVICES)
def test_no_canary_in_any_form_reaches_any_artefact(service: str, canary_run: CanaryRun) -> None:
    proc, sim, names, root = canary_run.proc, canary_run.sims[service], canary_run.names[service], canary_run.root
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    reports = root / "reports"
    for artefact in ("summary.json", "triage.md", "junit.xml"):
        assert (reports / artefact).is_file(), f"no {artefact} written"
    summary = json.loads((reports / "summary.json").read_text(encoding="utf-8"))
    rules = summary["services"][service]["rules"]
    assert any(r["status"] != "not run" for r in rules), f"{service}: no rule of its selection ran"
    results = [json.loads(p.read_text(encoding="utf-8")) for p in (reports / "allure-results").glob("*-result.json")]
    own = [r for r in results if {"name": "epic", "value": service} in r.get("labels", [])]
    assert own, f"no Allure results written for {service}"
    assert list((root / "cassettes" / service).rglob("*.yaml")), f"no cassette written for {service}"
    assert any(r["status"] == "failed" for r in rules), f"{service}: its fault failed no rule"
    assert any(r.get("attachments") for r in own if r["status"] == "failed"), \
        "nothing failed, so no failure attachment was searched"
    assert names, "no secret credential configured"
    needles = {canary: f"canary {name}" for name, canary in names.items()}
    needles.update({_core(c): f"canary {n} without its scheme word" for n, c in names.items()})
    needles.update({v: f"value sent {v[:40]!r}" for v in sim.received})
    needles.update({_core(v): f"value sent {v[:40]!r} without its scheme word" for v in sim.received})
    needles.update({t: f"token issued under mode {m!r}" for t, m in sim.issued.items()})
    if service == "marketplace":
        served_modes = set(sim.issued.values())
        assert served_modes == set(TOKEN_MODES), f"token modes never served: {set(TOKEN_MODES) - served_modes}"
    leaks: dict[str, set[str]] = {}
    # Any canary (of any service: they share the marker) found anywhere fails every service's test.
    for what, where in [*canary_run.marker_leaks, *_leaks(needles, proc, root, marker=False)]:
        leaks.setdefault(what, set()).add(where)
    assert not leaks, f"{service}: {len(leaks)} values leaked:\n" + "\n".join(
        f"{what} -> {', '.join(sorted(places))}" for what, places in sorted(leaks.items()))

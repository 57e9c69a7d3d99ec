"""A credential a target echoes JSON-escaped never reaches an artefact (issue 34, item 5).

The configured key holds ``+``, ``/`` and ``=``, which JSON encoders other than Python's escape
(.NET writes ``\\u002B``; others ``\\/``). The served presentations simulator (the harness's key
mapped to its seeded one on the way in) answers every request with a body echoing the key in
those spellings: as JSON whose echo straddles the 4,000th character (where an Allure attachment
is cut), and on every other answer as text that is not JSON at all; and in a header. The run
records cassettes and writes every report. No form of the key (raw, URL-encoded, base64,
JSON-escaped any way) may be found in any file written, stdout or stderr.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest

from conformance.services import create_simulator
from conformance.simulators import Simulator
from conformance.simulators.base import WallClock
from conformance.transport.model import Request, Response
from tests.conftest import serve

SERVICE = "presentations"
KEY = "cnry+Q7xZ/key=Ab+9/ZZ"
RUN_SECONDS = 240


def _net(value: str, lower: bool = False) -> str:
    """The escaping of System.Text.Json and of encoders made safe for HTML: ``+ / = < > & '`` as
    ``\\uXXXX``."""
    return "".join((f"\\u{ord(c):04x}" if lower else f"\\u{ord(c):04X}") if c in "+/=<>&'" else c for c in value)


def escaped_forms(value: str) -> set[str]:
    return {_net(value), _net(value, lower=True), value.replace("/", "\\/"),
            "".join(f"\\u{ord(c):04X}" for c in value), "".join(f"\\u{ord(c):04x}" for c in value),
            json.dumps(value)[1:-1]}


def forms(value: str) -> set[str]:
    raw = value.encode()
    b64, b64url = base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()
    return {value, quote(value, safe=""), quote(value), quote_plus(value), b64, b64.rstrip("="), b64url,
            b64url.rstrip("=")} | escaped_forms(value)


class EchoingSim:
    """The simulator behind a key mapping, echoing the key JSON-escaped in every answer."""

    def __init__(self, inner: Simulator) -> None:
        self._inner = inner
        self._seeded = inner.credentials["API_KEY"]
        self._answers = 0

    def handle(self, request: Request) -> Response:
        headers = {k: v.replace(KEY, self._seeded) for k, v in request.headers.items()}
        self._inner.handle(Request(request.method, request.path, request.query, headers, request.body))
        self._answers += 1
        echo = _net(KEY)
        if self._answers % 2:
            # The echo straddles character 4,000 of the body text: cut there, it no longer parses.
            head = '{"padding": "' + "x" * (3990 - len('{"padding": "')) + '", "echo": "'
            body = head + echo + '", "also": "' + KEY.replace("/", "\\/") + '", "more": "' + "y" * 300 + '"}'
            kind = "application/json"
        else:
            body = f"invalid key {echo} (also {_net(KEY, lower=True)})"
            kind = "text/plain"
        return Response(400, {"content-type": kind, "x-echo": echo}, body.encode())

    def __getattr__(self, name: str) -> object:
        return getattr(self._inner, name)


@pytest.mark.slow
def test_a_key_echoed_json_escaped_reaches_no_artefact(tmp_path: Path) -> None:
    sim = EchoingSim(create_simulator(SERVICE, WallClock()))
    with serve(sim) as url:  # type: ignore[arg-type]
        env = {**{k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")},
               f"CONFORMANCE_{SERVICE.upper()}_BASE_URL": url, f"CONFORMANCE_{SERVICE.upper()}_API_KEY": KEY,
               "CONFORMANCE_RUN_SECONDS": "180", "CONFORMANCE_REQUEST_SECONDS": "5"}
        proc = subprocess.run([sys.executable, "-m", "conformance", "run", "--service", SERVICE, "--target", "http",
                               "-k", "auth", "--record", "--cassette-dir", str(tmp_path / "cassettes"),
                               "--report-dir", str(tmp_path / "r")], env=env, cwd=tmp_path, capture_output=True,
                              timeout=RUN_SECONDS)
    assert proc.returncode == 1, proc.stderr[-2000:]
    places = {"stdout": proc.stdout, "stderr": proc.stderr}
    places.update({str(p.relative_to(tmp_path)): p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()})
    attachments = [name for name in places if name.endswith("-attachment.txt")]
    assert attachments and list((tmp_path / "cassettes").rglob("*.yaml")), "no attachment or cassette was searched"
    hits = sorted({(form, name) for form in forms(KEY) for name, data in places.items() if form.encode() in data})
    assert not hits, f"{len(hits)} hits:\n" + "\n".join(f"{form!r} in {name}" for form, name in hits[:30])
    # The echo reached the artefacts, scrubbed: the test searched where the key would be.
    assert any(b"REDACTED" in places[name] and b"padding" in places[name] for name in attachments)


def test_a_cut_body_never_ends_in_the_first_part_of_a_credential() -> None:
    """Reports keep bodies cut to a bound and scrub whole values: a key straddling the cut would
    otherwise leave its first part in the report."""
    from conformance.transport.model import Exchange, Request, Response

    secret = "sk-live+9f8e7d6c5b4a"
    body = b"x" * 90 + secret.encode() + b"y" * 50
    exchange = Exchange(Request.build("GET", "/a"), Response(200, {}, body))
    for bound in range(91, 90 + len(secret)):
        kept = exchange.bounded(bound, [secret]).response.body
        assert kept == b"x" * 90, (bound, kept[-10:])
    assert exchange.bounded(200, [secret]).response.body == body  # under the bound: untouched

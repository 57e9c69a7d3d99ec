"""``conformance proxy SERVICE --recheck DIR``: the exchanges a session recorded (``--record``) held to
today's contract again, with no upstream and no network: a day of staging traffic kept as evidence
and re-judged when the contract changes (the CI gate's question: would yesterday's traffic pass
today's documents?).

Cassettes are read as a run reads them (``recording.cassettes.read_cassette``), in the order they
were recorded, whatever contract they were recorded under (re-judging is the point); their bodies
are decoded and their credentials scrubbed (``REDACTED`` stands where a key was: the caller's side
then sees a credential in its place, as it did live).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from conformance.errors import UsageError
from conformance.proxy.app import ProxySession
from conformance.proxy.forward import Upstream
from conformance.recording.cassettes import read_cassette
from conformance.transport.model import Request

__all__ = ["recheck"]


def recheck(session: ProxySession, folder: Path) -> int:
    """Check every exchange of ``folder``'s cassettes; how many there were."""
    paths = sorted(folder.glob("exchange-*.yaml"))
    if not folder.is_dir() or not paths:
        raise UsageError(f"no recorded exchanges (exchange-*.yaml) in {folder}: record some with "
                         "`conformance proxy ... --record`")
    count = 0
    for path in paths:
        requests, responses = read_cassette(path)
        for asked, answered in zip(requests, responses):
            url = urlsplit(asked["uri"])
            body = asked.get("body") or b""
            request = Request(method=asked["method"], path=url.path,
                              query=parse_qsl(url.query, keep_blank_values=True),
                              headers={k: v[0] if isinstance(v, list) else v
                                       for k, v in (asked.get("headers") or {}).items() if v},
                              body=body.encode("utf-8") if isinstance(body, str) else bytes(body))
            text = answered["body"]["string"]
            raw = text.encode("utf-8") if isinstance(text, str) else bytes(text or b"")
            headers = [(k.encode("latin-1"), str(v).encode("latin-1"))
                       for k, values in (answered.get("headers") or {}).items()
                       for v in (values if isinstance(values, list) else [values])]
            session.check_safely(request, Upstream(answered["status"]["code"], headers, raw))
            count += 1
    return count

"""``--record``: each exchange a cassette, in the format and through the scrubbers a run records with
(``recording/``): vcrpy's layout, the contract digest it was checked under, every credential the
caller sent scrubbed by value and by name. One file per exchange, written when it ends, so a proxy
that is killed keeps what it recorded."""

from __future__ import annotations

from pathlib import Path

import httpx
from vcr.request import Request as VcrRequest

from conformance.proxy.forward import Upstream
from conformance.recording.recorder import cassette_context
from conformance.settings import Limits

__all__ = ["ExchangeRecorder"]


class ExchangeRecorder:
    def __init__(self, folder: Path, contract_digest: str, limits: Limits, secrets: list[str]) -> None:
        self.folder = folder
        self.contract_digest = contract_digest
        self.limits = limits
        self.secrets = secrets  # the session's list, by reference: grows as callers send credentials

    def record(self, number: int, method: str, url: str, request_headers: dict[str, str], request_body: bytes,
               upstream: Upstream, body: bytes) -> Path:
        """``body``: the answer decoded (cassettes hold decoded bodies, as a run's do)."""
        path = self.folder / f"exchange-{number:05d}.yaml"
        with cassette_context(path, secrets=self.secrets, contract_digest=self.contract_digest,
                              limits=self.limits) as recorder:
            asked = VcrRequest(method, url, request_body, request_headers)
            real = httpx.Response(upstream.status, headers=upstream.headers)
            recorder.record(asked, real, body)
        return path

"""The replay target: cassettes only, so the network is never used.

A case's session is built with its cassette's transport (``Target.session``); there is no other
client. Credentials are the ``REDACTED`` placeholders the cassettes hold, for those
configured when they were recorded (``credentials.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from conformance.contract import Contract
from conformance.settings import RunSettings
from conformance.targets.base import Capabilities, Target
from conformance.targets.credentials import read_configured
from conformance.transport.scrub import REDACTED

__all__ = ["REPLAY_BASE_URL", "ReplayTarget"]

REPLAY_BASE_URL = "http://{service}.replay.invalid"


class ReplayTarget(Target):
    name = "replay"
    capabilities = Capabilities(real_credentials=False, replays=True)

    def __init__(self, contract: Contract, settings: RunSettings) -> None:
        super().__init__(contract, settings)
        self._configured, self._settings = read_configured(Path(settings.cassette_dir) / self.service, contract)

    def base_url(self) -> str:
        return REPLAY_BASE_URL.format(service=self.service)

    def credential(self, name: str) -> str | None:
        # Cassettes hold REDACTED in place of every secret; sending the same placeholder keeps
        # query-string matching exact where a key travels in the URL. Only credentials that were
        # configured when the cassettes were recorded count as configured here.
        if name in self._settings:
            return self._settings[name]
        return REDACTED if name in self._configured else None

    def _sleep(self) -> Callable[[float], None]:
        return lambda seconds: None

    def secrets(self) -> list[str]:
        return []

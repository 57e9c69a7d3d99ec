"""The contract simulator's query call, event monitors and event logs (volume 1, part C).

The document says these exist ("execute a query function on a contract; create, list, update,
delete an event monitor; get event logs") and shows neither method, path nor payload. Everything
here is SIM-CHOICE, served where and as the vendor's published client sends and reads it, so
that client code runs against the sandbox; the harness's rules never read it (the catalogue
records the paths and payloads as not shown).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from conformance.simulators.base import SimError
from conformance.transport.model import Request, Response

__all__ = ["Interactions"]

_ZERO_WORD = "0x" + "0" * 64


class Interactions:
    """Query, monitors and logs over the simulator's contracts (``contracts``: id -> record)."""

    def __init__(self, contracts: dict[str, dict[str, Any]], new_id: Callable[[], str],
                 now: Callable[[], str], body: Callable[[Request], dict[str, Any]]) -> None:
        self.contracts, self._new_id, self._now, self._body = contracts, new_id, now, body
        self.monitors: dict[str, dict[str, Any]] = {}
        self._by_key: dict[str, str] = {}  # idempotency key -> monitor id

    def routes(self) -> list[tuple[str, str, Callable[..., Response]]]:
        # Registered before /v1/w3s/contracts/{contract_id}: these literal segments are not ids.
        return [
            ("POST", "/v1/w3s/contracts/query", self.query),
            ("POST", "/v1/w3s/contracts/monitors", self.create_monitor),
            ("GET", "/v1/w3s/contracts/monitors", self.list_monitors),
            ("PUT", "/v1/w3s/contracts/monitors/{monitor_id}", self.update_monitor),
            ("DELETE", "/v1/w3s/contracts/monitors/{monitor_id}", self.delete_monitor),
            ("GET", "/v1/w3s/contracts/events", self.event_logs),
        ]

    @staticmethod
    def _ok(data: Any, status: int = 200) -> Response:
        return Response.json_response(status, {"data": data})

    def _known_address(self, address: Any) -> dict[str, Any]:
        if not isinstance(address, str) or not address:
            raise SimError(400, "address is required")
        for record in self.contracts.values():
            if record["contractAddress"].lower() == address.lower():
                return record
        raise SimError(404, "no contract at this address")

    def query(self, request: Request) -> Response:
        body = self._body(request)
        self._known_address(body.get("address"))
        signature, call_data = body.get("abiFunctionSignature"), body.get("callData")
        if not isinstance(signature, str) and not isinstance(call_data, str):
            raise SimError(400, "give abiFunctionSignature or callData")
        # A view of a fresh contract: every word reads zero.
        return self._ok({"outputValues": [0], "outputData": _ZERO_WORD})

    def create_monitor(self, request: Request) -> Response:
        body = self._body(request)
        for name in ("blockchain", "contractAddress", "eventSignature", "idempotencyKey"):
            if not isinstance(body.get(name), str) or not body[name]:
                raise SimError(400, f"missing {name}")
        if body["idempotencyKey"] in self._by_key:  # the same request, answered as before
            return self._ok({"eventMonitor": self.monitors[self._by_key[body["idempotencyKey"]]]}, 201)
        self._known_address(body["contractAddress"])
        signature = body["eventSignature"]
        monitor = {"id": self._new_id(), "blockchain": body["blockchain"], "contractAddress": body["contractAddress"],
                   "eventSignature": signature, "eventSignatureHash": _keccak_stand_in(signature),
                   "isEnabled": True, "createDate": self._now(), "updateDate": self._now()}
        self.monitors[monitor["id"]] = monitor
        self._by_key[body["idempotencyKey"]] = monitor["id"]
        return self._ok({"eventMonitor": monitor}, 201)

    def list_monitors(self, request: Request) -> Response:
        address = request.params.get("contractAddress")
        rows = [m for m in self.monitors.values()
                if address is None or m["contractAddress"].lower() == address.lower()]
        return self._ok({"eventMonitors": rows})

    def _monitor(self, monitor_id: str) -> dict[str, Any]:
        monitor = self.monitors.get(monitor_id.lower())
        if monitor is None:
            raise SimError(404, "no such event monitor")
        return monitor

    def update_monitor(self, request: Request, monitor_id: str) -> Response:
        monitor = self._monitor(monitor_id)
        enabled = self._body(request).get("isEnabled")
        if not isinstance(enabled, bool):
            raise SimError(400, "isEnabled must be a boolean")
        monitor["isEnabled"], monitor["updateDate"] = enabled, self._now()
        return self._ok({"eventMonitor": monitor})

    def delete_monitor(self, request: Request, monitor_id: str) -> Response:
        del self.monitors[self._monitor(monitor_id)["id"]]
        return Response(204)

    def event_logs(self, request: Request) -> Response:
        # Nothing is mined on a simulator: every monitor's log is empty until something is.
        return self._ok({"eventLogs": []})


def _keccak_stand_in(signature: str) -> str:
    """A 32-byte hex digest of the signature (SHA3-256, not Ethereum's Keccak: a stand-in)."""
    return "0x" + hashlib.sha3_256(signature.encode()).hexdigest()

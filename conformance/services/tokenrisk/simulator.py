"""A token-risk simulator: an independent reading of volume 1 part A.

The document lists routes and purposes and shows nothing else, so almost everything here is the
simulator's own choice (marked SIM-CHOICE): payload fields, answers, statuses for bad input,
the ledger and provider names it serves. It never reads the contract. What it must get right
is what the document says: every listed method on every listed path, /ping and /maintenance
unversioned beside the /v1 routes, and data.csv as CSV.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any, ClassVar

from conformance.services.tokenrisk.data import DOMAINS, LOCKERS, TOKENS, token_summary
from conformance.simulators.base import Clock, SimError, Simulator
from conformance.transport.model import Request, Response

_DETECTED_AT = "2026-01-01T00:00:00Z"  # SIM-CHOICE: when the seeded tokens were first seen

__all__ = ["TokenRiskSimulator"]

# SIM-CHOICE: the one ledger network and the one locker provider this simulator serves.
LEDGER = "solana"
PROVIDER = "flux"
SEEDED_SESSION = "sim-session-5d1c9e0b7a"
# SIM-CHOICE: the most tokens one bulk request may name.
MAX_BULK = 100
_ADDRESS = re.compile(r"^[1-9A-HJ-NP-Za-km-z]{32,44}$")


class TokenRiskSimulator(Simulator):
    service = "tokenrisk"
    credentials: ClassVar[dict[str, str]] = {
        "LEDGER": LEDGER,
        "PROVIDER": PROVIDER,
        "TOKEN_ID": TOKENS[0]["mint"],
        "DOMAIN_ID": TOKENS[0]["mint"],
        "AUTH_HEADER": "Authorization",
        "AUTH_VALUE": f"Bearer {SEEDED_SESSION}",
    }

    def __init__(self, clock: Clock | None = None, *, ledger: str | None = None,
                 provider: str | None = None) -> None:
        super().__init__(clock)
        self.ledgers = {ledger or LEDGER}
        self.providers = {provider or PROVIDER}
        self.sessions = {SEEDED_SESSION}
        self.votes: dict[str, dict[str, int]] = {t["mint"]: {"up": 3, "down": 1} for t in TOKENS}
        self.reports: dict[str, int] = {}
        self.verified: set[str] = set()
        self.maintenance = False
        for method, template, handler in (
            ("GET", "/ping", self._ping),
            ("GET", "/maintenance", self._maintenance),
            ("GET", "/v1/maintenance", self._maintenance),
            ("GET", "/v1/leaderboard", self._leaderboard),
            ("GET", "/v1/rpc/stats", self._rpc_stats),
            ("POST", "/v1/auth/login/{ledger}", self._login),
            ("POST", "/v1/bulk/tokens/report", self._bulk_report),
            ("POST", "/v1/bulk/tokens/summary", self._bulk_summary),
            ("POST", "/v1/tokens/verify", self._verify),
            ("POST", "/v1/tokens/verify/eligible", self._eligible),
            ("POST", "/v1/tokens/verify/transaction", self._transaction),
            ("GET", "/v1/tokens/{id}/insiders/graph", self._graph),
            ("GET", "/v1/tokens/{id}/report", self._report),
            ("POST", "/v1/tokens/{id}/report", self._report_token),
            ("GET", "/v1/tokens/{id}/report/summary", self._summary),
            ("GET", "/v1/domains", self._domains),
            ("GET", "/v1/domains/data.csv", self._domains_csv),
            ("GET", "/v1/domains/lookup/{id}", self._lookup),
            ("GET", "/v1/domains/records/{id}", self._records),
            ("GET", "/v1/stats/new_tokens", self._new_tokens),
            ("GET", "/v1/stats/recent", self._recent),
            ("GET", "/v1/stats/trending", self._trending),
            ("GET", "/v1/stats/verified", self._verified),
            ("GET", "/v1/tokens/{id}/lockers", self._lockers),
            ("GET", "/v1/tokens/{id}/lockers/{provider}", self._provider_lockers),
            ("POST", "/v1/tokens/{id}/vote", self._vote),
            ("GET", "/v1/tokens/{id}/votes", self._read_votes),
        ):
            self.route(method, template, handler)

    # -- what every call shares ------------------------------------------------------------
    def handle(self, request: Request) -> Response:
        # SIM-CHOICE: no route needs a credential, but one that is presented must be a session
        # this simulator issued (a wrong credential is refused rather than silently ignored).
        presented = request.header("authorization")
        if presented is not None:
            token = presented[len("Bearer "):] if presented.startswith("Bearer ") else ""
            if token not in self.sessions:
                return self.error_response(SimError(401, "unknown session"))
        return super().handle(request)

    def _token(self, token_id: str) -> dict[str, Any]:
        for token in TOKENS:
            if token["mint"] == token_id:
                return token
        # SIM-CHOICE: an id that is not an address is malformed (400); an unknown address is 404.
        if not _ADDRESS.match(token_id):
            raise SimError(400, "not a token address")
        raise SimError(404, "token not found")

    def _body(self, request: Request) -> dict[str, Any]:
        return self.json_body(request)

    @staticmethod
    def _string(body: dict[str, Any], name: str) -> str:
        value = body.get(name)
        if not isinstance(value, str) or not value:
            raise SimError(400, f"{name} must be a non-empty string")
        return value

    def _mints(self, request: Request) -> list[str]:
        body = self._body(request)
        mints = body.get("tokens")
        if not isinstance(mints, list) or not mints or len(mints) > MAX_BULK:
            raise SimError(400, f"tokens must be a list of 1 to {MAX_BULK} token addresses")
        if not all(isinstance(m, str) for m in mints):
            raise SimError(400, "tokens must be strings")
        return mints

    # -- General -----------------------------------------------------------------------------
    def _ping(self, request: Request) -> Response:
        return Response.json_response(200, {"message": "pong"})

    def _maintenance(self, request: Request) -> Response:
        return Response.json_response(200, {"maintenance": self.maintenance})

    def _leaderboard(self, request: Request) -> Response:
        return Response.json_response(200, [{"rank": i + 1, "wallet": f"wallet-{i + 1}", "points": 100 - 7 * i}
                                            for i in range(5)])

    def _rpc_stats(self, request: Request) -> Response:
        return Response.json_response(200, {"requests": 1200, "errors": 3, "latencyMs": 41})

    # -- Auth ------------------------------------------------------------------------------------
    def _login(self, request: Request, ledger: str) -> Response:
        if ledger not in self.ledgers:
            raise SimError(404, f"unsupported ledger {ledger}")
        body = self._body(request)
        wallet, signature = self._string(body, "wallet"), self._string(body, "signature")
        message = body.get("message")
        if not isinstance(message, dict):
            raise SimError(400, "message must be the signed AuthMessage object")
        # SIM-CHOICE: any signature is accepted; the simulator cannot verify wallets.
        session = f"sim-session-{len(self.sessions):04d}-{abs(hash((wallet, signature))) % 10**8:08d}"
        self.sessions.add(session)
        return Response.json_response(200, {"token": session})

    # -- Tokens ------------------------------------------------------------------------------------
    def _bulk_report(self, request: Request) -> Response:
        return Response.json_response(200, [self._full(self._token(m)) for m in self._mints(request)])

    def _bulk_summary(self, request: Request) -> Response:
        return Response.json_response(200, {"reports": [token_summary(self._token(m)) for m in self._mints(request)]})

    def _verify(self, request: Request) -> Response:
        token = self._token(self._string(self._body(request), "mint"))
        self.verified.add(token["mint"])
        return Response.json_response(200, {"mint": token["mint"], "verified": True})

    def _eligible(self, request: Request) -> Response:
        token = self._token(self._string(self._body(request), "mint"))
        return Response.json_response(200, {"mint": token["mint"], "eligible": token["score"] < 500})

    def _transaction(self, request: Request) -> Response:
        token = self._token(self._string(self._body(request), "mint"))
        return Response.json_response(200, {"mint": token["mint"], "transaction": "AQAB" + token["mint"][:16]})

    def _full(self, token: dict[str, Any]) -> dict[str, Any]:
        # SIM-CHOICE (client-shaped, gap response-payloads): the full report's members are not
        # shown; tokenMeta, rugged, totalMarketLiquidity, verification and detectedAt are what the
        # vendor's published client reads of it. No rule reads them.
        return {**token_summary(token), "name": token["name"], "symbol": token["symbol"],
                "verified": token["mint"] in self.verified, "reports": self.reports.get(token["mint"], 0),
                "tokenMeta": {"name": token["name"], "symbol": token["symbol"]}, "rugged": False,
                "totalMarketLiquidity": 0, "verification": None, "detectedAt": _DETECTED_AT}

    def _graph(self, request: Request, id: str) -> Response:
        token = self._token(id)
        holders = [f"holder-{i}" for i in range(3)]
        return Response.json_response(200, {"nodes": [token["mint"], *holders],
                                            "edges": [[token["mint"], h] for h in holders]})

    def _report(self, request: Request, id: str) -> Response:
        return Response.json_response(200, self._full(self._token(id)))

    def _report_token(self, request: Request, id: str) -> Response:
        token = self._token(id)
        self._string(self._body(request), "reason")
        self.reports[token["mint"]] = self.reports.get(token["mint"], 0) + 1
        return Response.json_response(201, {"mint": token["mint"], "reports": self.reports[token["mint"]]})

    def _summary(self, request: Request, id: str) -> Response:
        return Response.json_response(200, token_summary(self._token(id)))

    # -- Domains -----------------------------------------------------------------------------------
    def _domains(self, request: Request) -> Response:
        return Response.json_response(200, DOMAINS)

    def _domains_csv(self, request: Request) -> Response:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["name", "owner", "token"])
        for domain in DOMAINS:
            writer.writerow([domain["name"], domain["owner"], domain["token"]])
        return Response(200, {"content-type": "text/csv"}, out.getvalue().encode())

    def _domain(self, key: str) -> dict[str, Any]:
        # SIM-CHOICE: a domain is found by its name or by the token it names (the document calls
        # {id} a token identifier and the purpose a domain address: both readings are served).
        for domain in DOMAINS:
            if key in (domain["name"], domain["token"]):
                return domain
        raise SimError(404, "domain not found")

    def _lookup(self, request: Request, id: str) -> Response:
        domain = self._domain(id)
        return Response.json_response(200, {"name": domain["name"], "address": domain["owner"]})

    def _records(self, request: Request, id: str) -> Response:
        domain = self._domain(id)
        return Response.json_response(200, {"name": domain["name"], "records": domain["records"]})

    # -- Stats ---------------------------------------------------------------------------------------
    def _listing(self, order: str) -> Response:
        tokens = sorted(TOKENS, key=lambda t: -t[order])
        rows = [{"mint": t["mint"], "symbol": t["symbol"], order: t[order]} for t in tokens]
        return Response.json_response(200, rows)

    def _new_tokens(self, request: Request) -> Response:
        return self._listing("createdAt")

    def _recent(self, request: Request) -> Response:
        return self._listing("views")

    def _trending(self, request: Request) -> Response:
        return self._listing("score")

    def _verified(self, request: Request) -> Response:
        return Response.json_response(200, [{"mint": m} for m in sorted(self.verified)])

    # -- Vaults and votes ----------------------------------------------------------------------------
    def _lockers(self, request: Request, id: str) -> Response:
        token = self._token(id)
        return Response.json_response(200, {p: LOCKERS.get(token["mint"], []) for p in sorted(self.providers)})

    def _provider_lockers(self, request: Request, id: str, provider: str) -> Response:
        token = self._token(id)
        if provider not in self.providers:
            raise SimError(404, f"unknown locker provider {provider}")
        return Response.json_response(200, {"provider": provider, "vaults": LOCKERS.get(token["mint"], [])})

    def _vote(self, request: Request, id: str) -> Response:
        token = self._token(id)
        side = self._body(request).get("up")
        if not isinstance(side, bool):
            raise SimError(400, "up must be a boolean")
        tally = self.votes[token["mint"]]
        tally["up" if side else "down"] += 1
        return Response.json_response(200, dict(tally))

    def _read_votes(self, request: Request, id: str) -> Response:
        return Response.json_response(200, dict(self.votes[self._token(id)["mint"]]))

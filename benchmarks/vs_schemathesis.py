"""Fault-finding power: the harness's kill matrix against vanilla schemathesis (issue 14, item 5).

For each service and each named fault (``conformance.faults.faults_for``), the faulty simulator is
served over HTTP on 127.0.0.1 and ``schemathesis run schemas/<service>/openapi.yaml --checks all``
runs against it as a user would: the document's own servers (``--origin``), the simulator's seeded
credentials filled into the document's security schemes (``[auth.openapi.<Scheme>]`` in a generated
schemathesis.toml; oauth2: an access token from the seeded refresh token; no scheme but a seeded
session header: ``-H``), the same budget for every fault (``--max-examples`` per operation, a fixed
``--seed``, optionally ``--max-time`` per run). The clean simulator is run twice per service with the
same settings; a fault counts as found by schemathesis when its run fails an (operation, check) pair
neither clean run fails. The harness side is the kill matrix (``conformance.selftest.kill_matrix``):
found when the fault is caught.

    .venv/bin/python benchmarks/vs_schemathesis.py [--service X ...] [--sample N] [--budget SECONDS]
                                                    [--max-examples N] [--workers N] [--seed N]

Why --max-examples and not --max-time by default: under a shared machine's load, a few seconds of
--max-time are spent loading the schema and in the examples phase, and schemathesis then generates
nothing; a fixed number of cases per operation is the same budget whatever the load. Cost: about
10-30 s per schemathesis run on 2 shared cores, so all services' ~300 faults take over an hour; use
``--sample N`` for a quicker pass.

Prints one table per service and a total, and writes the raw results to
reports/bench-vs-schemathesis.json. Services whose contract, faults or simulator do not load are
skipped and named.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import uvicorn  # noqa: E402
import yaml  # noqa: E402

from conformance.services import create_simulator  # noqa: E402
from conformance.simulators import Simulator  # noqa: E402
from conformance.simulators.asgi import SimulatorApp  # noqa: E402
from conformance.simulators.base import WallClock  # noqa: E402

SERVICES = ("tokenrisk", "presentations", "contracts", "social", "scanning", "outreach", "marketplace", "affiliate")
SCHEMATHESIS = Path(sys.executable).with_name("schemathesis")
START_TIMEOUT = 10.0


# -- serving a simulator ------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve(sim: Simulator) -> Iterator[str]:
    """``sim`` on a free loopback port (uvicorn in a thread) for the duration of the block."""
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(SimulatorApp(sim), host="127.0.0.1", port=port,
                                           log_level="critical", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("simulator server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(START_TIMEOUT)


# -- credentials the way the document's security schemes say -------------------------------------

def _fill(template: str, credentials: dict[str, str]) -> str:
    return re.sub(r"\{([A-Z0-9_]+)\}", lambda m: credentials.get(m.group(1), m.group(0)), template)


def _oauth_access_token(origin: str, document: dict[str, Any], scheme: dict[str, Any],
                        credentials: dict[str, str], headers: dict[str, str]) -> str | None:
    """An access token from the scheme's refresh flow with the seeded refresh token (what a user
    does once before a run: exchange their refresh token), or None when there is none."""
    tokens = scheme.get("x-tokens") or {}
    refresh_name = tokens.get("ACCESS_TOKEN")
    flows = scheme.get("flows") or {}
    url = next((f.get("refreshUrl") or f.get("tokenUrl") for f in flows.values() if isinstance(f, dict)), None)
    if not refresh_name or refresh_name not in credentials or not url:
        return None
    form = {"grant_type": "refresh_token", "refresh_token": credentials[refresh_name]}
    if "CLIENT_ID" in credentials:
        form["client_id"] = credentials["CLIENT_ID"]
    try:
        response = httpx.post(origin + url, data=form, headers=headers, timeout=10)
        response.raise_for_status()
        return str(response.json()["access_token"])
    except (httpx.HTTPError, KeyError, ValueError):
        return None


def auth_config(document: dict[str, Any], credentials: dict[str, str], origin: str) -> tuple[str, list[str], list[str]]:
    """(schemathesis.toml text, extra CLI args, notes) supplying ``credentials`` per the security schemes."""
    schemes = (document.get("components") or {}).get("securitySchemes") or {}
    lines: list[str] = []
    args: list[str] = []
    notes: list[str] = []
    static_headers: dict[str, str] = {}
    for name, scheme in schemes.items():
        if scheme.get("type") == "apiKey" and scheme.get("in") in ("header", "query"):
            value = _fill(scheme.get("x-credential", "{API_KEY}"), credentials)
            lines += [f"[auth.openapi.{name}]", f"api_key = {json.dumps(value)}", ""]
            if scheme["in"] == "header":
                static_headers[scheme["name"]] = value
    for name, scheme in schemes.items():
        kind = scheme.get("type")
        if kind == "http" and str(scheme.get("scheme", "")).lower() == "bearer":
            value = _fill(scheme.get("x-credential", "Bearer {API_KEY}"), credentials)
            value = value.removeprefix("Bearer ").strip()
            lines += [f"[auth.openapi.{name}]", f"bearer = {json.dumps(value)}", ""]
        elif kind == "oauth2":
            token = _oauth_access_token(origin, document, scheme, credentials, static_headers)
            if token is None:
                notes.append(f"oauth2 scheme {name}: no access token (left without credentials)")
            else:
                lines += [f"[auth.openapi.{name}]", f"bearer = {json.dumps(token)}", ""]
                notes.append(f"oauth2 scheme {name}: access token from the refresh grant")
        elif kind not in ("apiKey", "http"):
            notes.append(f"scheme {name} of type {kind}: not supplied")
    if not schemes and "AUTH_HEADER" in credentials and "AUTH_VALUE" in credentials:
        # No security scheme in the document; the simulator's seeded session header is still
        # handed over (-H), the most a user reading the docs could do.
        args += ["-H", f"{credentials['AUTH_HEADER']}: {credentials['AUTH_VALUE']}"]
        notes.append("no security scheme; seeded AUTH_HEADER/AUTH_VALUE sent with -H")
    return "\n".join(lines), args, notes


# -- one schemathesis run -----------------------------------------------------------------------

@dataclass
class StRun:
    fault: str | None
    exit_code: int | None = None
    seconds: float = 0.0
    failing: list[str] = field(default_factory=list)  # "METHOD /path :: check"
    new_failing: list[str] = field(default_factory=list)  # not in the clean run
    errors: list[str] = field(default_factory=list)
    generated: int = 0
    timed_out: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return bool(self.new_failing)


def run_schemathesis(service: str, sim: Simulator, fault: str | None, args: argparse.Namespace) -> StRun:
    schema = ROOT / "schemas" / service / "openapi.yaml"
    document = yaml.safe_load(schema.read_text(encoding="utf-8"))
    result = StRun(fault)
    with tempfile.TemporaryDirectory(prefix="bench-st-") as tmp, serve(sim) as origin:
        toml, extra, notes = auth_config(document, dict(sim.credentials), origin)
        result.notes = notes
        config = Path(tmp) / "schemathesis.toml"
        config.write_text(toml, encoding="utf-8")
        report = Path(tmp) / "report.json"
        command = [str(SCHEMATHESIS), "--config-file", str(config), "run", str(schema),
                   "--origin", origin, "--checks", "all",
                   "--max-examples", str(args.max_examples),
                   *(["--max-time", str(args.budget)] if args.budget else []),
                   "--seed", str(args.seed), "--generation-database", "none",
                   "--workers", "1", "--request-timeout", "5", "--no-color",
                   "--report", "json", "--report-json-path", str(report), *extra]
        started = time.monotonic()
        try:
            proc = subprocess.run(command, cwd=tmp, capture_output=True, text=True,
                                  timeout=(args.budget + 60) if args.budget else 180,
                                  env={**os.environ, "NO_COLOR": "1"})
            result.exit_code = proc.returncode
        except subprocess.TimeoutExpired:
            result.timed_out = True
        result.seconds = time.monotonic() - started
        if report.exists():
            data = json.loads(report.read_text(encoding="utf-8"))
            result.generated = int((data.get("test_cases") or {}).get("generated") or 0)
            pairs = {f"{op} :: {group.get('type') or group.get('code')}"
                     for group in data.get("failures") or [] for op in group.get("operations") or []}
            result.failing = sorted(pairs)
            result.errors = [f"{e['title']} x{e['count']}" for e in data.get("errors") or []]
        elif not result.timed_out:
            tail = proc.stderr.strip()[-300:] or proc.stdout.strip()[-300:]
            result.errors = [f"no report (exit {result.exit_code}): {tail}"]
    print(f"  [{service}] schemathesis {fault or 'clean'}: {result.seconds:.1f} s, {result.generated} cases, "
          f"{len(result.failing)} failing pairs", file=sys.stderr, flush=True)
    return result


# -- one service --------------------------------------------------------------------------------

@dataclass
class FaultRow:
    fault: str
    breaks: str
    harness: bool
    harness_caught_by: list[str]
    schemathesis: bool
    schemathesis_new_failures: list[str]


@dataclass
class ServiceResult:
    service: str
    faults: int = 0
    sampled: int = 0
    harness_found: int = 0
    schemathesis_found: int = 0
    missed_by_harness: list[str] = field(default_factory=list)
    clean_noise: list[str] = field(default_factory=list)
    clean_flaky: list[str] = field(default_factory=list)
    harness_seconds: float = 0.0
    schemathesis_seconds: float = 0.0
    schemathesis_cpu_seconds: float = 0.0
    rows: list[FaultRow] = field(default_factory=list)
    runs: list[StRun] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    skipped: str = ""

    @property
    def ratio(self) -> str:
        if self.schemathesis_found == 0:
            return "inf" if self.harness_found else "-"
        return f"{self.harness_found / self.schemathesis_found:.1f}x"


def bench_service(service: str, args: argparse.Namespace) -> ServiceResult:
    from conformance.contract import load_contract
    from conformance.selftest import kill_matrix
    from conformance.services import faults_for

    out = ServiceResult(service)
    try:
        load_contract(service)
        faults = faults_for(service)
        create_simulator(service, WallClock())
    except Exception as exc:  # a contract being edited right now: skip and say so
        out.skipped = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
        return out
    out.faults = len(faults)
    if args.sample and args.sample < len(faults):
        faults = sorted(random.Random(f"{args.seed}:{service}").sample(faults, args.sample), key=lambda f: f.name)
    out.sampled = len(faults)
    by_name = {f.name: f for f in faults}

    # the harness: the kill matrix (clean, every fault, every allowed variant) over all faults;
    # only the sampled faults are counted, the time is the whole matrix's.
    started = time.monotonic()
    matrix = {r.fault: r for r in kill_matrix([service], workers=args.workers)}
    out.harness_seconds = time.monotonic() - started
    clean_matrix = matrix.get(None)
    if clean_matrix is not None and (clean_matrix.caught_by or clean_matrix.errors):
        out.notes.append(f"harness clean run not clean: {clean_matrix.caught_by + clean_matrix.errors}")

    # schemathesis: clean once, then each sampled fault, same budget, ``workers`` at a time
    # the clean simulator twice: a run stops on the time budget, so which pairs fail varies a
    # little from run to run; the union of both clean runs is the baseline (and their difference
    # is reported as flaky noise).
    def clean_sim() -> Simulator:
        return create_simulator(service, WallClock())

    def faulty_sim(item: Any) -> Callable[[], Simulator]:
        return lambda: item.apply(create_simulator(service, WallClock()))

    jobs: list[tuple[str | None, Callable[[], Simulator]]] = [(None, clean_sim), (None, clean_sim)]
    jobs += [(item.name, faulty_sim(item)) for item in faults]
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=max(1, args.workers)) as pool:
        runs = list(pool.map(lambda job: run_schemathesis(service, job[1](), job[0], args), jobs))
    out.schemathesis_seconds = time.monotonic() - started
    out.schemathesis_cpu_seconds = sum(r.seconds for r in runs)
    cleans, runs = runs[:2], runs[2:]
    baseline = set(cleans[0].failing) | set(cleans[1].failing)
    out.clean_noise = sorted(baseline)
    out.clean_flaky = sorted(set(cleans[0].failing) ^ set(cleans[1].failing))
    out.notes += cleans[0].notes
    for clean in cleans:
        out.notes += [f"schemathesis clean run: {e}" for e in clean.errors]
        if clean.timed_out:
            out.notes.append("schemathesis clean run timed out")
    for run in runs:
        run.new_failing = sorted(set(run.failing) - baseline)
        item = by_name[run.fault or ""]
        verdict = matrix.get(item.name)
        harness = bool(verdict and verdict.caught)
        out.rows.append(FaultRow(item.name, item.breaks, harness, list(verdict.caught_by) if verdict else [],
                                 run.found, run.new_failing))
    out.runs = cleans + runs
    out.harness_found = sum(r.harness for r in out.rows)
    out.schemathesis_found = sum(r.schemathesis for r in out.rows)
    out.missed_by_harness = [r.fault for r in out.rows if r.schemathesis and not r.harness]
    return out


# -- output -------------------------------------------------------------------------------------

def print_service(res: ServiceResult) -> None:
    print(f"\n== {res.service}")
    if res.skipped:
        print(f"   skipped: {res.skipped}")
        return
    sample = f" (sample of {res.sampled})" if res.sampled != res.faults else ""
    print(f"   faults {res.faults}{sample} | harness found {res.harness_found} | schemathesis found "
          f"{res.schemathesis_found} | ratio {res.ratio}")
    print(f"   wall time: harness kill matrix {res.harness_seconds:.1f} s (all {res.faults} faults + clean + "
          f"variants); schemathesis {res.schemathesis_seconds:.1f} s ({res.sampled + 2} runs, "
          f"{res.schemathesis_cpu_seconds:.1f} s summed)")
    print(f"   schemathesis clean-run noise ({len(res.clean_noise)} failing operation+check pairs):")
    for pair in res.clean_noise:
        print(f"     - {pair}")
    if res.clean_flaky:
        print(f"   of which differ between the two clean runs (flaky): {'; '.join(res.clean_flaky)}")
    print(f"   found by schemathesis, missed by the harness: {', '.join(res.missed_by_harness) or 'none'}")
    found = [r for r in res.rows if r.schemathesis]
    if found:
        print("   faults schemathesis found (new failing pairs against the clean run):")
        for row in found:
            harness = "yes" if row.harness else "NO"
            print(f"     - {row.fault} [harness {harness}]: {'; '.join(row.schemathesis_new_failures)}")
    for note in res.notes:
        print(f"   note: {note}")


def print_total(results: list[ServiceResult]) -> None:
    done = [r for r in results if not r.skipped]
    print("\n| service | faults (run) | harness found | schemathesis found | ratio | st misses-by-harness "
          "| st clean noise | harness s | schemathesis s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        if r.skipped:
            print(f"| {r.service} | skipped: {r.skipped[:60]} | | | | | | | |")
            continue
        print(f"| {r.service} | {r.faults} ({r.sampled}) | {r.harness_found} | {r.schemathesis_found} | {r.ratio} "
              f"| {', '.join(r.missed_by_harness) or '-'} | {len(r.clean_noise)} | {r.harness_seconds:.1f} "
              f"| {r.schemathesis_seconds:.1f} |")
    h = sum(r.harness_found for r in done)
    s = sum(r.schemathesis_found for r in done)
    ratio = f"{h / s:.1f}x" if s else ("inf" if h else "-")
    print(f"| **all** | {sum(r.faults for r in done)} ({sum(r.sampled for r in done)}) | {h} | {s} | {ratio} "
          f"| {sum(len(r.missed_by_harness) for r in done)} | {sum(len(r.clean_noise) for r in done)} "
          f"| {sum(r.harness_seconds for r in done):.1f} | {sum(r.schemathesis_seconds for r in done):.1f} |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--service", action="append", help="a service (repeatable; default: all)")
    parser.add_argument("--sample", type=int, default=0, help="run only N faults per service (seeded sample)")
    parser.add_argument("--budget", type=int, default=0,
                        help="schemathesis --max-time per run, seconds (default 0: no time cap, the budget is "
                             "--max-examples, which does not depend on the machine's load; a run is killed "
                             "after 180 s either way)")
    parser.add_argument("--max-examples", type=int, default=10, help="schemathesis --max-examples per operation")
    parser.add_argument("--workers", type=int, default=2, help="parallel schemathesis runs and kill-matrix workers")
    parser.add_argument("--seed", type=int, default=14, help="schemathesis --seed and the sample's seed")
    parser.add_argument("--out", default=str(ROOT / "reports" / "bench-vs-schemathesis.json"))
    args = parser.parse_args(argv)

    services = args.service or list(SERVICES)
    started = time.monotonic()
    results = []
    for service in services:
        res = bench_service(service, args)
        print_service(res)
        sys.stdout.flush()
        results.append(res)
    total = time.monotonic() - started
    print_total(results)
    print(f"\ntotal wall time {total:.1f} s; schemathesis: --checks all --max-examples {args.max_examples} "
          f"--max-time {args.budget} --seed {args.seed}; workers {args.workers}")
    payload = {
        "command": " ".join([Path(sys.argv[0]).name, *(argv if argv is not None else sys.argv[1:])]),
        "settings": {"budget": args.budget, "max_examples": args.max_examples, "workers": args.workers,
                     "seed": args.seed, "sample": args.sample},
        "total_seconds": round(total, 1),
        "services": [{**asdict(r), "ratio": r.ratio,
                      "runs": [{**asdict(run), "found": run.found} for run in r.runs]} for r in results],
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print(f"raw results: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

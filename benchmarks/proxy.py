"""Per-request overhead of `conformance proxy` (issue 33), over loopback. Not a test.

    .venv/bin/python benchmarks/proxy.py [--requests N] [--service ID] [--path PATH]

Starts `conformance serve SERVICE --port 0` and `conformance proxy SERVICE --upstream <it> --port 0`,
then sends N requests (default 200) straight to the simulator and N through the proxy, one at a time
over one kept-alive connection each, interleaved (direct, proxied, direct ...) so both see the same
load on a shared machine; a few of each first, unmeasured (connections, caches). Prints the median
and the 99th percentile of each, the proxy's overhead (proxied minus direct), and the check alone
(``ProxySession.check`` on the same answer, in this process: how much of the overhead is the
check), for a body seen before (remembered valid, as in a run: not validated again) and for a
new one (what varied traffic costs). The proxy checks
each exchange after its answer has gone back, so the check delays the caller only when the next
request arrives while the previous one is still being checked; one request at a time, as here, it
mostly does (the figures include it).

The simulator runs with a fast clock so its rate limits (about 20 requests in a burst) refill
between requests and every answer is a 200: a 429 would be a smaller answer and an easier check.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
_WARM_UP = 10


def _start(args: list[str], last: str) -> tuple[subprocess.Popen[str], list[str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}
    proc = subprocess.Popen([sys.executable, "-m", "conformance", *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    lines: list[str] = []
    while not any(line.startswith(last) for line in lines):
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"conformance {args[0]} ended early (status {proc.wait()})")
        lines.append(line.rstrip("\n"))
    return proc, lines


def _export(lines: list[str], suffix: str) -> str:
    return next(line.split("=", 1)[1].strip("'") for line in lines
                if line.startswith("export ") and line.split("=", 1)[0].endswith(suffix))


def _stop(proc: subprocess.Popen[str]) -> int:
    proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def _p99(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def _check_alone(service: str, path: str, key: str, direct_url: str, requests: int, cold: bool) -> list[float]:
    """Seconds ``ProxySession.check`` takes on one exchange (the one answer fetched once, checked
    ``requests`` times in this process): the part of the overhead that is the check. ``cold``: the
    bodies remembered valid are forgotten first (a body never seen before, as varied traffic has)."""
    from conformance.contract import load_contract, validation
    from conformance.proxy.app import ProxySession
    from conformance.proxy.forward import Forwarder, Upstream
    from conformance.settings import Limits
    from conformance.transport.model import Request

    with httpx.Client(base_url=direct_url, trust_env=False) as client:
        answer = client.get(path, headers={"X-API-KEY": key})
    upstream = Upstream(answer.status_code, list(answer.headers.raw), answer.content)
    session = ProxySession(load_contract(service), Forwarder(direct_url, Limits()), Limits())
    request = Request("GET", path, headers={"x-api-key": key})
    times = []
    for _ in range(_WARM_UP + requests):
        if cold:
            validation._VALID.clear()
        started = time.perf_counter()
        session.check(request, upstream)
        times.append(time.perf_counter() - started)
    return times[_WARM_UP:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--service", default="presentations")
    parser.add_argument("--path", default="/v1.0/themes", help="a GET the simulator answers 200")
    args = parser.parse_args()
    server, lines = _start(["serve", args.service, "--port", "0", "--clock-rate", "1000"], "export CONFORMANCE_ALLOW=")
    key = _export(lines, "_API_KEY")
    direct_url = _export(lines, "_BASE_URL")
    with tempfile.TemporaryDirectory() as report_dir:
        proxy, proxy_lines = _start(["proxy", args.service, "--upstream", direct_url, "--port", "0",
                                     "--report-dir", report_dir], "export ")
        proxied_url = _export(proxy_lines, "_BASE_URL")
        times: dict[str, list[float]] = {"direct": [], "proxied": []}
        statuses: dict[str, set[int]] = {"direct": set(), "proxied": set()}
        try:
            with httpx.Client(base_url=direct_url, trust_env=False) as direct, \
                    httpx.Client(base_url=proxied_url, trust_env=False) as proxied:
                clients = {"direct": direct, "proxied": proxied}
                for i in range(_WARM_UP + args.requests):
                    for name, client in clients.items():
                        started = time.perf_counter()
                        response = client.get(args.path, headers={"X-API-KEY": key})
                        elapsed = time.perf_counter() - started
                        if i >= _WARM_UP:
                            times[name].append(elapsed)
                            statuses[name].add(response.status_code)
        finally:
            proxy_status = _stop(proxy)
            _stop(server)
        summary = (Path(report_dir) / "summary.json").is_file()
    server, lines = _start(["serve", args.service, "--port", "0", "--clock-rate", "1000"], "export CONFORMANCE_ALLOW=")
    try:
        url = _export(lines, "_BASE_URL")
        times["check, seen"] = _check_alone(args.service, args.path, key, url, args.requests, cold=False)
        times["check, new"] = _check_alone(args.service, args.path, key, url, args.requests, cold=True)
    finally:
        _stop(server)
    for name, values in times.items():
        seen = f" (statuses {sorted(statuses[name])})" if name in statuses else " (in process, no network)"
        print(f"{name:11} {args.requests} x GET {args.path}: median {statistics.median(values) * 1000:.2f} ms, "
              f"p99 {_p99(values) * 1000:.2f} ms{seen}")
    overhead = statistics.median(times["proxied"]) - statistics.median(times["direct"])
    overhead99 = _p99(times["proxied"]) - _p99(times["direct"])
    print(f"overhead: median +{overhead * 1000:.2f} ms, p99 +{overhead99 * 1000:.2f} ms "
          f"(proxy exit status {proxy_status}, summary.json written: {summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

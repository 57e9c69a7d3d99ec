"""Services side by side (issue 25): serial against ``--jobs N``, measured in one session. Not a test.

    .venv/bin/python benchmarks/parallel.py http        # all eight over HTTP at documented rates (~35 min)
    .venv/bin/python benchmarks/parallel.py gate        # the gate on the simulators: serial vs -n 2

``http``: each service's simulator served by ``conformance serve <id>`` (clock rate 1, so the
documented rate limits hold in real time), fresh servers for each measurement, the run with
``--allow write --allow spend`` and CONFORMANCE_SPEND_BUDGET=100000. Measures the parallel run,
each service alone, and the serial run; prints wall times, the ratio of the parallel run to the
slowest service alone (goal <= 1.2) and whether the per-rule verdicts agree. Writes
reports/bench-parallel.json.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SERVICES = ["tokenrisk", "presentations", "contracts", "social", "scanning", "outreach", "marketplace", "affiliate"]


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def served(services: list[str]) -> Iterator[dict[str, str]]:
    """Fresh `conformance serve` processes; yields the variables they print (credentials, base URLs)."""
    procs: list[subprocess.Popen[str]] = []
    env: dict[str, str] = {}
    try:
        for service in services:
            proc = subprocess.Popen([sys.executable, "-m", "conformance", "serve", service, "--port", str(_port())],
                                    stdout=subprocess.PIPE, text=True, cwd=ROOT)
            procs.append(proc)
            assert proc.stdout is not None
            for line in proc.stdout:
                line = line.strip()
                if line.startswith("CONFORMANCE_"):
                    name, _sep, value = line.partition("=")
                    env[name] = value
                    if name.endswith("_BASE_URL"):
                        break
        for name, url in env.items():
            if name.endswith("_BASE_URL"):
                _wait_listening(url)
        yield env
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()


def _wait_listening(url: str) -> None:
    host, port = url.rsplit("/", 1)[-1].rsplit(":", 1)
    for _ in range(600):
        with contextlib.suppress(OSError), socket.create_connection((host, int(port)), timeout=1):
            return
        time.sleep(0.1)
    raise SystemExit(f"{url} never listened")


def run(args: list[str], env: dict[str, str], report_dir: Path) -> tuple[float, int, dict[str, Any]]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "conformance", "run", "--no-allure", "--report-dir", str(report_dir),
                           *args], env={**base, **env}, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    try:
        summary = json.loads((report_dir / "summary.json").read_text(encoding="utf-8"))
    except OSError:
        sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
        raise
    return seconds, done.returncode, summary


def verdicts(summary: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {r["id"]: (r["status"], r.get("skip_kind")) for s in summary["services"].values() for r in s["rules"]}


def bench_http(out: Path, jobs: int) -> dict[str, Any]:
    http = {"CONFORMANCE_TARGET": "http", "CONFORMANCE_SPEND_BUDGET": "100000", "CONFORMANCE_TIME_SCALE": "1"}
    allow = ["--allow", "write", "--allow", "spend"]
    services = [a for s in SERVICES for a in ("--service", s)]
    result: dict[str, Any] = {"alone": {}}
    with served(SERVICES) as env:
        seconds, code, par = run([*services, *allow, "--jobs", str(jobs)], {**env, **http}, out / "parallel")
    result["parallel"] = {"seconds": seconds, "exit": code, "counts": par["counts"]}
    print(f"parallel --jobs {jobs}: {seconds:.0f} s (exit {code}) {par['counts']}", flush=True)
    alone_verdicts: dict[str, tuple[str, str | None]] = {}
    for service in SERVICES:
        with served([service]) as env:
            seconds, code, one = run(["--service", service, *allow], {**env, **http}, out / f"alone-{service}")
        result["alone"][service] = {"seconds": seconds, "exit": code}
        alone_verdicts.update(verdicts(one))
        print(f"{service} alone: {seconds:.0f} s (exit {code})", flush=True)
    with served(SERVICES) as env:
        seconds, code, ser = run([*services, *allow], {**env, **http}, out / "serial")
    result["serial"] = {"seconds": seconds, "exit": code, "counts": ser["counts"]}
    print(f"serial: {seconds:.0f} s (exit {code}) {ser['counts']}", flush=True)
    slowest = max(result["alone"], key=lambda s: result["alone"][s]["seconds"])
    result["slowest"] = slowest
    result["ratio_parallel_to_slowest"] = result["parallel"]["seconds"] / result["alone"][slowest]["seconds"]
    result["ratio_serial_to_parallel"] = result["serial"]["seconds"] / result["parallel"]["seconds"]
    differ = sorted(k for k, v in verdicts(ser).items() if verdicts(par).get(k) != v)
    result["verdicts_differ_serial_parallel"] = differ
    result["verdicts_differ_alone_parallel"] = sorted(k for k, v in alone_verdicts.items()
                                                      if verdicts(par).get(k) != v)
    return result


def bench_gate(out: Path, repeat: int) -> dict[str, Any]:
    times: dict[str, list[float]] = {"serial": [], "-n 2": []}
    same = True
    for i in range(repeat):  # interleaved: a burst of load from elsewhere hits both
        s_sec, _c, ser = run([], {}, out / f"gate-serial-{i}")
        p_sec, _c, par = run(["--jobs", "2"], {}, out / f"gate-n2-{i}")
        times["serial"].append(s_sec)
        times["-n 2"].append(p_sec)
        same = same and verdicts(ser) == verdicts(par)
        print(f"gate: serial {s_sec:.1f} s, -n 2 {p_sec:.1f} s", flush=True)
    return {"times": times, "same_verdicts": same, "load_after": os.getloadavg()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("http", "gate"))
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "reports" / "bench-parallel"))
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"load average before: {os.getloadavg()} on {os.cpu_count()} cores", flush=True)
    result = bench_http(out, args.jobs) if args.what == "http" else bench_gate(out, args.repeat)
    result["load_before_after"] = os.getloadavg()
    (out / f"{args.what}.json").write_text(json.dumps(result, indent=2), encoding="utf-8")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

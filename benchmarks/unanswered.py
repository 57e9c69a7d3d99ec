"""A target that accepts connections and never answers (issue 34, item 9): how long a run of one
service takes before the circuit breaker ends it. Not a test.

    .venv/bin/python benchmarks/unanswered.py <service> [request seconds, default 1]

Serves the hostile suite's ``hang`` mode on 127.0.0.1 and runs ``conformance run --target http``
against it; prints the exit status, the wall time and what the rules ended with. With the breaker
at its default of 3, a run ends within about three request bounds plus start-up.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.hostile.server import hostile_server  # noqa: E402  (the project root, put on the path above)


def main(service: str, request_seconds: str = "1") -> None:
    report = Path(tempfile.mkdtemp(prefix="unanswered-"))
    with hostile_server("hang") as url:
        env = {**os.environ, "CONFORMANCE_REQUEST_SECONDS": request_seconds,
               f"CONFORMANCE_{service.upper()}_BASE_URL": url, f"CONFORMANCE_{service.upper()}_API_KEY": "k",
               "CONFORMANCE_ALLOW": "spend,write", "CONFORMANCE_SPEND_BUDGET": "1000000"}
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "conformance", "run", "--service", service, "--target", "http",
                               "--no-allure", "--report-dir", str(report)],
                              env=env, capture_output=True, text=True, timeout=900, check=False)
        print(f"{service}: exit {proc.returncode} in {time.perf_counter() - started:.1f} s")
    rules = json.loads((report / "summary.json").read_text())["services"][service]["rules"]
    ends = collections.Counter((r["status"], r["message"].split(":", 1)[0][:50]) for r in rules)
    for (status, why), count in ends.most_common():
        print(f"  {count:4} {status:8} {why}")


if __name__ == "__main__":
    main(*sys.argv[1:3])

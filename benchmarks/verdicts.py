"""Verdicts rule by rule, on every target: the proof a refactor changed no verdict.

    python benchmarks/verdicts.py save FILE [--service ID ...]   # sim, http (against serve), replay
    python benchmarks/verdicts.py diff OLD NEW

``save`` runs ``conformance run`` on the simulators, over HTTP against ``conformance serve`` (one
served simulator per service, on a free port) and on replay of the committed cassettes, and writes
``{target: {rule id: status}}``. ``diff`` prints every rule whose status differs, and exits 1 if any.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "conformance"]


def _statuses(report: Path) -> dict[str, str]:
    summary = json.loads((report / "summary.json").read_text())
    return {rule["id"]: rule["status"] for service in summary["services"].values() for rule in service["rules"]}


def _run(target: str, services: list[str], env: dict[str, str], where: Path) -> dict[str, str]:
    argv = [*CLI, "run", "--target", target, "--no-allure", "--report-dir", str(where)]
    for service in services:
        argv += ["--service", service]
    subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return _statuses(where)


def _over_http(service: str, where: Path) -> dict[str, str]:
    # a fast clock (the exports carry the matching CONFORMANCE_TIME_SCALE): waits are simulated time
    served = subprocess.Popen([*CLI, "serve", service, "--port", "0", "--clock-rate", "100"], cwd=ROOT,
                              stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        env = dict(os.environ)
        assert served.stdout is not None
        for line in served.stdout:  # the export lines end with CONFORMANCE_ALLOW
            if line.startswith("export "):
                name, _, value = line[len("export "):].strip().partition("=")
                env[name] = value.strip("'\"")
                if name == "CONFORMANCE_ALLOW":
                    break
        return _run("http", [service], env, where)
    finally:
        os.killpg(served.pid, signal.SIGTERM)
        served.wait(timeout=10)


def save(out: Path, services: list[str]) -> None:
    from conformance.layout import available_services

    services = services or available_services()
    with tempfile.TemporaryDirectory() as tmp:
        verdicts = {"sim": _run("sim", services, dict(os.environ), Path(tmp, "sim")),
                    "replay": _run("replay", services, dict(os.environ), Path(tmp, "replay")),
                    "http": {}}
        for service in services:
            verdicts["http"].update(_over_http(service, Path(tmp, f"http-{service}")))
    out.write_text(json.dumps(verdicts, indent=1, sort_keys=True))
    for target, statuses in verdicts.items():
        print(f"{target}: {len(statuses)} rules, " + ", ".join(
            f"{s} {sum(v == s for v in statuses.values())}" for s in sorted(set(statuses.values()))))


def diff(old: Path, new: Path) -> int:
    before, after = json.loads(old.read_text()), json.loads(new.read_text())
    changed = 0
    for target in sorted(set(before) | set(after)):
        a, b = before.get(target, {}), after.get(target, {})
        for rule in sorted(set(a) | set(b)):
            if a.get(rule) != b.get(rule):
                changed += 1
                print(f"{target:7} {rule}: {a.get(rule)} -> {b.get(rule)}")
    print(f"{changed} verdicts differ")
    return 1 if changed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("save")
    s.add_argument("out", type=Path)
    s.add_argument("--service", action="append", default=[])
    d = sub.add_parser("diff")
    d.add_argument("old", type=Path)
    d.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.command == "save":
        save(args.out, args.service)
        return 0
    return diff(args.old, args.new)


if __name__ == "__main__":
    raise SystemExit(main())

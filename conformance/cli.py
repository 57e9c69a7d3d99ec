"""The ``conformance`` command: run, serve, selftest, rules, env, report.

Usage errors and harness errors end with one clear line and exit status 2; a contract
violation found by ``run`` ends with status 1; a traceback is always a bug.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from conformance.errors import HarnessError, UsageError, did_you_mean
from conformance.settings import RECORD_MODES

if TYPE_CHECKING:
    from conformance.discovery import Proposal

__all__ = ["main"]

SUITES = Path(__file__).resolve().parent / "suites"


def _apply_path_options(options: list[str], services: list[str]) -> None:
    """``--option NAME=VALUE``: a path setting (OpenAPI server variable) for every selected
    service that has it, through the same environment variable ``conformance env`` lists."""
    from conformance.contract import load_contract
    from conformance.settings import env_name

    for option in options:
        name, sep, value = option.partition("=")
        if not sep or not name:
            raise UsageError(f"--option takes NAME=VALUE, got {option!r}")
        owners = [s for s in services if name in load_contract(s).server_variables()]
        if not owners:
            known = sorted({v for s in services for v in load_contract(s).server_variables()})
            raise UsageError(f"no selected service has a path setting {name!r}; known: {', '.join(known) or 'none'}")
        for service in owners:
            os.environ[env_name(service, name.upper())] = value


def _discover_for(service: str) -> list[Proposal]:
    """The proposals for ``service`` from its http target (base URL and credentials from the
    environment); a target that cannot be reached is one line, exit 2."""
    from conformance.contract import load_contract
    from conformance.discovery import discover
    from conformance.settings import RunSettings
    from conformance.targets import make_target

    target = make_target(load_contract(service), RunSettings.from_env(target="http"))
    target.base_url()  # a missing or malformed base URL: one line, now
    return list(discover(target.contract, target))


def _discover(args: argparse.Namespace) -> int:
    """`conformance discover --service X`: export lines for every setting it can derive."""
    from conformance.discovery import export_lines
    from conformance.settings import env_name

    for service in args.service:
        proposals = _discover_for(service)
        print("\n".join(export_lines(service, os.environ.get(env_name(service, "BASE_URL"), ""),
                                      proposals)))
    return 0


def _apply_discovery(services: list[str]) -> None:
    """`run --discover`: the same proposals put into this run's environment (the user's settings
    win); summary.json and the Allure environment name what was discovered."""
    from conformance.discovery import apply

    for service in services:
        names = apply(service, _discover_for(service))
        print(f"conformance: {service}: discovered {', '.join(names) or 'nothing'} "
              "(`conformance discover` shows where from)", file=sys.stderr)


def _run(args: argparse.Namespace) -> int:
    from conformance import interrupts

    interrupts.checkpoint("imports")
    import pytest

    from conformance.contract import load_contract
    from conformance.contract.loader import available_services
    from conformance.services import fault_decorator, faults_for
    from conformance.settings import RunSettings

    # Validate up front so a typo is one line, not a pytest collection error.
    settings = RunSettings.from_env(target=args.target, profile=args.profile,
                                    record=args.record or None, record_mode=args.record_mode, fault=args.fault,
                                    allow=frozenset(args.allow or ()) or None)
    from conformance.runner import collect_cases
    from conformance.settings import MinChecked

    if args.min_checked is not None:
        MinChecked.parse(args.min_checked)  # a bad floor: one line, now
    elif os.environ.get("CONFORMANCE_MIN_CHECKED"):
        MinChecked.parse(os.environ["CONFORMANCE_MIN_CHECKED"], "CONFORMANCE_MIN_CHECKED")
    for service in args.service or available_services():
        collect_cases(load_contract(service))  # a bad contract or unknown check: one line, now
    _apply_path_options(args.option or [], args.service or available_services())
    if args.fault:
        if not args.service:  # a fault belongs to one service's simulator: run just those
            args.service = [s for s in available_services()
                            if any(f.name == args.fault for f in faults_for(s))]
            if not args.service:
                every = [f.name for s in available_services() for f in faults_for(s)]
                raise UsageError(f"no service has a fault named '{args.fault}'{did_you_mean(args.fault, every)}")
        for service in args.service:
            fault_decorator(service, args.fault)
    if settings.target == "http":
        from conformance.settings import env_name

        missing = [env_name(s, "BASE_URL") for s in args.service or available_services()
                   if not os.environ.get(env_name(s, "BASE_URL"))]
        if missing:
            raise UsageError(f"target http needs {', '.join(missing)} (or pick services with --service); "
                             "`conformance env` lists every variable")
        from conformance.targets import make_target

        for service in args.service or available_services():
            make_target(load_contract(service), settings).base_url()  # a malformed URL: one line, now
        if args.discover:
            _apply_discovery(args.service or available_services())
    elif args.discover:
        raise UsageError("--discover reads settings from a live target: use it with --target http")
    report_dir = Path(args.report_dir) if args.report_dir else _new_run_dir(Path("reports"))
    argv = [str(SUITES), "-p", "no:cacheprovider", "-q", "-o", "console_output_style=classic",
            "--rootdir", str(SUITES), "-c", str(SUITES / "pytest.ini"),
            "--report-dir", str(report_dir), "--cassette-dir", args.cassette_dir,
            # JUnit XML for CI systems that read it (one testcase per rule, named by rule id).
            "--junitxml", str(report_dir / "junit.xml"), "-o", "junit_suite_name=conformance",
            "--target", settings.target, "--profile", settings.profile]
    if not args.no_allure:
        argv += ["--alluredir", str(report_dir / "allure-results"), "--clean-alluredir"]
    for service in args.service or []:
        argv += ["--service", service]
    if settings.record:
        argv += ["--record-mode", settings.record_mode]
    if args.fault:
        argv += ["--fault", args.fault]
    if args.k:
        argv += ["-k", args.k]
    if args.m:
        argv += ["-m", args.m]
    if args.verbose:
        argv += ["--conformance-every-rule"]
    for allowance in sorted(settings.allow):
        argv += ["--allow", allowance]
    argv += _jobs_argv(args.jobs)
    if report_dir.exists() and not report_dir.is_dir():
        raise HarnessError(f"--report-dir {report_dir} is not a directory")
    if args.min_checked is not None:
        argv += ["--min-checked", args.min_checked]
    from conformance.reporting.lock import report_dir_lock

    with report_dir_lock(report_dir):
        # The exit status and the reader read this run's files only: none of the last run's may stay.
        for stale in ("summary.json", "triage.md"):
            try:
                (report_dir / stale).unlink(missing_ok=True)
            except OSError as exc:
                raise HarnessError(f"cannot clear {report_dir / stale}: {exc.strerror}") from None
        try:
            code = int(pytest.main(argv))
        except KeyboardInterrupt:  # landed where pytest does not catch it (its session's end)
            code = 2
        interrupts.stop_raising()
        interrupts.checkpoint("verdict")
        signal_name = interrupts.received()
        if signal_name:
            # Decided by the signal, not by what pytest made of it: never 0, never "failed".
            _mark_interrupted(report_dir, signal_name)
            print(f"conformance: interrupted by {signal_name}; {report_dir / 'summary.json'} holds what finished",
                  file=sys.stderr)
            return interrupts.exit_status() or 130
        status = _exit_status(report_dir, code, allow_skips=args.allow_skips)
        if status != 130:
            _keep_history(report_dir)
        if not args.report_dir and status != 130 and (report_dir / "summary.json").is_file():
            _point_latest(report_dir)
        return status


def _mark_interrupted(report_dir: Path, signal_name: str) -> None:
    """summary.json says the run was interrupted, even when the signal came after it was written."""
    import json

    from conformance.reporting.summary import write_atomic

    path = report_dir / "summary.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # nothing was written (interrupted before the first rule ended): nothing to mark
    if isinstance(data, dict) and data.get("interrupted") != signal_name:
        data["interrupted"] = signal_name
        write_atomic(path, json.dumps(data, indent=2))


def _keep_history(report_dir: Path) -> None:
    """Every finished run appends its line to the Allure history beside the runs
    (reports/history.jsonl for reports/runs/<run>), report or not."""
    from conformance.reporting.history import append_run

    base = report_dir.parent.parent if report_dir.parent.name == "runs" else report_dir.parent
    try:
        append_run(report_dir, base / "history.jsonl")
    except HarnessError as exc:  # the run's verdict stands; only its history line is missing
        print(f"conformance: {exc}", file=sys.stderr)


def _jobs_argv(jobs: int) -> list[str]:
    """--jobs N: N pytest-xdist workers, one service's rules in one worker (conformance/parallel.py)."""
    if jobs < 1:
        raise UsageError(f"--jobs must be 1 or more, got {jobs}")
    return ["-n", str(jobs)] if jobs > 1 else []


def _new_run_dir(base: Path) -> Path:
    """Each run writes to its own directory (UTC time + process id), so two runs never mix."""
    import datetime

    # Microseconds too: two runs in one second must still sort in the order they started
    # (triage and `conformance report` take the previous run by name order).
    now = datetime.datetime.now(datetime.timezone.utc)
    stamp = now.strftime("%Y%m%dT%H%M%S") + f"{now.microsecond:06d}Z"
    run_dir = base / "runs" / f"{stamp}-{os.getpid()}"
    try:
        run_dir.mkdir(parents=True, exist_ok=False)
    except OSError as exc:
        raise HarnessError(f"cannot create the run directory {run_dir}: {exc.strerror}") from None
    return run_dir


def _point_latest(run_dir: Path) -> None:
    """reports/latest -> the last run that finished (a symlink swapped in atomically)."""
    latest = run_dir.parent.parent / "latest"
    tmp = latest.with_name(f".latest.{os.getpid()}")
    try:
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(Path("runs") / run_dir.name)
        os.replace(tmp, latest)
    except OSError as exc:
        print(f"conformance: could not point {latest} at {run_dir}: {exc.strerror}", file=sys.stderr)


# Skip kinds a run may end with and still be green: the target's data or nature, not missing set-up.
_ACCEPTED_SKIPS = {"not-checkable-on-target", "not-exercised", "credential-missing", "unchecked", "gap-observed",
                   "needs-allowance", "depends-on-gap"}


def _exit_status(report_dir: Path, pytest_code: int, *, allow_skips: bool = False) -> int:
    """0: every selected rule ran and passed, or was skipped for an accepted reason.
    1: the target broke a rule. 2: harness errors. 3: incomplete (nothing checked, fewer checked
    than the --min-checked floor, the run deadline reached, cassettes or required credentials
    missing, rate-limited). 130: interrupted (143 for SIGTERM, decided in _run). One line says why."""
    import json

    try:
        summary = json.loads((report_dir / "summary.json").read_text(encoding="utf-8"))
        counts = summary["counts"]
    except (OSError, ValueError, KeyError, TypeError):
        if pytest_code == 5:
            print("conformance: no rule was selected (check --service, -k and -m)", file=sys.stderr)
        return 0 if pytest_code == 0 else (130 if pytest_code == 2 else 2)
    if counts.get("interrupted") or pytest_code == 2 or summary.get("interrupted"):
        # Before failures: a run stopped half-way is not a verdict on the target.
        print("conformance: interrupted; the summary holds what finished", file=sys.stderr)
        return 130
    if counts.get("failed"):
        return 1
    deadline = (summary.get("skip_kinds") or {}).get("run-deadline")
    if deadline:
        print(f"conformance: incomplete run: the run deadline (CONFORMANCE_RUN_SECONDS) was reached; "
              f"{deadline} rules not run", file=sys.stderr)
        return 3
    if counts.get("error") or pytest_code not in (0, 1):
        print(f"conformance: {counts.get('error', 0)} harness errors (not target failures): see triage.md",
              file=sys.stderr)
        return 2
    if allow_skips:
        return 0
    checked = summary.get("checked") or {}
    if checked.get("below_floor"):
        print(f"conformance: incomplete run: {checked['below_floor']}", file=sys.stderr)
        return 3
    why = []
    if not counts.get("passed"):
        why.append("no rule was checked (every selected rule skipped)")
    missing = {s: names for s, names in (summary.get("missing_required") or {}).items() if names}
    if missing:
        why.append("required credentials missing: " + "; ".join(f"{s}: {', '.join(n)}" for s, n in missing.items()))
    other = {k: n for k, n in (summary.get("skip_kinds") or {}).items() if k not in _ACCEPTED_SKIPS}
    if other:
        why.append("skipped: " + ", ".join(f"{n} {k}" for k, n in sorted(other.items())))
    if why:
        print(f"conformance: incomplete run: {'; '.join(why)} (--allow-skips accepts it)", file=sys.stderr)
        return 3
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from conformance.contract import load_contract
    from conformance.services import create_simulator, fault_decorator
    from conformance.simulators.asgi import UVICORN_OPTIONS, SimulatorApp
    from conformance.simulators.base import WallClock
    from conformance.simulators.sandbox import bind, export_lines

    if not 0 <= args.port <= 65535:
        raise HarnessError(f"port {args.port} is out of range")
    if not math.isfinite(args.clock_rate) or args.clock_rate <= 0:
        raise HarnessError(f"--clock-rate must be a finite number above 0, got {args.clock_rate}")
    options = {}
    for item in args.option or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise HarnessError(f"--option takes NAME=VALUE, got '{item}'")
        if not value:  # an empty path segment would make every path 404
            raise HarnessError(f"--option {name} needs a value, got '{item}'")
        if name == "clock":
            raise HarnessError("--option clock is not a simulator option; use --clock-rate")
        options[name] = value
    sim = create_simulator(args.service, WallClock(rate=args.clock_rate), **options)
    if args.fault:
        sim = fault_decorator(args.service, args.fault)(sim)
    # Bound before anything is printed: a taken port is one line, and no credential is shown for it.
    sock = bind(args.host, args.port)
    port = sock.getsockname()[1]
    base_url = f"http://{args.host}:{port}"
    path_settings = {k: v for k, v in options.items() if k in load_contract(args.service).server_variables()}
    with_fault = f" with {args.fault}" if args.fault else ""
    print(f"# serving the {args.service} simulator{with_fault} on {base_url} (clock rate {args.clock_rate}); "
          "paste these lines into a shell, then `conformance run --target http "
          f"--service {args.service}`:", flush=True)
    for line in export_lines(args.service, sim.credentials, base_url, path_settings=path_settings,
                             clock_rate=args.clock_rate):
        print(line, flush=True)
    config = uvicorn.Config(SimulatorApp(sim), host=args.host, port=port, log_level=args.log_level,
                            **UVICORN_OPTIONS)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def _selftest(args: argparse.Namespace) -> int:
    from conformance.contract.loader import available_services
    from conformance.selftest import kill_matrix
    from conformance.services import faults_for, variants_for

    services = args.service or available_services()
    if args.list:
        for service in services:
            for item in faults_for(service):
                print(f"{service:14} {item.name:40} breaks {item.breaks}: {item.description}")
            for allowed in variants_for(service):
                print(f"{service:14} {allowed.name:40} allowed variant: {allowed.description}")
        return 0
    results = kill_matrix(services, profile=args.profile, workers=args.workers, everything=args.everything)
    bad = 0
    print(f"{'service':14} {'fault':40} {'result':8} rules that caught it")
    for r in results:
        if r.fault is None:
            status = "clean" if not r.caught and not r.errors else "DIRTY"
        elif r.variant:
            status = "allowed" if not r.caught and not r.errors else "REFUSED"
        else:
            status = "caught" if r.caught and r.breaks in r.caught_by else ("partial" if r.caught else "MISSED")
        bad += status in ("DIRTY", "MISSED", "partial", "REFUSED") or bool(r.errors)
        caught = ", ".join(sorted(set(r.caught_by))) or "-"
        print(f"{r.service:14} {r.fault or '(none)':40} {status:8} {caught}")
        for err in r.errors:
            print(f"{'':14} {'':40} {'error':8} {err}")
    faults = [r for r in results if r.fault and not r.variant]
    variants = [r for r in results if r.variant]
    killed = sum(1 for r in faults if r.caught)
    print(f"\nkill matrix: {killed}/{len(faults)} faults caught; clean simulators: "
          f"{sum(1 for r in results if r.fault is None and not r.caught)}/{len(services)} pass; "
          f"allowed variants: {sum(1 for r in variants if not r.caught and not r.errors)}/{len(variants)} pass")
    return 1 if bad else 0


def _coverage(args: argparse.Namespace) -> int:
    """Per service: the document's statements, how many rules cover, gaps record, conflicts hold
    or are not checkable; then every statement not covered by a rule, with how it is accounted."""
    from conformance.contract.loader import _read_yaml, available_services, docs_dir, load_index, schemas_dir
    from conformance.contract.statements import skeleton, units_for

    services = args.service or available_services()
    if args.skeleton:
        for service in services:
            cat = _read_yaml(schemas_dir() / service / "rules.yaml")
            print(skeleton(service, units_for(service, docs_dir() / cat["document"], cat["part"])), end="")
        return 0
    totals: dict[str, int] = {}
    rows = []
    for service in services:
        index = load_index(service)
        counts = {"statements": len(index)}
        for statement in index:
            counts[statement.accounting.status] = counts.get(statement.accounting.status, 0) + 1
        for key, value in counts.items():
            totals[key] = totals.get(key, 0) + value
        rows.append((service, counts, index))
    keys = ("statements", "covered", "gap", "conflict", "not-checkable")
    print("| service | " + " | ".join(keys) + " |\n|---" * 1 + "|---" * len(keys) + "|")
    for service, counts, _ in rows + [("all", totals, [])]:
        print(f"| {service} | " + " | ".join(str(counts.get(k, 0)) for k in keys) + " |")
    if args.uncovered:
        for service, _, index in rows:
            print(f"\n# {service}: statements no rule covers")
            for statement in index:
                a = statement.accounting
                if a.status != "covered":
                    why = a.not_checkable or ", ".join(a.gaps + a.conflicts)
                    print(f"  {statement.unit.id:28} {a.status:13} {statement.unit.text[:70]!r} -- {why}")
    return 0


def _rules(args: argparse.Namespace) -> int:
    from conformance.contract import load_contract
    from conformance.contract.loader import available_services
    from conformance.runner import collect_cases

    if args.coverage or args.skeleton:
        return _coverage(args)
    for service in args.service or available_services():
        contract = load_contract(service)
        checked = 0
        print(f"# {service}: {contract.title}")
        generic = standard = 0
        for case in collect_cases(contract):
            rule, check = case.rule, case.check
            checked += check is not None
            generic += check is not None and check.core
            name = check.name if check else "UNCHECKED"
            basis = f" [{rule.standard}]" if rule.standard else ""
            standard += bool(rule.standard)
            print(f"  {rule.id:58} {rule.kind:10} {name:28} {rule.source.text()}{basis}")
        for gap in contract.gaps:
            print(f"  {gap.id:58} {'gap':10} {'':28} {gap.statement}")
        for conflict in contract.conflicts:
            print(f"  {conflict.id:58} {'conflict':10} {'':28} {conflict.statement}")
        print(f"  -- {len(contract.rules)} rules ({checked} with a check, {generic} of them by a core check, "
              f"{standard} resting on a standard), "
              f"{len(contract.gaps)} gaps, "
              f"{len(contract.conflicts)} conflicts\n")
    return 0


def _triage(args: argparse.Namespace) -> int:
    """What changed between two runs; exit 1 when there are new failures."""
    import json

    from conformance.reporting.merge import merge_summaries
    from conformance.reporting.triage import compare, finished_runs, load_summary, previous_run

    if args.window < 2:
        raise UsageError(f"--window must be 2 or more (runs compared), got {args.window}")
    earlier: list[dict[str, object]] = []
    if args.base and args.current:
        base_dir, current_dirs = Path(args.base), [Path(c) for c in args.current]
    elif args.base or args.current:
        raise HarnessError("name both runs (BASE CURRENT) or neither (the last two under reports/runs)")
    else:
        base_dir, last = previous_run(Path(args.reports))
        current_dirs = [last]
        # The runs before the base, for telling a flaky rule from a new failure.
        earlier = [load_summary(p) for p in finished_runs(Path(args.reports))[:-2][-(args.window - 2):]
                   if args.window > 2]
    # Several CURRENT run directories (CI shards, one per service) are one run, merged.
    current = (load_summary(current_dirs[0]) if len(current_dirs) == 1
               else merge_summaries([(d, load_summary(d)) for d in current_dirs]))
    result = compare(load_summary(base_dir), current, earlier)
    if args.format == "json":
        print(json.dumps(result.as_json(), indent=2))
    else:
        print(f"<!-- base: {base_dir}; current: {', '.join(map(str, current_dirs))} -->")
        print(result.markdown(os.environ.get("CONFORMANCE_DOCS_URL", "")), end="")
    return 1 if result.new_failures else 0


def _report(args: argparse.Namespace) -> int:
    from conformance.reporting.html import build_html
    from conformance.reporting.triage import compare, load_summary, run_before

    dirs = [Path(d) for d in args.report_dir or ["reports/latest"]]
    report_dir = dirs[0] if len(dirs) == 1 else _merge_into_new_run(dirs, Path(args.reports))
    triage_page = None
    base = run_before(report_dir) if (report_dir / "summary.json").is_file() else None
    if base is not None:
        triage_page = (f"Base: `{base.name}`; current: `{report_dir.resolve().name}`\n\n"
                       + compare(load_summary(base), load_summary(report_dir)).markdown(
                           os.environ.get("CONFORMANCE_DOCS_URL", "")))
        # The same page on its own, beside the run (the report shows it under Global Attachments).
        (report_dir / "triage-since-previous.md").write_text(triage_page, encoding="utf-8")
    history = None if args.no_history else Path(args.history)
    print(f"report: {build_html(report_dir, history=history, triage_markdown=triage_page)}")
    if history is not None:
        print(f"history: {history} (keep it between runs: trends, new failed and fixed come from it)")
    if args.exit_status:  # the report is built either way; the status is the run's (tox -e report, CI)
        return _exit_status(report_dir, 0)
    return 0


def _merge_into_new_run(sources: list[Path], reports: Path) -> Path:
    """Several run directories (CI shards) written as one new run under reports/runs/, which
    reports/latest then points at: triage and report read it like any run."""
    from conformance.reporting.merge import merge_runs

    for source in sources:
        if not (source / "summary.json").is_file():
            raise UsageError(f"{source} is not a finished run directory (no summary.json)")
    run_dir = _new_run_dir(reports)
    try:
        merge_runs(sources, run_dir)
    except BaseException:
        import shutil

        shutil.rmtree(run_dir, ignore_errors=True)  # no half-merged run for triage to pick up
        raise
    _point_latest(run_dir)
    _keep_history(run_dir)  # the merged run is one run: its one history line
    return run_dir


def _merge(args: argparse.Namespace) -> int:
    print(f"merged: {_merge_into_new_run([Path(d) for d in args.runs], Path(args.reports))}")
    return 0


def _env(args: argparse.Namespace) -> int:
    from conformance.contract import load_contract
    from conformance.contract.loader import available_services
    from conformance.settings import env_name, run_variables

    print("# run-wide (value in force)")
    for name, value, description in run_variables():
        print(f"{name:48} {value or '(unset)'}: {description}")
    print()
    for service in args.service or available_services():
        contract = load_contract(service)
        print(f"# {service}: {contract.title}")
        # One entry per variable: a credential that is also a path setting (marketplace's AUTH_URL)
        # is described once, with both ways to set it.
        paths = {env_name(service, n.upper()): (n, v, d) for n, (v, d) in contract.server_variables().items()}
        print(f"{env_name(service, 'BASE_URL'):48} base URL for --target http")
        for cred in contract.settings.get("credentials", []):
            optional = " (optional)" if cred.get("optional") else ""
            variable = env_name(service, cred["name"])
            also = ""
            if variable in paths:
                name, value, _description = paths.pop(variable)
                also = f"; path setting, now {value!r}, also --option {name}=..."
            print(f"{variable:48} {cred['statement']}{optional}{also}")
        rates = contract.openapi.get("x-client-rate-limits") or []
        if rates:
            documented = ", ".join(f"{r['requests']} requests per {r['per_seconds']} s" for r in rates)
            print(f"{env_name(service, 'RATE_SCALE'):48} for --target http: times the documented client rate "
                  f"({documented}) a sandbox allows (default 1; CONFORMANCE_TIME_SCALE also divides waits)")
        for variable, (name, value, description) in sorted(paths.items()):
            print(f"{variable:48} path setting (now {value!r}; also --option {name}=...)"
                  f"{': ' + description if description else ''}")
        print()
    return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("conformance")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Defaults in help, as schemathesis shows them; not for options without one (None, off)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if action.default in (None, False) or "default" in text:
            return text
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    """argparse with defaults in help and "did you mean" for a mistyped subcommand or choice
    (Python 3.14's suggest_on_error, for 3.11)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> NoReturn:
        import re

        wrong = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if wrong:
            message += did_you_mean(wrong.group(1), re.findall(r"'([^']*)'", wrong.group(2)))
        super().error(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="conformance", description=__doc__)
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run the conformance suite against a target")
    # Grouped as schemathesis groups its options: what to check, against what, what to keep.
    where = run.add_argument_group("target")
    select = run.add_argument_group("selection")
    record = run.add_argument_group("cassettes")
    output = run.add_argument_group("output and exit status")
    select.add_argument("--service", action="append", help="service id (repeatable; default all)")
    where.add_argument("--target", choices=("sim", "http", "replay"), default=None,
                       help="sim (default), http or replay; or set CONFORMANCE_TARGET")
    where.add_argument("--profile", choices=("gate", "nightly"), default=None,
                       help="gate (default: derandomized, bounded) or nightly (deep, random); or CONFORMANCE_PROFILE")
    record.add_argument("--record", action="store_true", help="record cassettes while running (--record-mode rewrite)")
    record.add_argument("--record-mode", choices=RECORD_MODES, default=None,
                        help="pytest-recording's modes: none (default), once (only missing cassettes), new_episodes, "
                             "all, rewrite")
    where.add_argument("--fault", help="inject a named fault into the simulator")
    where.add_argument("--option", action="append", metavar="NAME=VALUE",
                       help="a path setting the documents do not show (see `conformance env`), "
                            "e.g. shop_resource=shops")
    output.add_argument("--report-dir", default=None,
                        help="where to write (default: new reports/runs/<time>-<pid>/; reports/latest points there)")
    record.add_argument("--cassette-dir", default="cassettes", help="where cassettes are read and written")
    output.add_argument("--no-allure", action="store_true", help="do not write allure-results")
    select.add_argument("-k", metavar="EXPR", help="only rules whose id matches this pytest -k expression")
    select.add_argument("-m", metavar="MARKEXPR",
                        help="only rules whose markers match this pytest -m expression: service ids, rule "
                             "kinds, document or standard (e.g. -m 'tokenrisk and limit')")
    where.add_argument("-n", "--jobs", type=int, default=1, metavar="N",
                       help="check services side by side in N worker processes (pytest-xdist); one service's rules "
                            "run in one worker in order; one merged report (default 1)")
    where.add_argument("--allow", action="append", choices=("spend", "write"), default=None,
                       help="on --target http, allow rules that spend credits or write vendor data (repeatable)")
    output.add_argument("-v", "--verbose", action="store_true",
                        help="list every rule in the summary (default: only what did not pass, and the totals)")
    output.add_argument("--min-checked", default=None, metavar="SHARE",
                        help="the least share of selected rules that must be checked (passed or failed), e.g. 80%% "
                             "or a count such as 30; below it the run is incomplete (exit 3). Default: by profile "
                             "(CONFORMANCE_MIN_CHECKED)")
    output.add_argument("--allow-skips", action="store_true",
                        help="exit 0 even when rules were not checked (missing cassettes, credentials, rate limits)")
    where.add_argument("--discover", action="store_true",
                       help="with --target http: fill unset target settings from the target's answers to documented "
                            "reads first (`conformance discover`); settings you give win")
    run.set_defaults(func=_run)

    disc = sub.add_parser("discover", help="propose a target's settings from its answers to documented reads "
                                           "(prints export lines)")
    disc.add_argument("--service", action="append", required=True, help="service id (repeatable)")
    disc.set_defaults(func=_discover)

    from conformance.contract.loader import available_services

    serve = sub.add_parser("serve", help="serve a simulator over HTTP (127.0.0.1 by default)",
                           description="Serve a service's simulator and print the `export` lines (credentials, "
                                       "base URL, CONFORMANCE_ALLOW) a harness run or client code reads.")
    serve.add_argument("service", help=f"one of: {', '.join(available_services())}")
    serve.add_argument("--port", type=int, default=8080,
                       help="port to listen on; 0: any free port (the printed URL names it)")
    serve.add_argument("--fault", default=None,
                       help="serve with a named fault or allowed variant (`conformance selftest --list`)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--clock-rate", type=float, default=1.0,
                       help="simulated seconds per real second (pair with CONFORMANCE_TIME_SCALE)")
    serve.add_argument("--log-level", default="warning",
                       choices=("critical", "error", "warning", "info", "debug", "trace"), help="uvicorn's log level")
    serve.add_argument("--option", action="append", metavar="NAME=VALUE",
                       help="simulator setting, e.g. product=shodan for scanning's first path segment")
    serve.set_defaults(func=_serve)

    selftest = sub.add_parser("selftest", help="kill matrix: the suite against every named fault")
    selftest.add_argument("--service", action="append")
    selftest.add_argument("--profile", choices=("gate", "nightly"), default="gate", help="hypothesis profile")
    selftest.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes running faults")
    selftest.add_argument("--list", action="store_true", help="list the faults and exit")
    selftest.add_argument("--everything", action="store_true",
                          help="run every rule under each fault (default: only the rule it breaks)")
    selftest.set_defaults(func=_selftest)

    rules = sub.add_parser("rules", help="the rule catalogue with each rule's check, gaps and conflicts")
    rules.add_argument("--service", action="append")
    rules.add_argument("--coverage", action="store_true",
                       help="the statement index: per service, statements covered, gaps, not checkable")
    rules.add_argument("--uncovered", action="store_true",
                       help="with --coverage: list every statement no rule covers, with how it is accounted")
    rules.add_argument("--skeleton", action="store_true",
                       help="print an empty statements.yaml (every sentence and row of the service's part)")
    rules.set_defaults(func=_rules)

    triage = sub.add_parser("triage", help="what changed between two runs (new failures, fixed, skipped ...)")
    triage.add_argument("base", nargs="?", help="run directory or summary.json (default: the run before the last)")
    triage.add_argument("current", nargs="*",
                        help="run directory or summary.json (default: the last run); several (CI shards, one per "
                             "service) are merged into one run")
    triage.add_argument("--reports", default="reports", help="where runs/ lives when BASE and CURRENT are omitted")
    triage.add_argument("--format", choices=("markdown", "json"), default="markdown")
    triage.add_argument("--window", type=int, default=5,
                        help="runs read under --reports to tell flaky rules (flipped twice or more) apart (default 5)")
    triage.set_defaults(func=_triage)

    report = sub.add_parser("report", help="build the single-file Allure HTML report (needs npx)")
    report.add_argument("--report-dir", action="append", default=None,
                        help="a run directory (default: reports/latest); repeated (CI shards): merged first into a "
                             "new run under --reports")
    report.add_argument("--reports", default="reports", help="where runs/ lives, for a merged run (default: reports)")
    report.add_argument("--history", default="reports/history.jsonl",
                        help="Allure history file kept across runs (default: reports/history.jsonl)")
    report.add_argument("--no-history", action="store_true", help="build without history")
    report.add_argument("--exit-status", action="store_true",
                        help="after building, exit with the reported run's status (1 when the target broke a rule)")
    report.set_defaults(func=_report)

    merge = sub.add_parser("merge", help="merge run directories (CI shards, one per service) into one new run")
    merge.add_argument("runs", nargs="+", help="run directories, each with its summary.json")
    merge.add_argument("--reports", default="reports",
                       help="the merged run goes to <reports>/runs/<time>-<pid>/, reports/latest points there")
    merge.set_defaults(func=_merge)

    env = sub.add_parser("env", help="the run-wide environment variables with the value in force, and those each "
                                      "service's http target reads")
    env.add_argument("--service", action="append")
    env.set_defaults(func=_env)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "run":
        from conformance import interrupts

        # First thing: a signal during the imports that follow is recorded like any other.
        interrupts.install()
    try:
        return int(args.func(args))
    except HarnessError as exc:
        print(f"conformance: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        from conformance import interrupts

        print(f"conformance: interrupted by {interrupts.received() or 'SIGINT'} before any rule ran; nothing written",
              file=sys.stderr)
        return interrupts.exit_status() or 130
    except BrokenPipeError:  # `conformance env | head`: the reader left; nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())

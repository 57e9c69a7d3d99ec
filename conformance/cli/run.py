"""``conformance run``: the suite under pytest, one run directory, one exit status.

What can be checked before pytest starts is checked first (``preflight``), so a typo is one line;
the verdict is read back from the run's summary.json (``status``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from conformance.cli.env import add_config_options
from conformance.errors import HarnessError, UsageError
from conformance.layout import cassettes_dir
from conformance.settings import RECORD_MODES

if TYPE_CHECKING:
    from conformance.settings import RunSettings

__all__ = ["SUITES", "pytest_argv", "register", "run"]

SUITES = Path(__file__).resolve().parent.parent / "suites"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run_parser = sub.add_parser("run", help="run the conformance suite against a target")
    # Grouped as schemathesis groups its options: what to check, against what, what to keep.
    where = run_parser.add_argument_group("target")
    select = run_parser.add_argument_group("selection")
    record = run_parser.add_argument_group("cassettes")
    output = run_parser.add_argument_group("output and exit status")
    select.add_argument("--service", action="append", help="service id (repeatable; default all)")
    where.add_argument("--target", choices=("sim", "http", "replay"), default=None,
                       help="sim (default), http or replay; or set CONFORMANCE_TARGET")
    add_config_options(where)
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
    record.add_argument("--cassette-dir", default=None,
                        help="where cassettes are read and written (default: the project's cassettes/, found "
                             "beside its schemas/ wherever the command runs from)")
    output.add_argument("--no-allure", action="store_true", help="do not write allure-results")
    select.add_argument("-k", metavar="EXPR", help="only rules whose id matches this pytest -k expression")
    select.add_argument("-m", metavar="MARKEXPR",
                        help="only rules whose markers match this pytest -m expression: service ids, rule "
                             "kinds, document or standard (e.g. -m 'presentations and limit')")
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
    where.add_argument("--seed", type=int, default=None, metavar="N",
                       help="seed the nightly profile's random generation: the same N draws the same examples (a "
                            "nightly run without one picks one and prints it); or CONFORMANCE_SEED")
    output.add_argument("-x", "--exitfirst", action="store_const", const=1, dest="max_failures",
                        help="stop at the first failing rule (the rest are reported not run)")
    output.add_argument("--max-failures", type=int, default=None, metavar="N",
                        help="stop after N failing rules (the rest are reported not run)")
    output.add_argument("-q", "--quiet", action="store_true",
                        help="no progress lines and no failure blocks: the per-rule summary and the verdict only")
    output.add_argument("--no-color", action="store_true", help="no colour in the output (NO_COLOR also works)")
    where.add_argument("--discover", action="store_true",
                       help="with --target http: fill unset target settings from the target's answers to documented "
                            "reads first (`conformance discover`); settings you give win")
    run_parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import gc

    from conformance import interrupts

    # Start-up (the imports, every selected contract loaded and bound to its checks) builds a few
    # hundred thousand objects that live as long as the run, and the collector's full passes, run
    # each time the heap grew by a quarter, walked them again and again: about 0.3 s of a run's CPU
    # (issue 31). What start-up drops is freed by reference counting, so the collector waits until
    # it is done.
    collecting = gc.isenabled()
    gc.disable()
    try:
        interrupts.checkpoint("imports")
        import pytest  # noqa: F401  (the heavy import, after the checkpoint a test pauses at)

        from conformance.cli.configfile import configure
        from conformance.cli.preflight import preflight
        from conformance.cli.rundirs import check_report_dir, new_run_dir

        configure(args)  # the configuration file's target fills what the environment leaves unset
        _seed(args)  # after: the file may set the profile
        settings = preflight(args)
    finally:
        # Then kept out of every later pass (gc.freeze: the permanent generation), so the passes
        # the rules' own garbage triggers walk only what the rules made: measured 0.5 s of a 4 s
        # replay and of a 7 s gate.
        gc.freeze()
        if collecting:
            gc.enable()
    # A young-generation pass every 20,000 allocations, not every 700: the simulators build their
    # worlds (social's 27,000 posts and messages) and Hypothesis its examples during the rules, and
    # each early pass walked the new objects again. 0.3-0.5 s of a 7 s gate, 7 MB more at the peak
    # (benchmarks in docs/reference.md); replay, which allocates less, is unchanged.
    threshold = gc.get_threshold()
    gc.set_threshold(_YOUNG_PASS_EVERY, *threshold[1:])
    from conformance.cli.proxy import replayed_session

    try:
        if (code := replayed_session(args, settings.target, args.cassette_dir or settings.cassette_dir)) is not None:
            return code  # a proxy session's cassettes: its traffic re-judged, as `conformance proxy --recheck`
        report_dir = Path(args.report_dir) if args.report_dir else new_run_dir(Path("reports"))
        check_report_dir(report_dir)
        argv = pytest_argv(args, settings, report_dir)
        return _execute(args, argv, report_dir)
    finally:
        gc.unfreeze()  # a run called in process (the harness's tests): what it froze may be freed again
        gc.set_threshold(*threshold)


_YOUNG_PASS_EVERY = 20_000


# pytest plugins installed beside ours that a run never uses. Each one pytest loads is imported
# and its package's assertions rewritten in every run (114 modules, about 1 s of CPU where
# bytecode is not cached, as under PYTHONDONTWRITEBYTECODE): schemathesis and hypothesis are
# used as libraries here, not through their pytest plugins; benchmark and anyio serve other tests.
# unraisableexception collects garbage twice at the session's end (0.8 s) to report what a
# finaliser raised, which a conformance run has no test of its own to blame for.
_UNUSED_PLUGINS = ("-p", "no:benchmark", "-p", "no:anyio", "-p", "no:schemathesis", "-p", "no:unraisableexception")
# Checks raise typed failures and never lean on pytest's assertion introspection, while rewriting
# every module of the plugin's package costs a parse and a compile each (158 modules, about 1 s
# where bytecode is not cached, as under PYTHONDONTWRITEBYTECODE).
_PLAIN_ASSERTS = ("--assert=plain",)


def _seed(args: argparse.Namespace) -> None:
    """--seed, else a nightly run's own random seed: set where the run's settings read it
    (CONFORMANCE_SEED), and printed, so a nightly failure can be drawn again."""
    import os
    import random

    if args.seed is not None:
        os.environ["CONFORMANCE_SEED"] = str(args.seed)
    profile = args.profile or os.environ.get("CONFORMANCE_PROFILE", "gate")
    if profile == "nightly":
        if not os.environ.get("CONFORMANCE_SEED"):
            os.environ["CONFORMANCE_SEED"] = str(random.SystemRandom().randrange(2**32))
        print(f"conformance: nightly seed {os.environ['CONFORMANCE_SEED']} "
              f"(--seed {os.environ['CONFORMANCE_SEED']} draws the same examples)")


def pytest_argv(args: argparse.Namespace, settings: RunSettings, report_dir: Path) -> list[str]:
    """The pytest command line of a run: the suites, this run's files and the selection."""
    argv = [str(SUITES), "-p", "no:cacheprovider", *_UNUSED_PLUGINS, *_PLAIN_ASSERTS, "-q",
            "-o", "console_output_style=classic",
            "--rootdir", str(SUITES), "-c", str(SUITES / "pytest.ini"),
            "--report-dir", str(report_dir), "--cassette-dir", args.cassette_dir or str(cassettes_dir()),
            # JUnit XML for CI systems that read it (one testcase per rule, named by rule id).
            "--junitxml", str(report_dir / "junit.xml"), "-o", "junit_suite_name=conformance",
            "--target", settings.target, "--profile", settings.profile]
    if not args.no_allure:
        argv += ["--alluredir", str(report_dir / "allure-results"), "--clean-alluredir"]
    for service in args.service or []:
        argv += ["--service", service]
    if settings.record:
        argv += ["--record-mode", settings.record_mode]
    argv += _valued(("--fault", args.fault), ("-k", args.k), ("-m", args.m))
    if args.verbose:
        argv += ["--conformance-every-rule"]
    for allowance in sorted(settings.allow):
        argv += ["--allow", allowance]
    argv += _jobs_argv(args.jobs)
    if args.min_checked is not None:
        argv += ["--min-checked", args.min_checked]
    if args.max_failures is not None:
        if args.max_failures < 1:
            raise UsageError(f"--max-failures must be 1 or more, got {args.max_failures}")
        argv += ["--maxfail", str(args.max_failures)]
    if args.quiet:
        argv += ["--conformance-progress", "quiet", "--tb=no"]
    if args.no_color:
        argv += ["--color=no"]
    return argv


def _valued(*options: tuple[str, str | None]) -> list[str]:
    """Each option that was given a value, with it."""
    return [part for name, value in options if value for part in (name, value)]


def _jobs_argv(jobs: int) -> list[str]:
    """--jobs N: N pytest-xdist workers, one service's rules in one worker (conformance/parallel.py)."""
    if jobs < 1:
        raise UsageError(f"--jobs must be 1 or more, got {jobs}")
    return ["-n", str(jobs)] if jobs > 1 else []


def _execute(args: argparse.Namespace, argv: list[str], report_dir: Path) -> int:
    """pytest over the suites, under the report directory's lock; the exit status of the run."""
    from conformance import interrupts
    from conformance.reporting.lock import report_dir_lock

    with report_dir_lock(report_dir):
        _clear_stale(report_dir)
        code = _pytest_main(argv)
        interrupts.stop_raising()
        interrupts.checkpoint("verdict")
        signal_name = interrupts.received()
        if signal_name:
            return _interrupted(report_dir, signal_name)
        return _verdict(args, report_dir, code)


def _clear_stale(report_dir: Path) -> None:
    """The exit status and the reader read this run's files only: none of the last run's may stay."""
    for stale in ("summary.json", "triage.md"):
        try:
            (report_dir / stale).unlink(missing_ok=True)
        except OSError as exc:
            raise HarnessError(f"cannot clear {report_dir / stale}: {exc.strerror}") from None


def _pytest_main(argv: list[str]) -> int:
    import pytest

    try:
        return int(pytest.main(argv))
    except KeyboardInterrupt:  # landed where pytest does not catch it (its session's end)
        return 2


def _interrupted(report_dir: Path, signal_name: str) -> int:
    """Decided by the signal, not by what pytest made of it: never 0, never "failed"."""
    from conformance import interrupts
    from conformance.cli.status import mark_interrupted

    mark_interrupted(report_dir, signal_name)
    summary = report_dir / "summary.json"
    # Only a summary that was written holds anything: before the first rule ended there is none.
    held = f"{summary} holds what finished" if summary.is_file() else "no rule finished; no summary.json written"
    print(f"conformance: interrupted by {signal_name}; {held}", file=sys.stderr)
    return interrupts.exit_status() or 130


def _verdict(args: argparse.Namespace, report_dir: Path, code: int) -> int:
    """The run's exit status; a finished run gets its history line and, in reports/runs, reports/latest."""
    from conformance.cli.rundirs import keep_history, point_latest
    from conformance.cli.status import exit_status

    status = exit_status(report_dir, code, allow_skips=args.allow_skips)
    if status != 130:
        keep_history(report_dir)
    if not args.report_dir and status != 130 and (report_dir / "summary.json").is_file():
        point_latest(report_dir)
    return status

"""``conformance report``: the single-file Allure HTML report of a run, with the triage since
the run before it (needs npx)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

__all__ = ["register", "report"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("report", help="build the single-file Allure HTML report (needs npx)")
    parser.add_argument("--report-dir", action="append", default=None,
                        help="a run directory (default: reports/latest); repeated (CI shards): merged first into a "
                             "new run under --reports")
    parser.add_argument("--reports", default="reports", help="where runs/ lives, for a merged run (default: reports)")
    parser.add_argument("--history", default=None,
                        help="Allure history file kept across runs (default: where the run kept it: "
                             "reports/history.jsonl for a run under reports/runs, else the run directory's own)")
    parser.add_argument("--no-history", action="store_true", help="build without history")
    parser.add_argument("--baseline", default=None, metavar="RUN",
                        help="the run the report's triage compares with (default: the last earlier run against the "
                             "same target with the same services selected)")
    parser.add_argument("--exit-status", action="store_true",
                        help="after building, exit with the reported run's status (1 when the target broke a rule)")
    parser.set_defaults(func=report)


def report(args: argparse.Namespace) -> int:
    from conformance.cli.merge import merge_into_new_run
    from conformance.cli.rundirs import check_report_dir, history_path
    from conformance.reporting.html import build_html

    dirs = [Path(d) for d in args.report_dir or ["reports/latest"]]
    report_dir = dirs[0] if len(dirs) == 1 else merge_into_new_run(dirs, Path(args.reports))
    check_report_dir(report_dir)
    triage_page = _triage_page(report_dir, Path(args.baseline) if args.baseline else None)
    history = None if args.no_history else Path(args.history) if args.history else history_path(report_dir)
    print(f"report: {build_html(report_dir, history=history, triage_markdown=triage_page)}")
    if history is not None:
        print(f"history: {history} (keep it between runs: trends, new failed and fixed come from it)")
    if args.exit_status:  # the report is built either way; the status is the run's (tox -e report, CI)
        from conformance.cli.status import exit_status

        return exit_status(report_dir, 0)
    return 0


def _triage_page(report_dir: Path, baseline: Path | None) -> str | None:
    """What changed since the baseline (given, else the last comparable run before), as markdown
    (None without one); also written beside the run, where the report shows it under Global
    Attachments."""
    from conformance.reporting.triage import compare, load_summary, run_before

    base = baseline
    if base is None and (report_dir / "summary.json").is_file():
        base = run_before(report_dir, comparable=True)
    if base is None:
        return None
    page = (f"Base: `{base.resolve().name}`; current: `{report_dir.resolve().name}`\n\n"
            + compare(load_summary(base), load_summary(report_dir)).markdown(
                os.environ.get("CONFORMANCE_DOCS_URL", "")))
    (report_dir / "triage-since-previous.md").write_text(page, encoding="utf-8")
    return page

"""``conformance merge``: run directories (CI shards, one per service) written as one new run."""

from __future__ import annotations

import argparse
from pathlib import Path

from conformance.errors import UsageError

__all__ = ["merge", "merge_into_new_run", "register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("merge", help="merge run directories (CI shards, one per service) into one new run")
    parser.add_argument("runs", nargs="+", help="run directories, each with its summary.json")
    parser.add_argument("--reports", default="reports",
                        help="the merged run goes to <reports>/runs/<time>-<pid>/, reports/latest points there")
    parser.set_defaults(func=merge)


def merge(args: argparse.Namespace) -> int:
    print(f"merged: {merge_into_new_run([Path(d) for d in args.runs], Path(args.reports))}")
    return 0


def merge_into_new_run(sources: list[Path], reports: Path) -> Path:
    """Several run directories (CI shards) written as one new run under reports/runs/, which
    reports/latest then points at: triage and report read it like any run."""
    from conformance.cli.rundirs import keep_history, new_run_dir, point_latest
    from conformance.reporting.merge import merge_runs

    for source in sources:
        if not (source / "summary.json").is_file():
            raise UsageError(f"{source} is not a finished run directory (no summary.json)")
    run_dir = new_run_dir(reports)
    try:
        merge_runs(sources, run_dir)
    except BaseException:
        import shutil

        shutil.rmtree(run_dir, ignore_errors=True)  # no half-merged run for triage to pick up
        raise
    point_latest(run_dir)
    keep_history(run_dir)  # the merged run is one run: its one history line
    return run_dir

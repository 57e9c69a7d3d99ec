"""``conformance triage``: what changed between two runs (new failures, fixed, flaky, skipped ...);
exit 1 when there are new failures."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from conformance.errors import HarnessError, UsageError

__all__ = ["register", "triage"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("triage", help="what changed between two runs (new failures, fixed, skipped ...)")
    parser.add_argument("base", nargs="?", help="run directory or summary.json (default: the run before the last)")
    parser.add_argument("current", nargs="*",
                        help="run directory or summary.json (default: the last run); several (CI shards, one per "
                             "service) are merged into one run")
    parser.add_argument("--reports", default="reports", help="where runs/ lives when BASE and CURRENT are omitted")
    parser.add_argument("--format", choices=("markdown", "json"), default="markdown")
    parser.add_argument("--window", type=int, default=5,
                        help="runs read under --reports to tell flaky rules (flipped twice or more) apart (default 5)")
    parser.set_defaults(func=triage)


def triage(args: argparse.Namespace) -> int:
    """What changed between two runs; exit 1 when there are new failures."""
    import json

    from conformance.reporting.triage import compare, load_summary

    if args.window < 2:
        raise UsageError(f"--window must be 2 or more (runs compared), got {args.window}")
    base_dir, current_dirs, earlier = _runs(args)
    current = _current(current_dirs)  # read before the base, as before: which missing file is named first
    result = compare(load_summary(base_dir), current, earlier)
    if args.format == "json":
        print(json.dumps(result.as_json(), indent=2))
    else:
        print(f"<!-- base: {base_dir}; current: {', '.join(map(str, current_dirs))} -->")
        print(result.markdown(os.environ.get("CONFORMANCE_DOCS_URL", "")), end="")
    return 1 if result.new_failures else 0


def _runs(args: argparse.Namespace) -> tuple[Path, list[Path], list[dict[str, Any]]]:
    """The base run, the current run's directories and, when both are taken from --reports, the
    runs before the base (for telling a flaky rule from a new failure)."""
    from conformance.reporting.triage import finished_runs, load_summary, previous_run

    if args.base and args.current:
        return Path(args.base), [Path(c) for c in args.current], []
    if args.base or args.current:
        raise HarnessError("name both runs (BASE CURRENT) or neither (the last two under reports/runs)")
    base_dir, last = previous_run(Path(args.reports))
    earlier = [load_summary(p) for p in finished_runs(Path(args.reports))[:-2][-(args.window - 2):]
               if args.window > 2]
    return base_dir, [last], earlier


def _current(current_dirs: list[Path]) -> dict[str, Any]:
    """Several CURRENT run directories (CI shards, one per service) are one run, merged."""
    from conformance.reporting.merge import merge_summaries
    from conformance.reporting.triage import load_summary

    if len(current_dirs) == 1:
        return load_summary(current_dirs[0])
    return merge_summaries([(d, load_summary(d)) for d in current_dirs])

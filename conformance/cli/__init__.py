"""The ``conformance`` command (console script ``conformance.cli:main``, ``python -m conformance``).

One module per command, each adding its own arguments (``register``) and importing what it runs
on inside the command, so ``--version``, ``--help``, ``env`` and a mistyped command start without
jsonschema, httpx, hypothesis or pytest (issue 31; tests/harness/test_startup.py holds it).

Usage errors and harness errors end with one clear line and exit status 2; a contract
violation found by ``run`` ends with status 1; a traceback is always a bug.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from conformance.cli.parser import build_parser
from conformance.cli.run import SUITES
from conformance.cli.status import exit_status
from conformance.errors import HarnessError

__all__ = ["SUITES", "main"]

# The names tests and older callers import from here.
_parser = build_parser
_exit_status = exit_status


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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

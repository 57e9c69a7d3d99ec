"""The ``conformance`` command (console script ``conformance.cli:entry``, ``python -m conformance``).

One module per command, each adding its own arguments (``register``) and importing what it runs
on inside the command, so ``--version``, ``--help``, ``env`` and a mistyped command start without
jsonschema, httpx, hypothesis or pytest (issue 31; tests/harness/test_startup.py holds it).

Usage errors and harness errors end with one clear line and exit status 2; a contract
violation found by ``run`` ends with status 1; a traceback is always a bug.
"""

from __future__ import annotations

import gc
import os
import sys

__all__ = ["SUITES", "entry", "main"]

# Nothing else is imported here: the console script imports this module before ``main`` runs,
# and a Ctrl-C during an import outside ``main``'s ``try`` was a traceback (issue 34). The names
# tests and older callers import from here are looked up when asked for.
_LAZY = {"SUITES": ("conformance.cli.run", "SUITES"), "_parser": ("conformance.cli.parser", "build_parser"),
         "_exit_status": ("conformance.cli.status", "exit_status")}


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(name)
    import importlib

    module, attr = _LAZY[name]
    return getattr(importlib.import_module(module), attr)


def entry() -> None:
    """The process: ``main``, then the exit. Everything alive is first frozen out of the
    collector's last pass (``gc.freeze``): the interpreter's final collection walked every object
    the run had made, 0.4 s of a 3.4 s replay and of the gate, to free memory the process is about
    to give back whole. The exit is otherwise the usual one (threads joined, atexit handlers run,
    streams flushed). Not in ``main``: the harness's tests call it in process, where the objects
    must stay collectable."""
    code = main()
    gc.freeze()
    sys.exit(code)


def main(argv: list[str] | None = None) -> int:
    command = None
    try:
        from conformance import interrupts

        interrupts.checkpoint("cli")  # a test pauses here: before the parser and every command's imports
        from conformance.cli.parser import build_parser
        from conformance.errors import HarnessError

        args = build_parser().parse_args(argv)
        command = args.command
        if command == "run":
            # First thing: a signal during the imports that follow is recorded like any other.
            interrupts.install()
        try:
            return int(args.func(args))
        except HarnessError as exc:
            print(f"conformance: error: {exc}", file=sys.stderr)
            return 2
    except KeyboardInterrupt:
        return _interrupted(command)
    except BrokenPipeError:  # `conformance env | head`: the reader left; nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a path the user gave that the system refuses (a name too long, no room)
        where = f"{str(exc.filename)[:120]!a}: " if exc.filename else ""
        print(f"conformance: error: {where}{exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 (the last net: 1 means only "the target broke a rule")
        print(f"conformance: internal error, a bug: {_where(exc)}: {type(exc).__name__}: "
              f"{ascii(str(exc))[1:-1][:300]}", file=sys.stderr)
        return 2


def _interrupted(command: str | None) -> int:
    """Ctrl-C outside a run's rules: one line that fits the command, exit 130 (or the signal's)."""
    from conformance import interrupts

    received = interrupts.received() or "SIGINT"
    if command == "run":
        print(f"conformance: interrupted by {received} before any rule ran; nothing written", file=sys.stderr)
    elif command == "serve":  # Ctrl-C is how a sandbox is stopped: no run was there to interrupt
        print(f"conformance: serve stopped by {received}", file=sys.stderr)
    else:
        print(f"conformance: interrupted by {received}", file=sys.stderr)
    return interrupts.exit_status() or 130


def _where(exc: BaseException) -> str:
    """The innermost frame of ``exc`` as ``file:line``: one line that still says where the bug is."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}" if tb is not None else "?"


if __name__ == "__main__":
    sys.exit(main())

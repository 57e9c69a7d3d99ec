"""The argument parser: defaults shown in help, "did you mean" for a mistyped choice.

Built on every start, so it imports nothing heavy (issue 31): each command module adds its own
arguments, and those modules import their machinery inside the command function.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from conformance.cli import discover, env, merge, proxy, report, rules, run, selftest, serve, triage
from conformance.errors import did_you_mean

__all__ = ["DESCRIPTION", "build_parser", "version"]

# The text `conformance --help` opens with (the old cli module's docstring, kept word for word).
DESCRIPTION = """The ``conformance`` command: run, serve, selftest, rules, env, report.

Usage errors and harness errors end with one clear line and exit status 2; a contract
violation found by ``run`` ends with status 1; a traceback is always a bug.
"""


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed("conformance")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


class _VersionAction(argparse._VersionAction):
    """``--version``, reading the installed version only when asked: importlib.metadata costs
    every other command about 15 ms."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        self.version = f"%(prog)s {version()}"
        super().__call__(parser, *args, **kwargs)  # type: ignore[arg-type]


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
        unknown = re.search(r"unrecognized arguments: (.*)", message)
        if unknown:  # an option typo (--max-failure): the closest option of any command
            for word in unknown.group(1).split():
                if word.startswith("--"):
                    message += did_you_mean(word.split("=", 1)[0], _options(self))
        super().error(message)


def _options(parser: argparse.ArgumentParser) -> list[str]:
    """Every long option of ``parser`` and of its subcommands."""
    found = [o for action in parser._actions for o in action.option_strings if o.startswith("--")]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found += _options(child)
    return found


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="conformance", description=DESCRIPTION)
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", required=True)
    # The order of `conformance --help`.
    for command in (run, discover, serve, proxy, selftest, rules, triage, report, merge, env):
        command.register(sub)
    return parser

"""allure-pytest's result files, less the containers that hold no test, written off the run's thread.

pytest makes a fixture of each parametrized argument; allure-pytest opens a container for it
around every rule and writes it at teardown. The rule's own argument (``conformance_case``) is
never linked to its test (allure-pytest leaves direct parameters out of a container's children),
so each run wrote 462 containers with no children: files the report never shows (a container is
drawn only through its children), about a third of a replay's system time (issue 31). The
logger below writes every result, attachment and container of allure-pytest's, except those.

Creating a file on this project's machines costs 50 to 450 microseconds of waiting on the disk:
one result file per rule was 7% of a replay. So results and containers are handed to one writer
thread (the file system call gives up the interpreter lock while it waits), each written as
allure-pytest writes it (a temporary name, then renamed whole). ``flush_result_files`` waits for
them; the plugin calls it before it reads the results back (a harness error marked broken) and
at the session's end, and the thread is joined before the interpreter exits in any case.
Attachments stay on the run's thread: they are rare (a failure's exchange) and their source may
be a temporary file.
"""

from __future__ import annotations

import sys
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import allure_commons
from allure_commons.logger import AllureFileLogger

__all__ = ["drop_childless_containers", "flush_result_files"]

_LOGGERS: weakref.WeakSet[_ResultFiles] = weakref.WeakSet()


class _ResultFiles(AllureFileLogger):
    def __init__(self, report_dir: Any, clean: bool = False) -> None:
        super().__init__(report_dir, clean)  # the clean-up of an old directory stays synchronous
        # Started on the first file: a run without results starts no thread. The executor's
        # thread is joined at interpreter exit (concurrent.futures registers it), so no file
        # handed over is lost, even when the run ends on Ctrl-C.
        self._writer: ThreadPoolExecutor | None = None
        self._pending: list[Future[None]] = []
        _LOGGERS.add(self)

    def _report_item(self, item: Any) -> None:
        # The item is no longer the listener's (closed and popped), so the thread may read it.
        if self._writer is None:
            self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="allure-files")
        self._pending.append(self._writer.submit(super()._report_item, item))

    @allure_commons.hookimpl
    def report_container(self, container: Any) -> None:
        if container.children:
            super().report_container(container)

    def flush(self) -> list[BaseException]:
        """Wait for every file handed over, and end the thread (a run called in process, as the
        harness's tests do, leaves none behind; a file handed over later starts another); what
        could not be written (a full disk, a removed directory), one error per file."""
        pending, self._pending = self._pending, []
        errors = [error for error in (f.exception() for f in pending) if error is not None]
        if self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer = None
        return errors


def flush_result_files() -> None:
    """Every result file handed to a writer thread is on disk when this returns. A file that
    could not be written is one line on stderr (the rules' verdicts stand; the report lacks it)."""
    errors = [error for logger in list(_LOGGERS) for error in logger.flush()]
    if errors:
        sys.stderr.write(f"conformance: {len(errors)} Allure result file(s) not written: {errors[0]}\n")


def drop_childless_containers() -> None:
    """Have allure-pytest build the logger above where it builds its own (at its configure, from the
    name its plugin module imported). Called before any plugin's configure; idempotent. A version of
    allure-pytest that builds its logger otherwise keeps its own, and the report is the same."""
    import allure_pytest.plugin

    if getattr(allure_pytest.plugin, "AllureFileLogger", None) is AllureFileLogger:
        allure_pytest.plugin.AllureFileLogger = _ResultFiles

"""allure-pytest's result files, less the containers that hold no test.

pytest makes a fixture of each parametrized argument; allure-pytest opens a container for it
around every rule and writes it at teardown. The rule's own argument (``conformance_case``) is
never linked to its test (allure-pytest leaves direct parameters out of a container's children),
so each run wrote 462 containers with no children: files the report never shows (a container is
drawn only through its children), about a third of a replay's system time (issue 31). The
logger below writes every result, attachment and container of allure-pytest's, except those.
"""

from __future__ import annotations

from typing import Any

import allure_commons
from allure_commons.logger import AllureFileLogger

__all__ = ["drop_childless_containers"]


class _ResultFiles(AllureFileLogger):
    @allure_commons.hookimpl
    def report_container(self, container: Any) -> None:
        if container.children:
            super().report_container(container)


def drop_childless_containers() -> None:
    """Have allure-pytest build the logger above where it builds its own (at its configure, from the
    name its plugin module imported). Called before any plugin's configure; idempotent. A version of
    allure-pytest that builds its logger otherwise keeps its own, and the report is the same."""
    import allure_pytest.plugin

    if getattr(allure_pytest.plugin, "AllureFileLogger", None) is AllureFileLogger:
        allure_pytest.plugin.AllureFileLogger = _ResultFiles

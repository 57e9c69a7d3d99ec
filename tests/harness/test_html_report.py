"""The HTML report as a reader sees it: two runs (clean, then with a fault) built by `conformance
report` with one history file, the second report opened from file:// in headless Chromium.

Everything asserted here is read from the rendered page, not from the JSON beside it. Selectors
are Allure 3.18's own ``data-testid`` attributes (the version html.py pins); the class names are
hashed per build and are never used.

CONFORMANCE_SCREENSHOTS=<dir> saves overview.png, failing-rule.png and history.png there.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Locator, Page, Request, Route, sync_playwright

from conformance.services.presentations.simulator import PresentationsSimulator
from tests.harness.inprocess import run_isolated

pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")
# Playwright's own browser download is refused on this network; Debian's Chromium it is.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
RULE = "presentations.auth.bearer-rejected"
FAULT = "accepts-bearer"
ATTACHMENTS = ["request (redacted)", "response", "reproduce with curl"]
TRIAGE_PAGE = "Triage: what changed since the previous run"
NO_HISTORY = "No history information available"  # the History tab of a report built without it
SIM_SECRETS = [v for k, v in PresentationsSimulator.credentials.items() if k.endswith("API_KEY")]
PAGE_TIMEOUT_MS = 15_000
CLI_TIMEOUT_S = 120  # a cold npx cache fetches Allure from the registry once


def conformance(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}
    return subprocess.run([sys.executable, "-m", "conformance", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=CLI_TIMEOUT_S, env=env, check=False)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's sequence: a clean run, a run with a fault, then one report. The first run is
    in the history without a report of its own (every run appends its line)."""
    if not CHROMIUM.is_file():
        pytest.skip(f"{CHROMIUM} is missing (scripts/setup installs it)")
    if shutil.which("npx") is None:
        pytest.skip("npx (Node.js) is missing: `conformance report` builds the HTML with it")
    cwd = tmp_path_factory.mktemp("html-report")
    history = str(cwd / "reports" / "history.jsonl")  # where runs append theirs
    run = ("run", "--service", "presentations", "-k", "auth")
    for args, status in [(run, 0), ((*run, "--fault", FAULT), 1), (("report", "--history", history), 0)]:
        # The runs in this process (what they write is tested); the report in its own, bounded in time (npx).
        proc = conformance(cwd, *args) if args[0] == "report" else run_isolated(args, cwd=cwd)
        assert proc.returncode == status, f"conformance {' '.join(args)}: {(proc.stdout + proc.stderr)[-2000:]}"
    index = cwd / "reports" / "latest" / "allure-report" / "index.html"
    assert index.is_file(), f"no report at {index}"
    return index


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, timeout=PAGE_TIMEOUT_MS)
        yield chromium
        chromium.close()


@dataclass
class PageLog:
    """What the page did besides rendering: requests that left file:// and console errors."""

    remote: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass
class Report:
    page: Page
    log: PageLog


@pytest.fixture
def opened(report: Path, browser: Browser) -> Iterator[Report]:
    """The report loaded in a fresh context, its tree rendered. Any http(s) request is recorded
    and aborted: a test never reaches the network, and the report must not need it."""
    log = PageLog()
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(PAGE_TIMEOUT_MS)

    def refuse(route: Route) -> None:
        route.abort()

    def note(request: Request) -> None:
        if not request.url.startswith(("file:", "data:", "blob:", "about:")):
            log.remote.append(request.url)

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            log.errors.append(message.text)

    context.route(re.compile(r"^(https?|wss?)://"), refuse)
    context.on("request", note)
    page = context.new_page()
    page.on("console", console)
    page.on("pageerror", lambda exc: log.errors.append(f"uncaught: {exc}"))
    page.goto(report.as_uri(), wait_until="load")
    page.get_by_test_id("tree-section-title").first.wait_for()
    try:
        yield Report(page, log)
    finally:
        context.close()


def screenshot(page: Page, name: str) -> None:
    where = os.environ.get("CONFORMANCE_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(where) / f"{name}.png"), full_page=True)


def group(page: Page, *titles: str) -> Locator:
    """What the tree holds under ``titles`` (outermost first), each level expanded on the way:
    Allure renders a group's title row and, as its next sibling, the tree-content holding what is
    grouped under it; only groups holding a failure start expanded."""
    scope = page.locator("body")
    for depth, title in enumerate(titles):
        head = scope.locator(f'xpath=.//div[@data-testid="tree-section"][span[@data-testid="tree-section-title"]'
                             f'[normalize-space()="{title}"]]')
        assert head.count() == 1, f"the tree has no group {title!r} under {' > '.join(titles[:depth]) or 'its root'}"
        content = head.locator('xpath=following-sibling::div[@data-testid="tree-content"][1]')
        if not content.count():
            head.get_by_test_id("tree-section-title").click()
            content.wait_for()
        scope = content
    return scope


def rule_leaf(page: Page) -> Locator:
    return group(page, "presentations", "GET /themes", RULE).get_by_test_id("tree-leaf")


def open_rule(page: Page) -> None:
    rule_leaf(page).get_by_test_id("tree-leaf-title").click()
    page.get_by_test_id("test-result-info-title").filter(has_text=RULE).wait_for()


def open_attachment(page: Page, name: str) -> Locator:
    """Expands a text attachment of the open test result; returns its rendered content."""
    attachment = page.get_by_test_id("test-result-attachment").filter(
        has=page.get_by_test_id("test-result-attachment-header").get_by_text(name, exact=True))
    page.get_by_test_id("test-result-attachment-header").first.wait_for()  # the test body has rendered
    assert attachment.count() == 1, f"the test result has no attachment {name!r}"
    attachment.get_by_test_id("test-result-attachment-header").click()
    content = attachment.get_by_test_id("code-attachment-content")
    content.wait_for()
    return content


def open_triage(page: Page) -> Locator:
    """The Global Attachments page, the triage expanded; returns its rendered markdown body."""
    page.get_by_test_id("nav-tab-globalAttachments").click()
    page.get_by_test_id("test-result-attachment-header").filter(has_text=TRIAGE_PAGE).click()
    body = page.frame_locator('iframe[title="Markdown attachment"]').locator("body")
    body.locator("h1").wait_for()
    return body


def test_tree_groups_service_operation_rule(opened: Report) -> None:
    page = opened.page
    rules = group(page, "presentations", "GET /themes").get_by_test_id("tree-section-title").all_inner_texts()
    assert rules == ["presentations.auth.key-required", "presentations.auth.invalid-key", RULE]
    leaf = rule_leaf(page)
    assert leaf.count() == 1
    assert leaf.get_by_test_id("tree-leaf-status-failed").count() == 1, "the rule broken by the fault is not failed"
    screenshot(page, "overview")


def test_failing_rule_shows_its_message_and_redacted_attachments(opened: Report) -> None:
    page = opened.page
    open_rule(page)
    assert page.get_by_test_id("test-result-status-failed").is_visible(), "the rule is not shown as failed"
    message = page.get_by_test_id("test-result-error-message").inner_text()
    assert f"[{RULE}]" in message and "got status 200" in message, message
    # A header's button reads "<position><name>"; the position is the step's number.
    buttons = page.get_by_test_id("test-result-attachment-header").locator(":scope > button")
    assert [re.sub(r"^\d+\s*", "", text) for text in buttons.all_inner_texts()] == ATTACHMENTS
    for name in ATTACHMENTS[:2]:
        open_attachment(page, name)
    curl = open_attachment(page, "reproduce with curl").inner_text()
    # The attachment opens with '#' lines telling where to point it; the command follows.
    command = [line for line in curl.splitlines() if line.strip() and not line.startswith("#")]
    assert command and command[0].startswith("curl "), curl
    assert "${CONFORMANCE_PRESENTATIONS_API_KEY}" in command[0], curl  # the variable, never the value
    rendered = page.content()
    leaked = [secret for secret in SIM_SECRETS if secret in rendered]
    assert not leaked, f"the report shows the simulator's key(s) {leaked}"
    screenshot(page, "failing-rule")


def test_history_tab_shows_the_earlier_passed_run(opened: Report) -> None:
    page = opened.page
    open_rule(page)
    page.get_by_test_id("test-result-tab-history").click()
    items = page.get_by_test_id("test-result-history-item")
    items.or_(page.get_by_text(NO_HISTORY)).first.wait_for()  # either way the tab has rendered
    assert items.count() == 1, f"one earlier run expected: {page.get_by_test_id('base-layout').inner_text()[:500]}"
    assert items.get_by_test_id("tree-leaf-status-passed").count() == 1, items.inner_html()
    screenshot(page, "history")


def test_global_attachments_show_the_triage_naming_the_new_failure(opened: Report) -> None:
    body = open_triage(opened.page)
    new_failures = body.locator('xpath=.//h2[normalize-space()="New failures (1)"]/following-sibling::ul[1]/li')
    assert new_failures.count() == 1
    assert new_failures.inner_text().startswith(f"{RULE}: passed → failed"), new_failures.inner_text()


def test_the_triage_frame_shows_the_whole_page(opened: Report) -> None:
    """Allure's 150-pixel frame showed the headline and hid the rest: every line of the triage
    must lie inside the frame's visible box."""
    body = open_triage(opened.page)
    frame = opened.page.locator('iframe[title="Markdown attachment"]')
    frame_height = frame.evaluate("e => e.getBoundingClientRect().height")
    bottom = body.evaluate("b => Math.max(...[...b.querySelectorAll('*')].map(e => e.getBoundingClientRect().bottom))")
    assert bottom <= frame_height, f"the triage ends at {bottom} px in a frame {frame_height} px high"
    assert body.locator("h2").first.inner_text() == "New failures (1)"
    screenshot(opened.page, "triage")


def test_report_stays_offline_and_quiet(opened: Report) -> None:
    """Walk every page the other tests read, then look at what the page did on the way."""
    page = opened.page
    open_triage(page)
    page.get_by_test_id("nav-tab-results").click()
    open_rule(page)
    for name in ATTACHMENTS:
        open_attachment(page, name)
    page.get_by_test_id("test-result-tab-history").click()
    page.get_by_test_id("test-result-history-item").or_(page.get_by_text(NO_HISTORY)).first.wait_for()
    assert opened.log.remote == [], "the report fetched from the network (it must work from file:// alone)"
    assert opened.log.errors == [], "the page logged errors"

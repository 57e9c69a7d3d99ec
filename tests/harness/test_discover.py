"""`conformance discover` and `run --discover` against served simulators (issue 26), and the setup
error for a configured id the target does not hold (issues 23 and 26).

The expected values are each simulator's own seeded settings (what `conformance serve` prints), so
a discovery that read the wrong member, page or record disagrees with a second source.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from conformance.contract import load_contract
from conformance.discovery import DISCOVERED_ENV, Proposal, apply, discover, export_lines
from conformance.errors import SkipKind
from conformance.runner import PASSED, SKIPPED, collect_cases, run_case
from conformance.settings import RunSettings, env_name
from conformance.simulators.base import Clock
from conformance.targets import make_target
from conformance.targets.base import Target
from tests.harness.inprocess import run_isolated

pytestmark = pytest.mark.slow


@contextmanager
def _secrets_only(served: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, service: str,
                  **given: str) -> Iterator[tuple[Target, Any]]:
    """A served simulator and an http target holding only its base URL and its secret
    credentials (plus ``given`` settings), as a user who has just been given a sandbox."""
    for name in list(os.environ):
        if name.startswith("CONFORMANCE_"):
            monkeypatch.delenv(name)
    contract = load_contract(service)
    secret = {c["name"] for c in contract.settings["credentials"] if c.get("secret", True)}
    with served(service, clock=Clock()) as (url, sim):
        monkeypatch.setenv(env_name(service, "BASE_URL"), url)
        for name, value in sim.credentials.items():
            if name in secret:
                monkeypatch.setenv(env_name(service, name), value)
        for name, value in given.items():
            monkeypatch.setenv(env_name(service, name), value)
        yield make_target(contract, RunSettings(target="http")), sim


def _ours() -> dict[str, str]:
    """The CONFORMANCE_ variables this process holds now, for a run in it that should see them."""
    return {k: v for k, v in os.environ.items() if k.startswith("CONFORMANCE_")}


def _values(proposals: list[Proposal]) -> dict[str, str | None]:
    return {p.name: p.value for p in proposals}


@pytest.mark.parametrize(("service", "names"), [
    ("outreach", ("CAMPAIGN_ID", "CAMPAIGN_PAGE_SIZE", "CAMPAIGN_CURSOR_FIELD", "THREAD_ID", "LEAD_ID",
                  "REPLY_TO_UUID")),
    ("social", ("CUSTOMER_ID", "PROFILE_ID", "GROUP_ID", "OTHER_GROUP_ID", "OTHER_GROUP_PROFILE_ID", "TOPIC_ID")),
    ("affiliate", ("TODAY", "CAMPAIGN_ID")),  # TODAY: the served simulator's Date, from its own clock
])
def test_discovered_values_are_the_simulators_own(served: Callable[..., Any], monkeypatch: pytest.MonkeyPatch,
                                                   service: str, names: tuple[str, ...]) -> None:
    with _secrets_only(served, monkeypatch, service) as (target, sim):
        proposals = discover(target.contract, target)
    got = _values(proposals)
    assert {n: got[n] for n in names} == {n: sim.credentials[n] for n in names}
    secret = {c["name"] for c in target.contract.settings["credentials"] if c.get("secret", True)}
    assert not secret & set(got), "credentials are inputs, never proposed"
    for p in proposals:  # every setting left unset says why
        assert p.value is not None or len(p.source) > 20, p


def test_a_report_query_reads_records_the_target_holds(served: Callable[..., Any],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx

    with _secrets_only(served, monkeypatch, "affiliate") as (target, sim):
        got = _values(discover(target.contract, target))
        with httpx.Client(base_url=target.base_url(), timeout=30) as client:
            held = client.get(f"/v1/networks/reporting/conversions/{got['CONVERSION_ID']}",
                              headers={"X-Tracker-API-Key": sim.credentials["API_KEY"]})
    # The example report body dated from the discovered today found a conversion the target holds.
    assert held.status_code == 200 and got["CONVERSION_ID"] in held.text


def test_every_folder_over_every_page(served: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    with _secrets_only(served, monkeypatch, "presentations") as (target, sim):
        folders = next(p for p in discover(target.contract, target) if p.name == "FOLDER_IDS")
    assert folders.value is not None and "2 page(s)" in folders.source, folders
    # The simulator's own setting names eleven of the folders it lists (pages of ten): all are found.
    assert set(sim.credentials["FOLDER_IDS"].split(",")) < set(folders.value.split(","))


def test_settings_no_read_shows_stay_unset_with_the_reason(served: Callable[..., Any],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    with _secrets_only(served, monkeypatch, "outreach") as (target, _sim):
        by_name = {p.name: p for p in discover(target.contract, target)}
    assert by_name["DELETABLE_ACCOUNT_EMAIL"].value is None
    assert "owner's decision" in by_name["DELETABLE_ACCOUNT_EMAIL"].source
    assert by_name["CAMPAIGN_ID_FIELD"].value is None
    assert "default 'id' stays in force" in by_name["CAMPAIGN_ID_FIELD"].source
    # The source names the operation and the member.
    assert by_name["THREAD_ID"].source.startswith("GET /api/v2/emails: items[].thread_id")


def test_a_read_that_needs_an_unset_setting_says_so(served: Callable[..., Any],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    with _secrets_only(served, monkeypatch, "contracts") as (target, _sim):
        by_name = {p.name: p for p in discover(target.contract, target)}
    assert by_name["WALLET_ID"].value is None
    assert "needs CONTRACT_ID" in by_name["WALLET_ID"].source


def test_export_lines_survive_a_paste(served: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    with _secrets_only(served, monkeypatch, "outreach") as (target, sim):
        proposals = discover(target.contract, target)
    awkward = "it's $HOME `id` \"q\" \\ ;\nnext"
    proposals.append(Proposal("AWKWARD", awkward, "a test value\nwith a newline; rm -rf x"))
    script = "\n".join(export_lines("outreach", "http://x", proposals)) + "\nenv -0\n"
    out = subprocess.run(["bash", "-c", script], capture_output=True, env={"PATH": os.environ["PATH"]},
                         timeout=60, check=True).stdout.decode()
    env = dict(item.split("=", 1) for item in out.split("\0") if "=" in item)
    assert env["CONFORMANCE_OUTREACH_AWKWARD"] == awkward
    assert env["CONFORMANCE_OUTREACH_CAMPAIGN_ID"] == sim.credentials["CAMPAIGN_ID"]
    exported = {k for k in env if k.startswith("CONFORMANCE_OUTREACH_")}
    assert exported == {env_name("outreach", p.name) for p in proposals if p.value is not None}
    assert not any(secret in script for secret in target.secrets()), "no credential is printed"


def test_the_users_setting_wins(served: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    with _secrets_only(served, monkeypatch, "outreach", CAMPAIGN_ID="mine") as (target, _sim):
        proposals = discover(target.contract, target)
    mine = next(p for p in proposals if p.name == "CAMPAIGN_ID")
    assert (mine.value, mine.given) == ("mine", True)
    lines = export_lines("outreach", "http://x", proposals)
    assert "# CAMPAIGN_ID: set by you; kept" in lines
    assert not any(line.startswith("export CONFORMANCE_OUTREACH_CAMPAIGN_ID=") for line in lines)
    environ = {"CONFORMANCE_OUTREACH_CAMPAIGN_ID": "mine"}
    names = apply("outreach", proposals, environ)
    assert environ["CONFORMANCE_OUTREACH_CAMPAIGN_ID"] == "mine" and "CAMPAIGN_ID" not in names
    assert "THREAD_ID" in json.loads(environ[DISCOVERED_ENV])["outreach"]


@pytest.mark.parametrize("stale", ["no-such-campaign", "0190c0de-0000-7000-8000-00000000dead"])
def test_a_configured_id_the_target_does_not_hold_is_a_setup_error(
        served: Callable[..., Any], monkeypatch: pytest.MonkeyPatch, stale: str) -> None:
    # get-shape rests on gap read-bodies: the user says a get answers the campaign itself.
    with _secrets_only(served, monkeypatch, "outreach", CAMPAIGN_ID=stale, READS_ANSWER_RESOURCE="1") as (target, sim):
        case = next(c for c in collect_cases(target.contract) if c.id == "outreach.campaign.get-shape")
        outcome = run_case(case, target)
        monkeypatch.setenv(env_name("outreach", "CAMPAIGN_ID"), sim.credentials["CAMPAIGN_ID"])
        held = run_case(case, target)
    assert (outcome.status, outcome.skip_kind) == (SKIPPED, SkipKind.STALE_SETTING), outcome.message
    assert outcome.message.startswith(f"CONFORMANCE_OUTREACH_CAMPAIGN_ID='{stale}' : the target does not hold it "
                                      f"(404 on GET /api/v2/campaigns/{stale}), or does not serve the route at all")
    assert outcome.message.endswith("unset it or run with --discover")
    assert held.status == PASSED, held.message  # the same rule with an id the target holds


def test_a_404_on_an_id_nobody_configured_stays_the_targets(served: Callable[..., Any],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.checks.stale import stale_setting
    from conformance.transport.model import Exchange, Request, Response

    with _secrets_only(served, monkeypatch, "outreach", CAMPAIGN_ID="c-1") as (target, _sim):
        gone = Response(404, {}, b"")
        other = Exchange(Request("GET", "/api/v2/campaigns/c-2"), gone)
        held = Exchange(Request("GET", "/api/v2/campaigns/c-1"), Response(200, {}, b"{}"))
        prefix = Exchange(Request("GET", "/api/v2/campaigns/c-10"), gone)
        mine = Exchange(Request("GET", "/api/v2/campaigns/c-1"), Response(410, {}, b""))
        assert stale_setting(target.contract, target, other) is None
        assert stale_setting(target.contract, target, held) is None
        assert stale_setting(target.contract, target, prefix) is None  # a whole segment, not a substring
        assert stale_setting(target.contract, target, mine) is not None


def test_run_discover_names_the_discovered_values_in_the_report(served: Callable[..., Any],
                                                                monkeypatch: pytest.MonkeyPatch,
                                                                tmp_path: Path) -> None:
    with _secrets_only(served, monkeypatch, "outreach") as (_target, sim):
        # READS_ANSWER_RESOURCE: the user says a get answers the campaign itself (gap read-bodies).
        # In this process, with the variables set so far (what the runs report is tested, not a start-up).
        env = {**_ours(), "CONFORMANCE_OUTREACH_THREAD_ID": sim.credentials["THREAD_ID"],
               "CONFORMANCE_OUTREACH_READS_ANSWER_RESOURCE": "1"}
        done = run_isolated(("run", "--service", "outreach", "--target", "http", "--discover", "--allow", "write",
                             "-k", "campaign and get", "--report-dir", str(tmp_path)), env=env)
        stale = run_isolated(("run", "--service", "outreach", "--target", "http", "--no-allure",
                              "-k", "campaign and get", "--report-dir", str(tmp_path / "stale")),
                             env={**env, "CONFORMANCE_OUTREACH_CAMPAIGN_ID": "gone-1"})
        bare = run_isolated(("run", "--service", "outreach", "--discover"), env=env)
    summary = json.loads((tmp_path / "summary.json").read_text())
    found = summary["services"]["outreach"]["discovered"]
    assert "CAMPAIGN_ID" in found and found["CAMPAIGN_ID"].startswith("GET /api/v2/campaigns")
    assert "THREAD_ID" not in found, "the user's own setting is not reported as discovered"
    rules = {r["id"]: r for r in summary["services"]["outreach"]["rules"]}
    assert rules["outreach.campaign.get-shape"]["status"] == "passed", (done.stdout[-2000:], done.stderr)
    properties = (tmp_path / "allure-results" / "environment.properties").read_text()
    assert "discovered.outreach=" in properties and "CAMPAIGN_ID" in properties
    assert stale.returncode == 3 and "stale-setting" in stale.stderr, (stale.stdout[-2000:], stale.stderr)
    assert "CONFORMANCE_OUTREACH_CAMPAIGN_ID='gone-1' : the target does not hold it" in stale.stdout
    assert bare.returncode == 2 and "--discover" in bare.stderr and "Traceback" not in bare.stderr


@pytest.mark.parametrize(("name", "source", "refusal"), [
    ("CAMPAIGN_ID", {"operation": "POST /accounts"}, "has x-effects ['write']; discovery only reads"),
    ("API_KEY", {"operation": "GET /campaigns"}, "a secret credential is never discovered"),
    ("CAMPAIGN_ID", {"operation": "GET /nowhere"}, "is not an operation of the contract"),
])
def test_the_loader_refuses_a_discover_source_that_is_not_a_read_of_a_setting(
        name: str, source: dict[str, str], refusal: str) -> None:
    import copy
    import dataclasses

    from conformance.contract.loader import _check_discover
    from conformance.errors import ContractFileError

    contract = load_contract("outreach")
    settings = copy.deepcopy(contract.settings)
    next(c for c in settings["credentials"] if c["name"] == name)["discover"] = source
    with pytest.raises(ContractFileError, match=refusal.replace("[", r"\[").replace("]", r"\]")):
        _check_discover(dataclasses.replace(contract, settings=settings), Path("rules.yaml"))
    _check_discover(contract, Path("rules.yaml"))  # the committed sources are reads of settings


def test_discover_command_prints_lines_that_paste(served: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    with _secrets_only(served, monkeypatch, "outreach") as (target, sim):
        done = run_isolated(("discover", "--service", "outreach"), env=_ours())
    assert done.returncode == 0, done.stderr
    out = subprocess.run(["bash", "-c", done.stdout + "\nenv -0\n"], capture_output=True, timeout=60, check=True,
                         env={"PATH": os.environ["PATH"]}).stdout.decode()
    env = dict(item.split("=", 1) for item in out.split("\0") if "=" in item)
    assert env["CONFORMANCE_OUTREACH_CAMPAIGN_ID"] == sim.credentials["CAMPAIGN_ID"]
    assert not any(secret in done.stdout for secret in target.secrets())
    monkeypatch.delenv("CONFORMANCE_OUTREACH_BASE_URL")
    missing = run_isolated(("discover", "--service", "outreach"), env=_ours())
    assert missing.returncode == 2 and "CONFORMANCE_OUTREACH_BASE_URL" in missing.stderr
    assert "Traceback" not in missing.stderr and len(missing.stderr.strip().splitlines()) == 1

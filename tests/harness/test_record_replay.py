"""Record into cassettes, then replay with the network blocked: same verdicts, offline."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest

from conformance.contract import load_contract
from conformance.errors import CassetteMismatch, SkipKind
from conformance.runner import ERROR, FAILED, PASSED, SKIPPED, collect_cases, run_case
from conformance.services import target_for
from conformance.settings import RunSettings
from conformance.targets import make_target

SERVICE = "presentations"


def _run(settings: RunSettings) -> dict[str, str]:
    contract = load_contract(SERVICE)
    target = target_for(contract, settings)
    return {case.id: run_case(case, target).status for case in collect_cases(contract)}


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("cassettes")
    verdicts = _run(RunSettings(target="sim", record=True, cassette_dir=str(root)))
    return root, verdicts


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("replay touched the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def test_record_writes_one_small_cassette_per_rule(recorded: tuple[Path, dict[str, str]]) -> None:
    root, verdicts = recorded
    assert set(verdicts.values()) == {PASSED}
    files = sorted((root / SERVICE).glob("*.yaml"))
    assert {f.stem for f in files} == set(verdicts)
    assert max(f.stat().st_size for f in files) < 2 * 1024 * 1024


def test_replay_offline_gives_the_same_verdicts(recorded: tuple[Path, dict[str, str]],
                                                no_network: None) -> None:
    root, verdicts = recorded
    assert _run(RunSettings(target="replay", cassette_dir=str(root))) == verdicts


def test_replay_rechecks_responses_against_todays_contract(
        recorded: tuple[Path, dict[str, str]], no_network: None, tmp_path: Path) -> None:
    """A recorded response that today's contract refuses fails on replay."""
    root, _ = recorded
    case_dir = tmp_path / SERVICE
    case_dir.mkdir()
    name = "presentations.themes.page-shape.yaml"
    text = (root / SERVICE / name).read_text()
    (case_dir / name).write_text(text.replace('\\"hasMore\\":true', '\\"hasMore\\":\\"yes\\"')
                                 .replace('"hasMore":true', '"hasMore":"yes"'))
    contract = load_contract(SERVICE)
    target = make_target(contract, RunSettings(target="replay", cassette_dir=str(tmp_path)))
    case = next(c for c in collect_cases(contract) if c.id == name[:-5])
    outcome = run_case(case, target)
    assert outcome.status == FAILED, outcome.message
    assert "hasMore" in outcome.message


def test_a_cassette_recorded_under_another_contract_is_skipped_with_the_command(
        recorded: tuple[Path, dict[str, str]], no_network: None) -> None:
    """The contract changed since the recording (its digest differs): the recorded responses are
    not judged against it (no target failure), the rule skips saying how to record it again."""
    import dataclasses

    root, verdicts = recorded
    contract = load_contract(SERVICE)
    name = "presentations.themes.page-shape"
    assert json.loads((root / SERVICE / f"{name}.yaml").read_text())["contract_digest"] == contract.digest
    changed = dataclasses.replace(contract, digest="0" * 64)
    target = make_target(changed, RunSettings(target="replay", cassette_dir=str(root)))
    case = next(c for c in collect_cases(contract) if c.id == name)
    outcome = run_case(case, target)
    assert (outcome.status, outcome.skip_kind) == (SKIPPED, SkipKind.CASSETTE_STALE), outcome.message
    assert "recorded under another contract" in outcome.message
    assert f"`conformance run --service {SERVICE} --record -k {name}`" in outcome.message
    assert verdicts[name] == PASSED and run_case(case, make_target(
        contract, RunSettings(target="replay", cassette_dir=str(root)))).status == PASSED


def test_missing_cassette_is_a_skip_with_the_reason(tmp_path: Path, no_network: None) -> None:
    contract = load_contract(SERVICE)
    target = make_target(contract, RunSettings(target="replay", cassette_dir=str(tmp_path)))
    outcomes = [run_case(case, target) for case in collect_cases(contract)]
    assert {o.status for o in outcomes} == {SKIPPED}
    # Rules on optional credentials: not known to have been configured when recording.
    optional = {c["name"] for c in contract.settings["credentials"] if c.get("optional")}
    for case, outcome in zip(collect_cases(contract), outcomes):
        # Rules resting on a gap whose setting the (absent) recording did not configure: the gap first.
        expected = (SkipKind.DEPENDS_ON_GAP if case.rule.depends_on
                    else SkipKind.CREDENTIAL_MISSING if set(case.rule.requires) & optional
                    else SkipKind.CASSETTE_MISSING)
        assert outcome.skip_kind == expected, (case.id, outcome.message)


def test_unmatched_request_fails_loudly(recorded: tuple[Path, dict[str, str]], tmp_path: Path,
                                         no_network: None) -> None:
    root, _ = recorded
    (tmp_path / SERVICE).mkdir()
    # The cassette of one rule under another rule's name: its requests do not match.
    source = root / SERVICE / "presentations.themes.page-shape.yaml"
    (tmp_path / SERVICE / "presentations.folders.page-shape.yaml").write_text(source.read_text())
    contract = load_contract(SERVICE)
    target = make_target(contract, RunSettings(target="replay", cassette_dir=str(tmp_path)))
    case = next(c for c in collect_cases(contract) if c.id == "presentations.folders.page-shape")
    outcome = run_case(case, target)
    assert outcome.status == ERROR
    assert "re-record" in outcome.message and "Traceback" not in outcome.message


@pytest.mark.parametrize("content", ["interactions: [unclosed", "just a string", "\x00\x01binary",
                                     "{\"interactions\": [1", "{\"interactions\": [{\"request\": {}}]}"])
def test_corrupt_cassette_is_a_clear_error(tmp_path: Path, content: str) -> None:
    from conformance.recording.replay import ReplayTransport

    path = tmp_path / "bad.yaml"
    path.write_text(content)
    with pytest.raises(CassetteMismatch, match="re-record"):
        ReplayTransport(path, secrets=[])


def _send_all(client: httpx.Client, calls: list[dict[str, Any]]) -> list[str]:
    return [client.request(**call).text for call in calls]


def test_replay_matches_as_recorded_through_vcrpy_and_the_scrubber(tmp_path: Path, no_network: None) -> None:
    """Incoming requests are scrubbed as vcrpy recorded them: secret values and secret-named query
    parameters and JSON members compare as REDACTED, JSON member order does not count, repeated
    requests are served in recorded order, and what differs elsewhere is a mismatch."""
    from conformance.recording.recorder import cassette_context
    from conformance.recording.replay import ReplayTransport

    secret = "s3cr3t-value"
    served = iter(range(100))

    def numbered(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text=f"response {next(served)}")

    def calls(token: str, password: str, code: str) -> list[dict[str, Any]]:
        form = {"Content-Type": "application/x-www-form-urlencoded"}
        return [
            {"method": "GET", "url": f"/items?b=&token={token}&a=1&a=0"},
            {"method": "GET", "url": f"/items?b=&token={token}&a=1&a=0"},
            {"method": "GET", "url": f"/users/{secret}/profile", "params": {"ref": secret}},
            {"method": "POST", "url": "/login", "json": {"user": "u", "password": password, "n": [1.5, None]}},
            {"method": "POST", "url": "/token", "content": f"code={code}&name=n", "headers": form},
            {"method": "PUT", "url": "/blob", "content": b"\xff\xfe not utf-8",
             "headers": {"Content-Type": "application/octet-stream"}},
        ]

    path = tmp_path / "case.yaml"
    with cassette_context(path, secrets=[secret]) as recorder:
        recorded = _send_all(recorder.wrap(httpx.Client(base_url="http://h", transport=httpx.MockTransport(numbered))),
                             calls("t1", "pw1", "c1"))

    replayed = httpx.Client(base_url="http://replay.invalid", transport=ReplayTransport(path, [secret]))
    again = calls("t2", "pw2", "c2")
    again[3]["content"] = json.dumps({"n": [1.5, None], "password": "pw2", "user": "u"})  # other member order
    again[3]["headers"] = {"Content-Type": "application/json"}
    del again[3]["json"]
    assert _send_all(replayed, again) == recorded
    with pytest.raises(CassetteMismatch, match="re-record"):
        replayed.get("/items?b=&token=t3&a=1&a=0")  # both recorded answers already served
    for changed in ({"method": "GET", "url": "/items?b=x&token=t1&a=1&a=0"},
                    {"method": "POST", "url": "/login", "json": {"user": "v", "password": "pw1", "n": [1.5, None]}},
                    {"method": "PUT", "url": "/blob", "content": b"\xff\xfe other"}):
        with pytest.raises(CassetteMismatch, match="re-record"):
            httpx.Client(base_url="http://r", transport=ReplayTransport(path, [secret])).request(**changed)

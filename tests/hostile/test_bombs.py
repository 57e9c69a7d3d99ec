"""Whole runs against bombs and endless bodies, live, replayed and recorded (issue 34, items 1 and 2).

Each case is one `conformance run` of two rules in a subprocess with a 1 MiB cap: it must end with
one line per rule naming the cap, a summary.json, exit 2 (the harness could not test: not the
target's verdict), and a peak RSS (VmHWM of the run's own process) under ``PEAK_RSS_MB``. The run
itself costs ~85 MB; the bound leaves room for the cap and a few steps, not for a bomb. Before the
fix (same two rules): `gzip, gzip` live 2,133 MB, one gzip layer live 211 MB; the rest in the report.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conformance.recording.cassettes import CassetteFormat
from conformance.recording.recorder import CASSETTE_BODY_BYTES
from tests.hostile.peak import Peaked, run_peaked
from tests.hostile.server import gzip_bomb, hostile_server

SERVICE = "presentations"
RULES = "themes.page-shape or key-required"  # a GET and a POST, both read the body
CAP = 1 << 20
# The brief's bound is 300 MB; a fixed run peaks near 90 MB. 150 MB holds that with room, and
# fails the code before the fix on each case (its lowest, one gzip layer live, was 211 MB).
PEAK_RSS_MB = 150
WALL_SECONDS = 90  # start-up and two rules on two busy cores; a fixed case takes ~6 s
LIMITS = {
    "CONFORMANCE_REQUEST_SECONDS": "10",
    "CONFORMANCE_MAX_RESPONSE_BYTES": str(CAP),
    "CONFORMANCE_RULE_SECONDS": "30",
    "CONFORMANCE_RUN_SECONDS": "60",
    "CONFORMANCE_ALLOW": "spend,write",
    "CONFORMANCE_SPEND_BUDGET": "1000000",
}


def _conformance(root: Path, name: str, *args: str, url: str = "", rules: str = RULES) -> Peaked:
    report = root / name
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("CONFORMANCE_")}, **LIMITS,
           f"CONFORMANCE_{SERVICE.upper()}_BASE_URL": url, f"CONFORMANCE_{SERVICE.upper()}_API_KEY": "bomb-key-0001"}
    return run_peaked(["run", "--service", SERVICE, "--no-allure", "-k", rules, "--report-dir", str(report), *args],
                      report=report, env=env, cwd=root, timeout=WALL_SECONDS * 2)


def _live(root: Path, mode: str, *args: str) -> Peaked:
    gzip_bomb(1), gzip_bomb(2)  # built before the run starts
    with hostile_server(mode) as url:
        return _conformance(root, mode, "--target", "http", *args, url=url)


def _assert_bounded(run: Peaked) -> list[dict[str, str]]:
    """One line per rule naming the cap, a summary, exit 2, within the bounds; the rules run."""
    assert "Traceback" not in run.output, run.output[-3000:]
    assert run.summary is not None, f"no summary.json: {run.output[-2000:]}"
    rules = [r for r in run.summary["services"][SERVICE]["rules"] if r["status"] != "not run"]  # type: ignore[index]
    assert len(rules) == 2, rules
    for rule in rules:
        assert rule["status"] == "error", rule
        assert "ResponseTooLarge" in rule["message"] and "CONFORMANCE_MAX_RESPONSE_BYTES" in rule["message"], rule
        assert "\n" not in rule["message"]
        assert sum(1 for line in run.output.splitlines() if line.startswith(f"  ERROR {rule['id']} ")) == 1
    assert run.code == 2, run.output[-2000:]
    assert run.seconds < WALL_SECONDS, f"{run.seconds:.0f} s"
    assert 0 < run.peak_mb < PEAK_RSS_MB, f"peak {run.peak_mb:.0f} MB"
    print(f"peak {run.peak_mb:.0f} MB, {run.seconds:.1f} s")  # the figures, with -s
    return rules


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["gzip-gzip-bomb", "gzip-bomb"])
def test_a_live_bomb_ends_each_rule_at_the_cap(tmp_path: Path, mode: str) -> None:
    rules = _assert_bounded(_live(tmp_path, mode))
    assert all("bytes decoded" in rule["message"] for rule in rules)


@pytest.mark.slow
@pytest.mark.parametrize(("encoding", "layers"), [("gzip, gzip", 2), ("gzip", 1)])
def test_a_bomb_in_a_cassette_ends_each_rule_at_the_cap(tmp_path: Path, encoding: str, layers: int) -> None:
    """The rules' cassettes, recorded from the simulator, with every answer swapped for a bomb
    (1.5 KB for two layers, 1 MB for one): replay reads a body as one chunk, and httpx inflated it
    whole as the response was built."""
    cassettes = tmp_path / "cassettes"
    recorded = _conformance(tmp_path, "record", "--target", "sim", "--record", "--cassette-dir", str(cassettes))
    assert recorded.code == 0, recorded.output[-2000:]
    files = sorted((cassettes / SERVICE).glob("*.yaml"))
    assert len(files) == 2
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        for item in data["interactions"]:
            item["response"]["headers"]["Content-Encoding"] = [encoding]
            item["response"]["headers"].pop("content-length", None)
            item["response"]["body"]["string"] = gzip_bomb(layers)
        path.write_text(CassetteFormat(path).serialize(data), encoding="utf-8")  # YAML: the body is bytes
    if layers == 2:
        assert max(path.stat().st_size for path in files) < 16 * 1024  # a few interactions of 1.5 KB each
    _assert_bounded(_conformance(tmp_path, "replay", "--target", "replay", "--cassette-dir", str(cassettes)))


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["gzip-bomb", "endless-body"])
def test_record_keeps_what_was_read_under_the_cap(tmp_path: Path, mode: str) -> None:
    """--record read the whole raw body before any cap and inflated it whole (a 1 MB bomb took 6.3 GB
    for one rule, an endless body 2.1 GB in 5 s). Each cassette now holds at most the cap, marked cut,
    and replays to the same error."""
    cassettes = tmp_path / "cassettes"
    _assert_bounded(_live(tmp_path, mode, "--record", "--cassette-dir", str(cassettes)))
    files = sorted((cassettes / SERVICE).glob("*.yaml"))
    assert len(files) == 2
    for path in files:
        assert path.stat().st_size < CAP + 64 * 1024
        for item in json.loads(path.read_text(encoding="utf-8"))["interactions"]:
            assert len(item["response"]["body"]["string"]) <= CAP
            assert "CONFORMANCE_MAX_RESPONSE_BYTES" in item["response"]["cut"]
    rules = _assert_bounded(_conformance(tmp_path, "replay", "--target", "replay", "--cassette-dir", str(cassettes)))
    assert all("when recorded" in rule["message"] for rule in rules)


@pytest.mark.slow
def test_record_bounds_the_sum_of_a_cassette_bodies(tmp_path: Path) -> None:
    """Each body is capped, but a rule sending many requests recorded them all: presentations' burst
    rule against 1 MB answers recorded 80 of them (an 80 MB cassette, past the 64 MiB replay reads)
    and peaked at 374 MB saving it. The cassette now stops at CASSETTE_BODY_BYTES, the body that
    passes it cut and marked, and the rule ends with one line naming that bound."""
    cassettes = tmp_path / "cassettes"
    with hostile_server("wide-json") as url:
        run = _conformance(tmp_path, "burst", "--target", "http", "--record", "--cassette-dir", str(cassettes),
                           url=url, rules="rate-limit.burst")
    assert "Traceback" not in run.output and run.code == 2, run.output[-2000:]
    assert run.summary is not None
    rules = [r for r in run.summary["services"][SERVICE]["rules"] if r["status"] != "not run"]  # type: ignore[index]
    assert [r["status"] for r in rules] == ["error"] and "the most one cassette records" in rules[0]["message"]
    path = cassettes / SERVICE / "presentations.rate-limit.burst.yaml"
    assert path.stat().st_size < CASSETTE_BODY_BYTES + CAP
    assert 0 < run.peak_mb < 300, f"peak {run.peak_mb:.0f} MB"  # issue 34's bound for one rule
    print(f"peak {run.peak_mb:.0f} MB, {run.seconds:.1f} s, cassette {path.stat().st_size} bytes")

"""Replay judges the examples a property test drew when it was recorded, without drawing them
(checks/drawn.py, recording/examples.py); a draw that no longer matches is still found."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume
from hypothesis import strategies as st

from conformance.checks import drawn
from conformance.contract import load_contract
from conformance.errors import CassetteMismatch
from conformance.layout import available_services
from conformance.recording.examples import ExampleBook, Unrecordable, decode, encode
from conformance.runner import ERROR, FAILED, PASSED, collect_cases, run_case
from conformance.services import target_for
from conformance.settings import RunSettings
from conformance.targets import make_target

SERVICE = "presentations"
RULE = "presentations.generate.valid-accepted"
CASSETTES = Path(__file__).resolve().parents[2] / "cassettes"


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every Hypothesis run a property test starts (``drawn.given``), counted."""
    started: list[Any] = []
    real = drawn.given

    def counted(*strategies: Any) -> Any:
        started.append(strategies)
        return real(*strategies)

    monkeypatch.setattr(drawn, "given", counted)
    return started


def _case(rule: str = RULE) -> Any:
    return next(c for c in collect_cases(load_contract(SERVICE)) if c.id == rule)


def _record(root: Path, fault: str | None = None) -> Any:
    contract = load_contract(SERVICE)
    return run_case(_case(), target_for(contract, RunSettings(target="sim", record=True, cassette_dir=str(root),
                                                              fault=fault)))


def _replay(root: Path, **settings: Any) -> Any:
    contract = load_contract(SERVICE)
    return run_case(_case(), make_target(contract, RunSettings(target="replay", cassette_dir=str(root), **settings)))


def _cassette(root: Path) -> Path:
    return root / SERVICE / f"{RULE}.yaml"


@pytest.mark.parametrize("value", [
    {"b": [1, 1.0, -0.0, 2**80, True, None], "a": ("x", ("y",))},
    [(1, "é"), {"k": b"\xff\x00"}, "\ud800 lone", float("inf"), float("-inf")],
    {1: "an int key", "": {}},
])
def test_drawn_values_come_back_with_their_types_and_order(value: Any) -> None:
    back = decode(json.loads(json.dumps(encode(value), ensure_ascii=False)))
    assert repr(back) == repr(value)  # types (tuple, float, bytes), member order and -0.0 included


def test_what_the_encoding_cannot_hold_is_unrecordable_and_a_bad_tag_a_mismatch() -> None:
    with pytest.raises(Unrecordable):
        encode({1, 2})
    assert math.isnan(decode(encode(float("nan"))))
    for bad in ({"set": [1]}, {"tuple": [1], "dict": []}, {"bytes": "not base64!"}):
        with pytest.raises(CassetteMismatch, match="re-record"):
            decode(bad)


def test_a_recorded_property_test_replays_its_examples_without_drawing(tmp_path: Path, draws: list[Any]) -> None:
    assert _record(tmp_path).status == PASSED and len(draws) == 1
    book = json.loads(_cassette(tmp_path).read_text())["examples"]
    assert [len(entry["calls"]) for entry in book.values()] == [10]  # the gate's bodies, each as sent
    outcome = _replay(tmp_path)
    assert outcome.status == PASSED, outcome.message
    assert len(draws) == 1  # nothing drawn on replay
    assert _replay(tmp_path, draw_on_replay=True).status == PASSED and len(draws) == 2


def test_a_failing_example_replays_to_the_same_failure(tmp_path: Path) -> None:
    recorded = _record(tmp_path, fault="member-retyped:generate.valid-accepted")
    assert recorded.status == FAILED
    replayed = _replay(tmp_path)
    assert (replayed.status, replayed.message) == (FAILED, recorded.message)


def test_an_example_the_cassette_does_not_answer_is_the_re_record_error(tmp_path: Path) -> None:
    """A recorded example edited so its request is not in the cassette: replay sends it and fails
    to match, as a draw the cassette does not hold always did."""
    _record(tmp_path)
    data = json.loads(_cassette(tmp_path).read_text())
    (entry,) = data["examples"].values()
    entry["calls"][3] = {"body": encode({"inputText": "a body never sent"})}
    _cassette(tmp_path).write_text(json.dumps(data))
    outcome = _replay(tmp_path)
    assert outcome.status == ERROR and "re-record" in outcome.message


def test_a_generator_that_draws_otherwise_is_found_as_before(tmp_path: Path, draws: list[Any],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Today's generation differs from the recording's (here: another seed, as a new Hypothesis
    would draw otherwise): the fingerprint differs, so replay draws, and what it draws is not in
    the cassette: the same "re-record" error as before recorded examples."""
    _record(tmp_path)
    real = drawn.seed_for
    monkeypatch.setattr("conformance.checks.context.seed_for", lambda *a: (real(*a) or 0) + 1)
    outcome = _replay(tmp_path)
    assert len(draws) == 2
    assert outcome.status == ERROR and "re-record" in outcome.message


def test_a_hypothesis_error_keeps_no_examples() -> None:
    """Examples are kept only when the run ended as the test ended it: a run Hypothesis itself
    stopped (here: a strategy that cannot draw) leaves nothing for replay to stand on."""
    book = ExampleBook()
    with pytest.raises(Exception) as raised:
        drawn.run_drawn(lambda value: None, st.nothing(), parts=("x",), book=book, replays=False,
                        configured=drawn.hypothesis_settings("gate"), run_seed=1, drawn_from=None)
    assert not isinstance(raised.value, CassetteMismatch)
    assert book.saved() == {}


def test_a_test_that_assumes_keeps_no_examples() -> None:
    """Replay calls a test outside Hypothesis, where ``assume`` does not work: such a test is drawn."""
    def test(value: int) -> None:
        assume(value % 3 != 0)

    book = ExampleBook()
    drawn.run_drawn(test, st.integers(0, 10**6), parts=("x",), book=book, replays=False,
                    configured=drawn.hypothesis_settings("gate"), run_seed=7, drawn_from=None)
    assert book.saved() == {}


def test_replay_of_the_committed_cassettes_draws_nothing(draws: list[Any]) -> None:
    """Every committed property test's examples stand for today's draws (else replay draws, as
    slowly as before: the cassettes need re-recording)."""
    for service in available_services():
        contract = load_contract(service)
        target = make_target(contract, RunSettings(target="replay", cassette_dir=str(CASSETTES)))
        for case in collect_cases(contract):
            run_case(case, target)
    assert not draws, f"{len(draws)} property tests drew on replay: re-record with `conformance run --record`"

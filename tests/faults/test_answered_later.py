"""The ``answered-later`` variant family (faults/families.py): a server answering a status its
document tells clients to retry to one request in ``every``, unserved, and the real answer when
asked again; counted per simulator (so per rule), with no randomness and no clock."""

from __future__ import annotations

import pytest

from conformance.errors import ContractFileError
from conformance.simulators.base import Simulator
from conformance.transport.model import Request, Response
from tests.faults.gap_entry import built


class Counting(Simulator):
    """Serves GET /x, counting what it served."""

    def __init__(self) -> None:
        super().__init__()
        self.served = 0
        self.route("GET", "/x", self._x)

    def _x(self, request: Request) -> Response:
        self.served += 1
        return Response.json_response(200, {"n": self.served})


def test_one_request_in_every_is_answered_a_retry_status_in_turn_and_not_served() -> None:
    sim = Counting()
    wrapped = built({"family": "answered-later", "status": [503, 202], "every": 2})(sim)
    statuses = [wrapped.handle(Request.build("GET", "/x")).status for _ in range(6)]
    assert statuses == [200, 503, 200, 202, 200, 503]
    assert sim.served == 3  # the retry-status answers served nothing


def test_the_count_is_per_simulator_and_the_scope_holds() -> None:
    wrap = built({"family": "answered-later", "status": 503, "every": 2, "paths": "^/x$"})
    first, second = wrap(Counting()), wrap(Counting())
    assert [first.handle(Request.build("GET", "/x")).status for _ in range(2)] == [200, 503]
    assert second.handle(Request.build("GET", "/x")).status == 200  # a fresh count
    assert [first.handle(Request.build("GET", "/y")).status for _ in range(2)] == [404, 404]  # outside paths


@pytest.mark.parametrize("entry, said", [
    ({"status": 503, "every": 1}, "'every' must be a whole number of at least 2"),
    ({"status": "503"}, "'status' must be an HTTP status or a list of them"),
    ({"status": []}, "'status' must be an HTTP status or a list of them"),
    ({"every": 2}, "needs the param 'status'"),
])
def test_a_bad_entry_is_one_line(entry: dict[str, object], said: str) -> None:
    with pytest.raises(ContractFileError, match=said):
        built({"family": "answered-later", **entry})


def test_a_derived_crash_is_not_a_status_the_document_says_to_retry() -> None:
    # Social says "500 server error; retry": a 500 that stays leaves a rule unchecked, so its
    # derived crashes answer 502; a service that says nothing of retrying keeps 500.
    from conformance.contract import load_contract
    from conformance.faults.crashes import crash_status
    from conformance.services import faults_for

    assert (crash_status(load_contract("social")), crash_status(load_contract("presentations"))) == (502, 500)
    crashes = [f.description for f in faults_for("social") if f.name.startswith(("route-crash", "refusal-as-500"))]
    assert crashes and all("502" in d and "500" not in d.replace("refusal-as-500", "") for d in crashes), crashes

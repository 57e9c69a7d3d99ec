"""The core read-after-write and read-only-ignored checks against a tiny store server: they pass
a store that keeps what it is told (and one that answers its writes differently where nothing
is documented: 204 without a body, a refusal of a read-only member), and fail a store whose
update is not persisted, whose delete keeps the resource, whose create is lost, or that stores
a read-only member; a member added and removed is read back in the list (and the list left as
found). The derived fault write-not-applied is shown caught on the same server."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from conformance.checks.context import CheckContext
from conformance.checks.effects import read_after_write, read_only_ignored, written_steps
from conformance.contract import Conflict, Contract, Rule
from conformance.errors import ContractFailure, RuleSkipped
from conformance.faults.effects import effect_faults
from conformance.targets.base import Capabilities
from conformance.transport.model import Request, Response
from conformance.transport.session import Session

PATHS = {"/things": {"post": {"responses": {}}},
         "/things/{id}": {"get": {"responses": {}}, "patch": {"responses": {}}, "delete": {"responses": {}}}}
CONFLICT = Conflict("demo.conflict.read-only", "s", None, ("refused", "ignored"))  # type: ignore[arg-type]


class Store:
    """Things by id; ``break_`` names one way to get a write wrong, ``choice`` one way to answer
    differently where nothing is documented."""

    def __init__(self, break_: str = "", choice: str = "") -> None:
        self.things: dict[str, dict[str, Any]] = {"t1": {"id": "t1", "name": "first", "status": "active"}}
        self.break_, self.choice = break_, choice
        self.serial = 1

    def handle(self, request: Request) -> Response:
        body = json.loads(request.body) if request.body else None
        found = re.fullmatch(r"/things/([^/]+)", request.path)
        if request.method == "POST" and request.path == "/things":
            self.serial += 1
            thing = {**body, "id": f"t{self.serial}", "status": "active"}
            if self.break_ != "create-lost":
                self.things[thing["id"]] = thing
            return Response.json_response(200, thing)
        if not found:
            return Response.json_response(404, {"message": "no such path"})
        thing = self.things.get(found.group(1))
        if thing is None:
            return Response.json_response(404, {"message": "no such thing"})
        if request.method == "GET":
            return Response.json_response(200, thing)
        if request.method == "DELETE":
            if self.break_ != "delete-kept":
                del self.things[found.group(1)]
            return Response(204, {}, b"") if self.choice == "bodiless" else Response.json_response(200, {})
        if request.method == "PATCH":
            if "status" in body and self.break_ != "read-only-stored":
                if self.choice == "refuse-read-only":
                    return Response.json_response(422, {"message": "status is read-only"})
                body = {k: v for k, v in body.items() if k != "status"}
            if self.break_ != "update-ignored":
                thing.update(body)
            return Response(204, {}, b"") if self.choice == "bodiless" else Response.json_response(200, thing)
        return Response.json_response(405, {"message": "method"})

    def transport(self) -> httpx.MockTransport:
        def send(request: httpx.Request) -> httpx.Response:
            answer = self.handle(Request(request.method, request.url.path, list(request.url.params.multi_items()),
                                         dict(request.headers), request.content))
            return httpx.Response(answer.status, headers=answer.headers, content=answer.body)

        return httpx.MockTransport(send)


UPDATE = {"check": "read-after-write", "steps": [
    {"call": "PATCH /things/{id}", "name": "update", "path": {"id": "t1"}, "body": {"name": "renamed"},
     "expect": "success"},
    {"call": "GET /things/{id}", "path": {"id": "t1"}, "expect": 200, "echoes": {"of": "update"}},
    {"call": "PATCH /things/{id}", "path": {"id": "t1"}, "body": {"name": "{$nothing.answer.name}"}, "restore": True},
]}
DELETE = {"check": "read-after-write", "steps": [
    {"call": "POST /things", "name": "create", "body": {"name": "doomed"}, "expect": "success"},
    {"call": "DELETE /things/{id}", "path": {"id": "{$create.answer.id}"}, "expect": "success"},
    {"call": "GET /things/{id}", "path": {"id": "{$create.answer.id}"}, "expect": "gone"},
]}
ROUNDTRIP = {"check": "read-after-write", "steps": [
    {"call": "POST /things", "name": "create", "body": {"name": "kept"}, "expect": "success"},
    {"call": "GET /things/{id}", "path": {"id": "{$create.answer.id}"}, "expect": 200,
     "echoes": {"of": "create", "members": ["name"]}},
]}
READ_ONLY = {"check": "read-only-ignored", "observes": "demo.conflict.read-only",
             "write": {"call": "PATCH /things/{id}", "path": {"id": "t1"}, "body": {"name": "x"}},
             "read": {"call": "GET /things/{id}", "path": {"id": "t1"}},
             "probes": {"status": ["active", "archived"]}}


def run(store: Any, params: dict[str, Any], check: Any = read_after_write, *, live: bool = False,
        paths: dict[str, Any] = PATHS) -> dict[str, str]:
    contract = Contract("demo", "demo", {"openapi": "3.1.0", "paths": paths}, [], [], [CONFLICT], {})
    rule = Rule(id="demo.things.effect", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                operation=params.get("steps", [params.get("write")])[0]["call"], params=params)
    target = SimpleNamespace(name="http" if live else "sim", capabilities=Capabilities(live=live),
                             credential=lambda name: None, settings=SimpleNamespace(allow=()))
    client = httpx.Client(base_url="http://demo.invalid", transport=store.transport())
    ctx = CheckContext(contract, rule, target, Session(client, base_url="http://demo.invalid",  # type: ignore[arg-type]
                                                       sleep=lambda s: None))
    check(ctx)
    return ctx.observations


@pytest.mark.parametrize("params", [UPDATE, DELETE, ROUNDTRIP], ids=["update", "delete", "roundtrip"])
@pytest.mark.parametrize("choice", ["", "bodiless"])
def test_a_store_that_keeps_its_writes_passes(params: dict[str, Any], choice: str) -> None:
    run(Store(choice=choice), params)


@pytest.mark.parametrize(("params", "break_", "message"), [
    (UPDATE, "update-ignored", "name is 'first'"),
    (DELETE, "delete-kept", "must no longer be served"),
    (ROUNDTRIP, "create-lost", "got status 404"),
])
def test_a_write_without_its_effect_fails(params: dict[str, Any], break_: str, message: str) -> None:
    with pytest.raises(ContractFailure, match=message):
        run(Store(break_), params)


def test_a_reference_to_nothing_is_not_exercised() -> None:
    params = {"check": "read-after-write", "steps": [
        {"call": "GET /things/{id}", "name": "read", "path": {"id": "t1"}, "expect": 200},
        {"call": "GET /things/{id}", "path": {"id": "{$read.answer.owner.id}"}, "expect": 200}]}
    with pytest.raises(RuleSkipped, match="no member owner.id"):
        run(Store(), params)


def test_read_only_ignored_or_refused_both_pass_and_are_observed() -> None:
    assert run(Store(), READ_ONLY, read_only_ignored) == {"demo.conflict.read-only": "ignored"}
    assert run(Store(choice="refuse-read-only"), READ_ONLY, read_only_ignored) == {"demo.conflict.read-only": "refused"}


def test_a_stored_read_only_member_fails() -> None:
    with pytest.raises(ContractFailure, match="read-only status was written"):
        run(Store("read-only-stored"), READ_ONLY, read_only_ignored)


def test_no_step_is_sent_where_the_live_target_does_not_allow_writes() -> None:
    # The delete is marked as a write: on a live target without --allow write the rule skips
    # before its first step (the create), so nothing is created and left behind.
    paths = {**PATHS, "/things/{id}": {**PATHS["/things/{id}"], "delete": {"responses": {}, "x-effects": ["write"]}}}
    store = Store()
    with pytest.raises(RuleSkipped, match="--allow write"):
        run(store, DELETE, live=True, paths=paths)
    assert store.serial == 1 and list(store.things) == ["t1"]


def test_written_steps_are_those_a_later_step_reads_back() -> None:
    assert [s["call"] for s in written_steps(UPDATE)] == ["PATCH /things/{id}"]
    assert [s["call"] for s in written_steps(DELETE)] == ["DELETE /things/{id}"]
    assert [s["call"] for s in written_steps(ROUNDTRIP)] == ["POST /things"]
    self_only = {"steps": [{"call": "POST /things", "name": "c", "echoes": {"of": "c"}}]}
    assert written_steps(self_only) == []


class Faulted:
    """The store behind one derived fault's wrapper."""

    def __init__(self, params: dict[str, Any]) -> None:
        rule = Rule(id="demo.things.effect", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                    params=params)
        contract = Contract("demo", "demo", {"openapi": "3.1.0", "paths": PATHS}, [rule], [], [], {})
        (fault,) = effect_faults(contract)
        assert fault.name == "write-not-applied:things.effect"
        self.store = Store()
        self.wrapped = fault.apply(self.store)  # type: ignore[arg-type]

    def transport(self) -> httpx.MockTransport:
        def send(request: httpx.Request) -> httpx.Response:
            answer = self.wrapped.handle(Request(request.method, request.url.path, [], dict(request.headers),
                                                 request.content))
            return httpx.Response(answer.status, headers=answer.headers, content=answer.body)

        return httpx.MockTransport(send)


@pytest.mark.parametrize("params", [UPDATE, DELETE], ids=["update", "delete"])
def test_the_derived_fault_write_not_applied_is_caught(params: dict[str, Any]) -> None:
    with pytest.raises(ContractFailure):
        run(Faulted(params), params)


class Org:
    """GET /org lists members; PUT and DELETE /org/member/{user} add and remove one."""

    def __init__(self, members: list[str], break_: str = "") -> None:
        self.members, self.break_ = list(members), break_

    def handle(self, request: Request) -> Response:
        if request.path == "/org":
            return Response.json_response(200, {"members": [{"username": m} for m in self.members]})
        user = request.path.rsplit("/", 1)[-1]
        if request.method == "PUT" and user not in self.members:
            self.members.append(user)
        if request.method == "DELETE" and self.break_ != "removal-invisible":
            self.members = [m for m in self.members if m != user]
        return Response.json_response(200, {"success": True})

    def transport(self) -> httpx.MockTransport:
        return Store.transport(self)  # type: ignore[arg-type]


ORG_PATHS = {"/org": {"get": {"responses": {}}},
             "/org/member/{user}": {"put": {"responses": {}}, "delete": {"responses": {}}}}
MEMBER = {"at": "members", "value": "ada", "keys": ["username", "email"]}
ADD_REMOVE = {"check": "read-after-write", "steps": [
    {"call": "GET /org", "name": "before", "expect": 200},
    {"call": "PUT /org/member/{user}", "path": {"user": "ada"}, "expect": 200, "shows": {"success": True}},
    {"call": "GET /org", "expect": 200, "contains": MEMBER},
    {"call": "DELETE /org/member/{user}", "path": {"user": "ada"}, "expect": 200},
    {"call": "GET /org", "expect": 200, "excludes": MEMBER},
    {"call": "PUT /org/member/{user}", "path": {"user": "ada"}, "restore": True,
     "when": {"step": "before", "contains": MEMBER}},
]}


@pytest.mark.parametrize("present", [True, False])
def test_a_member_added_then_removed_passes_and_the_org_is_left_as_found(present: bool) -> None:
    org = Org(["ada", "bob"] if present else ["bob"])
    run(org, ADD_REMOVE, paths=ORG_PATHS)
    assert ("ada" in org.members) == present


def test_a_removal_that_changes_nothing_fails() -> None:
    with pytest.raises(ContractFailure, match="'ada' is still in members"):
        run(Org(["bob"], "removal-invisible"), ADD_REMOVE, paths=ORG_PATHS)


class Tags:
    """GET /tags lists tags by numeric id (ids as JSON numbers, whole floats where ``floats``)."""

    def __init__(self, ids: list[int], floats: bool = False) -> None:
        self.ids, self.floats = ids, floats

    def handle(self, request: Request) -> Response:
        return Response.json_response(200, {"data": [{"tag_id": float(i) if self.floats else i} for i in self.ids]})

    def transport(self) -> httpx.MockTransport:
        return Store.transport(self)  # type: ignore[arg-type]


def _listed(as_text: bool) -> dict[str, Any]:
    # A setting is always text ("3"); the list holds numbers.
    match = {"at": "data", "value": "3", "keys": ["tag_id"], **({"as_text": True} if as_text else {})}
    return {"check": "read-after-write", "steps": [{"call": "GET /tags", "expect": 200, "contains": match}]}


@pytest.mark.parametrize("floats", [False, True])
def test_as_text_finds_a_numeric_id_named_by_a_setting(floats: bool) -> None:
    run(Tags([1, 3], floats), _listed(as_text=True), paths={"/tags": {"get": {"responses": {}}}})


def test_as_text_still_fails_a_list_without_the_id() -> None:
    with pytest.raises(ContractFailure, match="'3' is missing from data"):
        run(Tags([1, 2, 33]), _listed(as_text=True), paths={"/tags": {"get": {"responses": {}}}})


def test_without_as_text_a_number_is_not_its_text() -> None:
    with pytest.raises(ContractFailure, match="'3' is missing from data"):
        run(Tags([1, 3]), _listed(as_text=False), paths={"/tags": {"get": {"responses": {}}}})


# -- a create read back in the list (and the derived fault created-unlisted) -----------------------
class Shelf(Store):
    """The store with GET /things listing every thing; ``break_="create-lost"`` keeps no create."""

    def handle(self, request: Request) -> Response:
        if request.method == "GET" and request.path == "/things":
            return Response.json_response(200, {"things": list(self.things.values())})
        return super().handle(request)


SHELF_PATHS = {**PATHS, "/things": {"post": {"responses": {}}, "get": {"responses": {}}}}
CREATE_LISTED = {"check": "read-after-write", "steps": [
    {"call": "POST /things", "name": "create", "body": {"name": "new"}, "expect": "success"},
    {"call": "GET /things", "expect": "success",
     "contains": {"at": "things", "value": "{$create.answer.id}", "keys": ["id"]}},
]}


def test_a_created_thing_listed_passes() -> None:
    run(Shelf(), CREATE_LISTED, paths=SHELF_PATHS)


def test_a_create_acknowledged_and_not_listed_fails() -> None:
    with pytest.raises(ContractFailure, match="'t2' is missing from things"):
        run(Shelf("create-lost"), CREATE_LISTED, paths=SHELF_PATHS)


def test_the_derived_fault_created_unlisted_is_caught() -> None:
    rule = Rule(id="demo.things.listed", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                params=CREATE_LISTED)
    contract = Contract("demo", "demo", {"openapi": "3.1.0", "paths": SHELF_PATHS}, [rule], [], [], {})
    faults = {f.name: f for f in effect_faults(contract)}
    assert set(faults) == {"write-not-applied:things.listed", "created-unlisted:things.listed"}
    shelf = Shelf()
    wrapped = faults["created-unlisted:things.listed"].apply(shelf)  # type: ignore[arg-type]
    faulted = SimpleNamespace(transport=lambda: Store.transport(wrapped))  # type: ignore[arg-type]
    with pytest.raises(ContractFailure, match="'t2' is missing from things"):
        run(faulted, CREATE_LISTED, paths=SHELF_PATHS)
    assert "t2" in shelf.things  # applied, only left out of the list


# -- a create whose id nothing serves (the derived fault created-not-found) ------------------------
WRITING_PATHS = {**PATHS, "/things": {"post": {"x-effects": ["write"], "responses": {}}}}


@pytest.mark.parametrize(("effects", "params", "made"), [(WRITING_PATHS, ROUNDTRIP, True), (PATHS, ROUNDTRIP, False),
                                                      (WRITING_PATHS, DELETE, False)],
                         ids=["write", "read-like", "read-expecting-gone"])
def test_the_derived_fault_created_not_found_is_made_for_writes_only(effects: dict[str, Any], params: dict[str, Any],
                                                                     made: bool) -> None:
    # A POST without x-effects (a report asked for by POST) creates nothing a read could miss; a
    # read that must find the resource gone is passed by a 404.
    rule = Rule(id="demo.things.roundtrip", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                params=params)
    contract = Contract("demo", "demo", {"openapi": "3.1.0", "paths": effects}, [rule], [], [], {})
    names = {f.name for f in effect_faults(contract)}
    assert ("created-not-found:things.roundtrip" in names) == made


def test_the_derived_fault_created_not_found_is_caught() -> None:
    rule = Rule(id="demo.things.roundtrip", kind="state", statement="s", source=None,  # type: ignore[arg-type]
                params=ROUNDTRIP)
    contract = Contract("demo", "demo", {"openapi": "3.1.0", "paths": WRITING_PATHS}, [rule], [], [], {})
    (fault,) = [f for f in effect_faults(contract) if f.name.startswith("created-not-found:")]
    store = Store()
    wrapped = fault.apply(store)  # type: ignore[arg-type]
    with pytest.raises(ContractFailure, match="got status 404"):
        run(SimpleNamespace(transport=lambda: Store.transport(wrapped)), ROUNDTRIP)  # type: ignore[arg-type]
    assert "t2" in store.things  # applied; only the read by its id is answered 404
    run(Store(), ROUNDTRIP)  # and the store itself passes

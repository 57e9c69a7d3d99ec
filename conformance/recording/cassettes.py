"""vcrpy cassettes, one per case: the format, the scrubbers they are recorded through, and the one reader
(recording itself: ``recorder.py``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from vcr.persisters.filesystem import CassetteNotFoundError, FilesystemPersister
from vcr.serialize import deserialize
from vcr.serializers import yamlserializer

from conformance.errors import CassetteMismatch, CassetteMissing, CassetteStale
from conformance.files import CASSETTE, parse_json, parse_yaml, read_text
from conformance.recording.examples import EXAMPLES, ExampleBook, examples_problem
from conformance.transport.scrub import scrub_headers, scrub_json_text, scrub_pairs, scrub_text

__all__ = ["MATCH_ON", "BoundedPersister", "CassetteFormat", "check_digest", "read_cassette", "request_scrubber",
           "response_scrubber"]

# Host and port are left out: recordings made against a simulator on a random port, a sandbox
# or the in-process transport must replay the same.
MATCH_ON = ("method", "path", "query", "body")


def _text(body: Any) -> str | None:
    if body is None:
        return None
    if isinstance(body, bytes):
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            return None
    return str(body)


def request_scrubber(secrets: list[str]) -> Any:
    def before_record_request(request: Any) -> Any:
        parts = urlsplit(request.uri)
        query = urlencode(scrub_pairs(parse_qsl(parts.query, keep_blank_values=True), secrets))
        request.uri = scrub_text(urlunsplit(parts._replace(query=query)), secrets)
        request.headers = scrub_headers(dict(request.headers), secrets)
        text = _text(request.body)
        if text:
            request.body = scrub_json_text(text, secrets).encode("utf-8")
        return request

    return before_record_request


def response_scrubber(secrets: list[str]) -> Any:
    def before_record_response(response: dict[str, Any]) -> dict[str, Any]:
        response["headers"] = scrub_headers(response.get("headers", {}), secrets)
        text = _text(response.get("body", {}).get("string"))
        if text:
            response["body"]["string"] = scrub_json_text(text, secrets).encode("utf-8")
        return response

    return before_record_response


class CassetteFormat:
    """The serializer vcrpy records through, and the one reader of cassettes.

    Cassettes keep vcrpy's layout (``interactions`` of request and response, and the
    ``contract_digest`` they were recorded under) and their ``.yaml``
    name, but are written as indented JSON: JSON is YAML, so vcrpy's own YAML serializer (and any
    YAML tool) still reads them, while ``json.loads`` reads them 14x faster than libyaml-backed
    PyYAML (measured on the committed cassettes, benchmarks/bench.py). An interaction JSON cannot
    hold (a body that is not UTF-8) is written as YAML, and older YAML cassettes still load.
    A cassette that is not readable, or holds an interaction vcrpy would trip over with a
    traceback, is a ``CassetteMismatch`` naming the file and saying to re-record it.
    With a ``book``, the examples the rule's property tests drew (``examples.py``) are read into
    it and written from it."""

    def __init__(self, path: Path, secrets: list[str] | None = None, contract_digest: str | None = None,
                 book: ExampleBook | None = None) -> None:
        self.path = path
        # The session's list, by reference: what the case learned after an exchange was
        # recorded (a token its answer issued) is scrubbed from the whole file when it is saved.
        self.secrets = secrets
        self.contract_digest = contract_digest
        self.book = book

    def deserialize(self, text: str) -> Any:
        # Bounded as every file the project reads (conformance/files.py): depth, and values once
        # YAML aliases are expanded (a 1.3 KB alias bomb stood for a billion values).
        where = f"cassette {self.path}"
        try:
            data = (parse_json(text, where, CASSETTE, CassetteMismatch) if text.lstrip().startswith("{")
                    else parse_yaml(text, where, CASSETTE, CassetteMismatch))
        except CassetteMismatch as exc:
            raise CassetteMismatch(f"{exc}; re-record it") from None
        if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
            raise CassetteMismatch(f"cassette {self.path} has no 'interactions' list; re-record it")
        for i, item in enumerate(data["interactions"]):
            problem = _interaction_problem(item)
            if problem:
                raise CassetteMismatch(f"cassette {self.path}: interaction {i} {problem}; re-record it")
        if EXAMPLES in data:
            problem = examples_problem(data[EXAMPLES])
            if problem:
                raise CassetteMismatch(f"cassette {self.path} {problem}; re-record it")
            if self.book is not None:
                self.book.found = dict(data[EXAMPLES])
        return data

    def serialize(self, data: Any) -> str:
        if self.secrets:
            data = _scrubbed(data, self.secrets)
        if self.contract_digest and isinstance(data, dict):
            # The contract the responses were checked against when recorded (summary.json's
            # contract_digest): replay under another contract says so instead of judging them.
            data = {"contract_digest": self.contract_digest, **data}
        if self.book is not None and self.book.saved() and isinstance(data, dict):
            data = {**data, EXAMPLES: self.book.saved()}
        try:
            return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        except (TypeError, ValueError):  # bytes that are not text: YAML can hold them (!!binary)
            return str(yamlserializer.serialize(data))


def _scrubbed(node: Any, secrets: list[str]) -> Any:
    """Every text of a cassette scrubbed by value (the last net before the file is written:
    each exchange was scrubbed when recorded, with the values known then)."""
    if isinstance(node, dict):
        return {k: _scrubbed(v, secrets) for k, v in node.items()}
    if isinstance(node, list):
        return [_scrubbed(v, secrets) for v in node]
    if isinstance(node, str):
        return scrub_text(node, secrets)
    if isinstance(node, bytes):
        text = _text(node)
        return node if text is None else scrub_text(text, secrets).encode("utf-8")
    return node


def check_digest(path: Path, data: dict[str, Any], contract_digest: str, rule_id: str, service: str) -> None:
    """A cassette recorded under another contract (or before cassettes named theirs) is stale."""
    recorded = data.get("contract_digest")
    if recorded != contract_digest:
        was = f"contract {str(recorded)[:12]}" if recorded else "a contract it does not name"
        raise CassetteStale(f"cassette {path} was recorded under another contract ({was}; today "
                            f"{contract_digest[:12]}): record it again with "
                            f"`conformance run --service {service} --record -k {rule_id}`")


def read_cassette(path: Path, *, contract_digest: str | None = None, rule_id: str = "", service: str = "",
                  book: ExampleBook | None = None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The recorded requests and responses of ``path``, as stored (checked as vcrpy would need
    them), and into ``book`` the examples its property tests drew. Not vcrpy's Request objects:
    building one per recorded request cost more than the replay reading them (benchmarks/bench.py, replay)."""
    if not path.exists() and not path.is_symlink():
        raise CassetteMissing(f"no cassette {path}: record it first with `conformance run --record` "
                              "(against the simulator or a live target)")
    data = CassetteFormat(path, book=book).deserialize(_cassette_text(path))
    if contract_digest is not None:
        check_digest(path, data, contract_digest, rule_id, service)
    interactions = data["interactions"]
    return [item["request"] for item in interactions], [item["response"] for item in interactions]


def _cassette_text(path: Path) -> str:
    try:
        return read_text(path, CASSETTE, CassetteMismatch)  # a regular file, of bounded size
    except CassetteMismatch as exc:
        raise CassetteMismatch(f"cassette {exc}; re-record it") from None


class BoundedPersister(FilesystemPersister):
    """vcrpy's file persister, reading the cassette as ``read_cassette`` does. vcrpy's own read (the
    once and new_episodes modes read the old file) took the whole file, whatever it was: an 80 MiB
    file cost 250 MB before its parse; a FIFO counted as no cassette (the rule passed, or saving into it hung)."""

    @classmethod
    def load_cassette(cls, cassette_path: str | Path, serializer: Any) -> Any:
        path = Path(cassette_path)
        if not path.exists() and not path.is_symlink():
            raise CassetteNotFoundError()
        text = _cassette_text(path)
        if not text.strip():
            raise CassetteNotFoundError()  # as vcrpy: an empty file is recorded afresh
        return deserialize(text, serializer)


def _interaction_problem(item: Any) -> str | None:
    """What vcrpy would trip over (with a traceback) in one recorded interaction."""
    if not isinstance(item, dict):
        return "is not a mapping"
    request, response = item.get("request"), item.get("response")
    if not isinstance(request, dict) or not isinstance(response, dict):
        return "lacks a request or a response"
    if not isinstance(request.get("uri"), str) or not isinstance(request.get("method"), str):
        return "has a request without uri or method"
    try:
        urlsplit(request["uri"]).port  # noqa: B018 (parsing is the check: `http://[bad`, a port past 65535)
    except ValueError:
        return f"has a request uri that is not a URL ({request['uri'][:80]!a})"
    for side in (request, response):
        problem = _headers_problem(side.get("headers", {}))
        if problem:
            return problem
    if not isinstance(request.get("body"), (str, bytes, type(None))):
        return "has a request body that is not text or bytes"
    status = response.get("status")
    # bool is an int to Python; a status is a three-digit number (RFC 9110 15), never 10**30.
    if (not isinstance(status, dict) or type(status.get("code")) is not int
            or not 100 <= status["code"] <= 599):
        return "has no status code from 100 to 599"
    if not isinstance(status.get("message"), (str, type(None))):
        return "has a status message that is not text"
    if not isinstance(response.get("body"), dict) or "string" not in response["body"]:
        return "has a response without a body"
    if not isinstance(response["body"]["string"], (str, bytes)):
        return "has a response body that is not text or bytes"
    return None


def _headers_problem(headers: Any) -> str | None:
    """A header is a name and a text value, or a list of them (vcrpy's layout): a mapping or a list
    of lists as a value is what no HTTP message holds."""
    if not isinstance(headers, dict):
        return "has headers that are not a mapping"
    for name, value in headers.items():
        values = value if isinstance(value, list) else [value]
        if not isinstance(name, str) or not all(isinstance(v, str) for v in values):
            return f"has a header ({str(name)[:40]!a}) whose value is not text or a list of texts"
    return None

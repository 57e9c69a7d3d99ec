"""vcrpy cassettes, one per case, keyed so replay is deterministic and host-independent."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import vcr
import yaml
from vcr.serializers import yamlserializer

from conformance.errors import CassetteMismatch, CassetteMissing, HarnessError
from conformance.recording.indexed import IndexedCassette
from conformance.recording.scrub import scrub_headers, scrub_json_text, scrub_pairs, scrub_text

__all__ = ["cassette_context", "MATCH_ON"]

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


def _request_scrubber(secrets: list[str]) -> Any:
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


def _response_scrubber(secrets: list[str]) -> Any:
    def before_record_response(response: dict[str, Any]) -> dict[str, Any]:
        response["headers"] = scrub_headers(response.get("headers", {}), secrets)
        text = _text(response.get("body", {}).get("string"))
        if text:
            response["body"]["string"] = scrub_json_text(text, secrets).encode("utf-8")
        return response

    return before_record_response


class _CheckedYaml:
    """vcrpy's YAML serializer (libyaml underneath), with a cassette checked as it is parsed.

    Parsing once here replaces a second, pure-Python parse before vcrpy's own; a cassette that is
    not YAML or holds an interaction vcrpy would trip over (with a traceback) is a
    ``CassetteMismatch`` naming the file and saying to re-record it."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def deserialize(self, text: str) -> Any:
        try:
            data = yamlserializer.deserialize(text)
        except yaml.YAMLError as exc:
            raise CassetteMismatch(f"cassette {self.path} is not readable ({type(exc).__name__}); "
                                   "re-record it") from None
        if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
            raise CassetteMismatch(f"cassette {self.path} has no 'interactions' list; re-record it")
        for i, item in enumerate(data["interactions"]):
            problem = _interaction_problem(item)
            if problem:
                raise CassetteMismatch(f"cassette {self.path}: interaction {i} {problem}; re-record it")
        return data

    @staticmethod
    def serialize(data: Any) -> str:
        return str(yamlserializer.serialize(data))


def _check_readable(path: Path) -> None:
    try:
        path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CassetteMismatch(f"cassette {path} is not readable ({type(exc).__name__}); re-record it") from None


def _interaction_problem(item: Any) -> str | None:
    """What vcrpy would trip over (with a traceback) in one recorded interaction."""
    if not isinstance(item, dict):
        return "is not a mapping"
    request, response = item.get("request"), item.get("response")
    if not isinstance(request, dict) or not isinstance(response, dict):
        return "lacks a request or a response"
    if not isinstance(request.get("uri"), str) or not isinstance(request.get("method"), str):
        return "has a request without uri or method"
    if not isinstance(request.get("headers", {}), dict) or not isinstance(response.get("headers", {}), dict):
        return "has headers that are not a mapping"
    status = response.get("status")
    if not isinstance(status, dict) or not isinstance(status.get("code"), int):
        return "has no integer status code"
    if not isinstance(response.get("body"), dict) or "string" not in response["body"]:
        return "has a response without a body"
    return None


@contextmanager
def cassette_context(path: Path, *, replay: bool, secrets: list[str]) -> Iterator[None]:
    if replay:
        if not path.is_file():
            raise CassetteMissing(
                f"no cassette {path}: record it first with `conformance run --record` "
                "(against the simulator or a live target)"
            )
        _check_readable(path)
    else:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.unlink(missing_ok=True)  # a recording replaces the old one whole
        except OSError as exc:
            raise HarnessError(f"cannot write cassettes into {path.parent}: {exc.strerror}") from None
    recorder = vcr.VCR(
        record_mode="none" if replay else "all",
        match_on=MATCH_ON,
        before_record_request=_request_scrubber(secrets),
        before_record_response=_response_scrubber(secrets),
        decode_compressed_response=True,
    )
    recorder.register_serializer("checked-yaml", _CheckedYaml(path))
    config = recorder.get_merged_config(path=str(path), serializer="checked-yaml", allow_playback_repeats=False)
    with IndexedCassette.use(**config):
        yield

"""Plausible foreign values of a documented string enum: what a real server would wrongly take.

A made-up word and near misses (a letter short, a plural) pass a server whose list is one sibling
too wide: it takes ``xlsx`` beside pdf/pptx/png, ``archived`` beside active/paused/deleted, or the
document's own gloss of a value (``summarize``, written in brackets after ``condense``). The
off-list probes (``derive._enum_probes``) and the core enum check (``checks/boundary``) add the
values found here, at most ``LIMIT`` per enum so the gate stays fast, from three sources in order:

1. the document's own words around the list: in the sentence that lists the values (the statement
   index's text, or the schema's description), a one-word gloss in brackets after a listed value
   (another item of the same list is no foreign value: the document names it);
2. the values of another enum of the same contract that shares a value with this one (the
   run_frequency list 12_hours/24_hours beside the lookback list that adds 48_hours);
3. a small vocabulary of siblings per kind of value (file formats, lifecycle statuses, networks,
   modes, sort directions, DNS record types, time units ...): a kind is chosen when at least two
   listed values (one, for a list of one or two) hold one of its words, and each such word is
   swapped for the kind's other words (``ETH-SEPOLIA`` gives ``ETH-GOERLI``); a numbered series
   (sub1 ... sub5, 12_hours/24_hours) gives its next number.

A list of integer codes gets the unlisted numbers between its smallest and largest (outreach's
provider codes 1, 2, 3, 4, 8 give 5, 6, 7). No value found is a listed one in any letter case or
spelled with other separators (no document says matching is case-sensitive: a server folding case
conforms, allowed variant ``case-folding-enums``), nor a near miss the probes already send, nor a
word any gap of the contract uses (a gap may leave that very value open: marketplace's
inactive-edit). Values are written in the list's letter case (all upper when every listed value is).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from itertools import zip_longest
from pathlib import Path
from typing import Any

import yaml

from conformance.contract.model import Contract
from conformance.files import yaml_loader

__all__ = ["LIMIT", "VOCABULARY", "document_words", "foreign_values", "siblings"]

LIMIT = 4  # foreign values per enum: each is one more request per probe run

# Kinds of value and their common members, most common first (the first unlisted ones are tried).
VOCABULARY: dict[str, tuple[str, ...]] = {
    "document formats": ("pdf", "pptx", "docx", "xlsx", "odt", "key", "doc", "rtf"),
    "image formats": ("png", "jpg", "svg", "gif", "jpeg", "webp"),
    "data formats": ("csv", "json", "xlsx", "xml", "tsv", "ndjson", "yaml", "txt", "html"),
    "lifecycle statuses": ("active", "paused", "deleted", "archived", "draft", "pending", "completed", "cancelled",
                           "failed", "inactive", "expired", "closed", "open", "approved", "rejected"),
    "networks": ("eth", "matic", "arb", "uni", "base", "op", "sol", "avax", "bsc", "btc"),
    "test networks": ("sepolia", "goerli", "mumbai", "amoy", "holesky"),
    "modes": ("auto", "manual", "none", "default", "custom"),
    "sort directions": ("asc", "desc", "ascending", "descending"),
    "time units": ("hour", "day", "week", "month", "quarter", "year"),
    "time spans": ("hours", "days", "weeks", "months"),
    "dns record types": ("a", "aaaa", "cname", "ns", "soa", "mx", "txt", "ptr", "srv", "caa", "ds"),
    "transports": ("tcp", "udp", "quic", "sctp"),
    "marketing metrics": ("profit", "cvr", "evr", "conversions", "payout", "revenue", "clicks", "impressions",
                          "ctr", "epc", "cost", "roi"),
    "places": ("city", "province", "country", "region", "state", "zip"),
    "content kinds": ("presentation", "document", "webpage", "social", "website", "report", "slides"),
    "tag kinds": ("label", "campaign", "topic", "category", "group"),
    "text operations": ("generate", "condense", "preserve", "summarize", "expand", "rewrite", "translate"),
    "routing strategies": ("priority", "weight", "kpi", "random", "round_robin"),
}
_STOP = frozenset("""a an and are as at be by for from has have in is it its no not of on one or the this to
was were with yet only also any each per than then that required optional""".split())
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]*[A-Za-z0-9]|[A-Za-z0-9]")
_TOKEN = re.compile(r"[A-Za-z]+|[0-9]+")
_SERIES = re.compile(r"^(\D*?)(\d+)(\D*)$")


def _key(value: str) -> str:
    """A value with letter case and separators folded: two spellings of one value share it."""
    return re.sub(r"[\s_\-.]+", "", value.casefold())


def _near_misses(allowed: list[str]) -> set[str]:
    return {m for v in allowed if len(v) > 1 for m in (v[:-1], v + "s")}


def _styled(value: str, allowed: list[str]) -> str:
    return value.upper() if all(v == v.upper() and v != v.lower() for v in allowed) else value


def _usable(value: str, allowed: list[str], taken: list[str], open_words: set[str]) -> bool:
    keys = {_key(v) for v in allowed} | {_key(v) for v in taken}
    return (bool(value) and _key(value) not in keys and value not in _near_misses(allowed)
            and value.casefold() not in open_words)


def _open_words(contract: Contract) -> set[str]:
    """Every word of the contract's gaps: a value a gap names may be one the documents leave open
    (marketplace's gap inactive-edit: whether the state filter takes inactive or edit)."""
    return {w.casefold() for gap in contract.gaps for w in _WORD.findall(gap.statement)}


def _listed_in(text: str, allowed: list[str]) -> int:
    words = {w.casefold() for w in _WORD.findall(text)}
    return sum(1 for v in allowed if v.casefold() in words or (not _WORD.fullmatch(v) and v in text))


def document_words(allowed: list[str], texts: Iterable[str]) -> list[str]:
    """Foreign values the document's own sentence offers (module doc, source 1), best first."""
    folded = {v.casefold() for v in allowed}
    # The sentence that lists the values holds (nearly) all of them; one naming two or three of a
    # long list in passing (a column list naming payout and revenue) is about something else.
    need = max(2 if len(allowed) >= 2 else 1, -(-3 * len(allowed) // 4))
    out: list[str] = []
    for text in texts:
        if _listed_in(text, allowed) < need:
            continue
        # A value described by one word in brackets: "condense (summarize)". Another item of the
        # same list is no foreign value: the document names it (marketplace's listing-state
        # sentence names inactive and edit, which the state filter's schema leaves out: a gap).
        for value, gloss in re.findall(r"([\w\-.]+)\s*\(([^()]*)\)", text):
            if value.casefold() in folded and _WORD.fullmatch(gloss.strip()) and gloss.strip().casefold() not in _STOP:
                out.append(gloss.strip())
    return out


def _tokens(value: str) -> list[str]:
    # camelCase splits too: "noImages" holds "no" and "images".
    return [t.casefold() for t in _TOKEN.findall(re.sub(r"([a-z])([A-Z])", r"\1 \2", value))]


def siblings(allowed: list[str]) -> list[str]:
    """Foreign values from the vocabulary and numbered series (module doc, source 3), best first."""
    need = 2 if len(allowed) > 2 else 1
    out: list[str] = []
    # A numbered series first: its next number is the likeliest wrong value.
    series: dict[tuple[str, str], list[int]] = {}
    for value in allowed:
        if match := _SERIES.match(value):
            series.setdefault((match[1], match[3]), []).append(int(match[2]))
    for (head, tail), numbers in series.items():
        if len(numbers) < 2:
            continue
        ordered = sorted(numbers)
        step_one = all(b - a == 1 for a, b in zip(ordered, ordered[1:], strict=False))
        nexts = [ordered[-1] + 1] if step_one else [ordered[-1] * 2, ordered[0] // 2]
        out += [f"{head}{n}{tail}" for n in nexts if n > 0]
    kinds = sorted(VOCABULARY.values(), key=lambda words: -sum(1 for v in allowed if set(_tokens(v)) & set(words)))
    found: list[list[str]] = []
    for words in kinds:
        holders = [v for v in allowed if set(_tokens(v)) & set(words)]
        if len(holders) < need:
            break
        found.append([])
        for word in (w for w in words if all(w not in _tokens(v) for v in allowed)):
            # The word in place of the kind's word in the first value holding one ("ETH-SEPOLIA" ->
            # "ETH-GOERLI"; a whole value is the plain case: "pdf" -> "docx").
            value = holders[0]
            token = next((t for t in _TOKEN.findall(value) if t.casefold() in words), None)
            if token is None:
                break  # the kind's word is inside a camelCase name ("noneGiven"): no clean swap
            swapped = word.upper() if token.isupper() else word
            found[-1].append(re.sub(rf"(?<![A-Za-z]){re.escape(token)}(?![a-z])", swapped, value, count=1))
    # One from each kind in turn: a list of networks and test networks gets both kinds of sibling.
    for row in zip_longest(*found):
        out += [value for value in row if value is not None]
    return out


def _enums(node: Any) -> Iterable[list[str]]:
    if isinstance(node, dict):
        listed = node.get("enum")
        if isinstance(listed, list) and listed and all(isinstance(v, str) for v in listed):
            yield list(listed)
        for child in node.values():
            yield from _enums(child)
    elif isinstance(node, list):
        for child in node:
            yield from _enums(child)


def _descriptions(node: Any, allowed: list[str]) -> Iterable[str]:
    """Descriptions of the schemas that hold this list (a schema's own words on its values)."""
    if isinstance(node, dict):
        if node.get("enum") == allowed and isinstance(node.get("description"), str):
            yield node["description"]
        for child in node.values():
            yield from _descriptions(child, allowed)
    elif isinstance(node, list):
        for child in node:
            yield from _descriptions(child, allowed)


@lru_cache(maxsize=16)
def _statement_texts(path: str) -> tuple[str, ...]:
    try:
        # libyaml's loader: the pure-Python one took about 0.1 s a run for the eight indexes.
        data = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=yaml_loader()) or {}  # noqa: S506
    except (OSError, yaml.YAMLError):
        return ()
    return tuple(str(s.get("text") or "") for s in data.get("statements") or () if isinstance(s, dict))


def _texts(contract: Contract, allowed: list[str]) -> list[str]:
    texts = list(_descriptions(contract.openapi, allowed))
    if contract.rules_file:
        texts += _statement_texts(str(Path(contract.rules_file).with_name("statements.yaml")))
    return texts


def foreign_values(contract: Contract, allowed: list[Any]) -> list[Any]:
    """At most LIMIT plausible values the enum ``allowed`` does not list (module doc)."""
    if allowed and all(isinstance(v, int) and not isinstance(v, bool) for v in allowed):
        # A list of codes with holes: the holes are the codes a server may also know (outreach's
        # provider codes 1, 2, 3, 4, 8: a server taking 5 for another provider).
        return [v for v in range(min(allowed) + 1, max(allowed)) if v not in allowed][:LIMIT]
    if not allowed or not all(isinstance(v, str) for v in allowed):
        return []
    # Not cached per contract: the loader derives probes before it has read every gap.
    return list(_foreign(contract, [str(v) for v in allowed]))


def _foreign(contract: Contract, allowed: list[str]) -> tuple[str, ...]:
    folded = {_key(v) for v in allowed}
    others = [v for other in _enums(contract.openapi) if {_key(o) for o in other} & folded and other != allowed
              for v in other]
    words = document_words(allowed, _texts(contract, allowed))
    open_words = _open_words(contract)
    out: list[str] = []
    # The document's words first (two at most), another list's values, then the vocabulary.
    for source, upto in ((words, 2), (others, 3), (siblings(allowed), LIMIT), (others, LIMIT), (words, LIMIT)):
        for value in source:
            value = _styled(value, allowed)
            if len(out) < upto and _usable(value, allowed, out, open_words):
                out.append(value)
    return tuple(out)

"""Loaded contracts kept between runs (contract/cache.py): a hit is the contract the loader builds,
an edit builds again, a broken contract is never kept, and an odd cache only costs the load."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conformance.contract import cache, loader
from conformance.errors import ContractFileError


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(loader.schemas_dir() / "tokenrisk", tmp_path / "schemas" / "tokenrisk")
    monkeypatch.setenv("CONFORMANCE_SCHEMAS_DIR", str(tmp_path / "schemas"))
    monkeypatch.setenv("CONFORMANCE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "schemas" / "tokenrisk"


def _fresh() -> loader.Contract:
    """The loader as a new process meets it: the in-process cache left out, the disk's used."""
    return loader._load.__wrapped__("tokenrisk", str(loader.schemas_dir()))


def _entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache").glob("tokenrisk-*.pickle"))


def test_a_hit_is_the_contract_the_loader_builds(folder: Path, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    built = _fresh()
    assert len(_entries(tmp_path)) == 1
    monkeypatch.setattr(loader, "_build", lambda *a: pytest.fail("loaded although the cache holds it"))
    hit = _fresh()
    assert hit is not built and hit.digest == built.digest
    assert [(r.id, r.params, r.faults) for r in hit.rules] == [(r.id, r.params, r.faults) for r in built.rules]
    assert hit.openapi == built.openapi and hit.gaps == built.gaps


def test_an_edited_contract_is_loaded_again_and_replaces_its_entry(folder: Path, tmp_path: Path) -> None:
    _fresh()
    [first] = _entries(tmp_path)
    rules = folder / "rules.yaml"
    rules.write_text(rules.read_text(encoding="utf-8").replace("title:", "title: Edited", 1), encoding="utf-8")
    assert _fresh().title.startswith("Edited")
    [second] = _entries(tmp_path)
    assert second != first


def test_a_broken_contract_is_never_kept(folder: Path, tmp_path: Path) -> None:
    (folder / "rules.yaml").write_text("service: tokenrisk\nrules: [\n", encoding="utf-8")
    with pytest.raises(ContractFileError):
        _fresh()
    assert _entries(tmp_path) == []


@pytest.mark.parametrize("damage", ["truncated", "foreign", "group-writable"])
def test_an_odd_entry_reads_as_not_cached(folder: Path, tmp_path: Path, damage: str) -> None:
    built = _fresh()
    [entry] = _entries(tmp_path)
    if damage == "truncated":
        entry.write_bytes(entry.read_bytes()[:100])
    elif damage == "foreign":
        import pickle

        entry.write_bytes(pickle.dumps({"not": "a contract"}))
    else:
        os.chmod(entry, 0o666)
    assert _fresh().digest == built.digest


def test_an_unwritable_cache_costs_only_the_load(folder: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "blocked").write_text("a file where the cache directory would be", encoding="utf-8")
    monkeypatch.setenv("CONFORMANCE_CACHE_DIR", str(tmp_path / "blocked" / "cache"))
    assert _fresh().service == "tokenrisk"
    assert cache.cache_dir() == tmp_path / "blocked" / "cache"

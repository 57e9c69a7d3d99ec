"""Every contract file reads the same with PyYAML's pure-Python loader as with libyaml's: the
loader takes libyaml where it is built (conformance/files.py), and libyaml accepts some plain
scalars the YAML spec refuses (a regular expression ending ``)?$`` inside a flow mapping), so a
contract written against it alone would not load on a machine without it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


@pytest.mark.skipif(not hasattr(yaml, "CSafeLoader"), reason="libyaml is not built here: one loader only")
@pytest.mark.parametrize("path", sorted(SCHEMAS.glob("*/*.yaml")), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_contract_file_reads_the_same_without_libyaml(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert yaml.load(text, Loader=yaml.SafeLoader) == yaml.load(text, Loader=yaml.CSafeLoader)  # noqa: S506

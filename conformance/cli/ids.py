"""Service ids without loading a contract: for help texts and ``conformance env``, which must not
pay for jsonschema, yaml and httpx (issue 31). Found in schemas/ by ``conformance.layout``."""

from __future__ import annotations

from conformance.layout import available_services, schemas_dir

__all__ = ["available_services", "schemas_dir"]

"""One package per service: ``conformance/services/<id>/`` holds its simulator, its scenario
checks, its faults, its allowed variants and any client helper.

Packages are found by id (the folder name matches ``schemas/<id>/``); nothing shared lists them.
Importing a package registers its scenario checks and exposes ``SERVICE`` (a ``ServicePackage``).
A package that fails to import is a loud harness error naming it: a broken service never
silently disappears from a run.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from conformance.errors import HarnessError, UsageError
from conformance.services.base import ServicePackage

__all__ = ["ServicePackage", "ServicePackageError", "load_service", "service_packages"]

_CACHE: dict[str, ServicePackage] = {}


class ServicePackageError(HarnessError):
    """A service package exists but cannot be imported or does not expose ``SERVICE``."""


def service_packages() -> list[str]:
    """Ids of the service packages on disk (folders beside this file)."""
    here = str(Path(__file__).parent)
    return sorted(m.name for m in pkgutil.iter_modules([here]) if m.ispkg)


def load_service(service: str) -> ServicePackage:
    if service in _CACHE:
        return _CACHE[service]
    module_name = f"{__name__}.{service}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise UsageError(f"no service package for '{service}' (conformance/services/{service}/); "
                             f"available: {', '.join(service_packages()) or 'none'}") from None
        raise ServicePackageError(f"service package '{service}' failed to import: "
                                  f"{type(exc).__name__}: {exc}") from exc
    except Exception as exc:  # any import-time bug: name the package, never hide it
        raise ServicePackageError(f"service package '{service}' failed to import: "
                                  f"{type(exc).__name__}: {exc}") from exc
    package = getattr(module, "SERVICE", None)
    if not isinstance(package, ServicePackage) or package.id != service:
        raise ServicePackageError(f"service package '{service}' must define SERVICE = ServicePackage('{service}', ...)")
    _CACHE[service] = package
    return package

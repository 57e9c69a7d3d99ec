"""Where the suite sends its requests: the simulator in process, an HTTP base URL, or cassettes."""

from conformance.targets.base import Target, base_urls
from conformance.targets.factory import make_target

__all__ = ["Target", "base_urls", "make_target"]

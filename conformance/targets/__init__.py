"""Where the suite sends its requests: the simulator in process, an HTTP base URL, or cassettes."""

from conformance.targets.base import Target, make_target

__all__ = ["Target", "make_target"]

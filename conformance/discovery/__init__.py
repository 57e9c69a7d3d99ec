"""``conformance discover``: a target's settings proposed from its answers to documented reads."""

from __future__ import annotations

from conformance.discovery.exports import DISCOVERED_ENV, apply, discovered, export_lines
from conformance.discovery.propose import Proposal, discover

__all__ = ["DISCOVERED_ENV", "Proposal", "apply", "discover", "discovered", "export_lines"]

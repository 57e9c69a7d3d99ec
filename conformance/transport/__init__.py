"""The one request/response model at the boundary, and the session that sends it."""

from conformance.transport.model import Exchange, Request, Response
from conformance.transport.session import Session

__all__ = ["Exchange", "Request", "Response", "Session"]

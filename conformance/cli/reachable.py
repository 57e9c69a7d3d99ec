"""Is anything listening at a base URL? Asked once per service before an http run.

A base URL nobody listens on would otherwise fail every rule of the service one by one (a
FAILURES block each, the breaker's message each); schemathesis stops at the first connection
error with one line, and so does this. Only what is certain stops the run: a refused connection
or a host name that does not resolve. A connection that hangs is left to the run's own bounds
(the breaker), and where a proxy carries the request, the proxy answers, so it is not asked.
"""

from __future__ import annotations

import socket
import urllib.request
from urllib.parse import urlsplit

__all__ = ["why_unreachable"]


def why_unreachable(base_url: str, *, timeout: float = 5.0) -> str | None:
    """Why nothing can answer at ``base_url`` (``connection refused``, ``no such host ...``), or None."""
    parts = urlsplit(base_url)
    host = parts.hostname
    if not host:
        return None
    if parts.scheme in urllib.request.getproxies() and not urllib.request.proxy_bypass(host):
        return None
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except socket.gaierror:
        return f"no such host {host!r}"
    except ConnectionRefusedError:
        return "connection refused"
    except OSError:  # a timeout, an unreachable network: the run's bounds decide
        return None
    return None

"""A base URL given by a user (a target's BASE_URL, the proxy's --upstream), checked once the same
way: httpx must parse it, as an http(s) URL with a host. Each caller names the value in its
messages and raises its own error type (a usage error for a setting, a harness error for an option)."""

from __future__ import annotations

import httpx

__all__ = ["http_url"]


def http_url(value: str, what: str, error: type[Exception]) -> httpx.URL:
    """``value`` parsed; ``error`` naming ``what`` when it is not an http(s) URL with a host."""
    try:
        url = httpx.URL(value)
    except (httpx.InvalidURL, TypeError, ValueError) as exc:
        raise error(f"{what} is not a URL ({exc}): {value!r}") from None
    if url.scheme not in ("http", "https") or not url.host:
        raise error(f"{what} must be an http(s) URL with a host, got {value!r}")
    return url

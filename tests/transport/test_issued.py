"""Which answers are read for issued credentials: the quick substring test agrees with the pattern."""

from __future__ import annotations

import pytest

from conformance.transport.issued import _ISSUED_HINT, looks_issued


@pytest.mark.parametrize("body", [
    b'{"access_token": "v"}', b'{"Access_Token": "v"}', b"REFRESHTOKEN=v", b'{"id_token": 1}', b"idtoken",
    b'{"token": "v"}', b'{"token_type": "bearer"}', b"access token", b"", b"\xff\xfeACCESS_TOKEN",
    b"x" * 2_000_000 + b"access_token", b'[{"id": 1, "name": "tok en"}]' * 1000,
])
def test_looks_issued_is_the_pattern(body: bytes) -> None:
    assert looks_issued(body) == bool(_ISSUED_HINT.search(body[:1 << 20]))

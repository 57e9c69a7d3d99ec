"""What ``conformance serve`` prints and binds: a served simulator as a sandbox.

The printed lines are shell code a person pastes: every value single-quoted (a ``'`` inside
closes, escapes and reopens the quote), so a value holding spaces or JSON arrives intact. The
port is bound before anything is printed, so a taken port is one line and no credentials.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping

from conformance.errors import HarnessError
from conformance.settings import env_name

__all__ = ["SIMULATOR_ALLOWANCES", "bind", "export_lines", "shell_quote"]

# A simulator is ours: its writes and spends cost nobody anything, so a harness run against
# it may do both (the http target otherwise skips such rules `needs-allowance`).
SIMULATOR_ALLOWANCES = "spend,write"


def shell_quote(value: str) -> str:
    """``value`` as one POSIX-shell word in single quotes (nothing inside is expanded)."""
    return "'" + value.replace("'", "'\\''") + "'"


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, or one line saying why not (port 0: any free port)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise HarnessError(f"cannot serve on {host}: {exc}") from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise HarnessError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    sock.set_inheritable(True)
    return sock


def export_lines(service: str, credentials: Mapping[str, str], base_url: str, *,
                 path_settings: Mapping[str, str], clock_rate: float) -> list[str]:
    """``export NAME='value'`` for everything a harness run against this simulator reads.

    ``path_settings``: the ``--option`` values that are also path settings of the contract, so a
    run reads the same path shape the simulator serves."""
    lines = [f"export {env_name(service, name)}={shell_quote(value)}" for name, value in sorted(credentials.items())]
    lines.append(f"export {env_name(service, 'BASE_URL')}={shell_quote(base_url)}")
    lines += [f"export {env_name(service, name.upper())}={shell_quote(value)}"
              for name, value in sorted(path_settings.items())]
    if clock_rate != 1.0:
        lines.append("# the simulator's clock runs faster: the harness waits as much less")
        lines.append(f"export CONFORMANCE_TIME_SCALE={shell_quote(repr(clock_rate))}")
    lines.append("# a simulator is ours to write to and spend on: a run against it checks every rule")
    lines.append(f"export CONFORMANCE_ALLOW={shell_quote(SIMULATOR_ALLOWANCES)}")
    return lines

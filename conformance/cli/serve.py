"""``conformance serve``: one simulator over HTTP, with the export lines a run or client reads.

Its first answer is due within a second of starting (issue 31), so nothing is loaded that the
simulator does not need: the contract only when a path setting is given.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from conformance.cli.ids import available_services
from conformance.errors import HarnessError

if TYPE_CHECKING:
    import socket

    from conformance.simulators.base import Simulator

__all__ = ["register", "serve", "simulator_options"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve_parser = sub.add_parser("serve", help="serve a simulator over HTTP (127.0.0.1 by default)",
                                  description="Serve a service's simulator and print the `export` lines "
                                              "(credentials, base URL, CONFORMANCE_ALLOW) a harness run or client "
                                              "code reads.")
    serve_parser.add_argument("service", help=f"one of: {', '.join(available_services())}")
    serve_parser.add_argument("--port", type=int, default=8080,
                              help="port to listen on; 0: any free port (the printed URL names it)")
    serve_parser.add_argument("--fault", default=None,
                              help="serve with a named fault or allowed variant (`conformance selftest --list`)")
    serve_parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve_parser.add_argument("--clock-rate", type=float, default=1.0,
                              help="simulated seconds per real second (pair with CONFORMANCE_TIME_SCALE)")
    serve_parser.add_argument("--log-level", default="warning",
                              choices=("critical", "error", "warning", "info", "debug", "trace"),
                              help="uvicorn's log level")
    serve_parser.add_argument("--option", action="append", metavar="NAME=VALUE",
                              help="simulator setting, e.g. product=shodan for scanning's first path segment")
    serve_parser.set_defaults(func=serve)


def serve(args: argparse.Namespace) -> int:
    from conformance.services import create_simulator, fault_decorator
    from conformance.simulators.base import WallClock
    from conformance.simulators.sandbox import bind

    if not 0 <= args.port <= 65535:
        raise HarnessError(f"port {args.port} is out of range")
    if not math.isfinite(args.clock_rate) or args.clock_rate <= 0:
        raise HarnessError(f"--clock-rate must be a finite number above 0, got {args.clock_rate}")
    options = simulator_options(args.option or [])
    sim = create_simulator(args.service, WallClock(rate=args.clock_rate), **options)
    if args.fault:
        sim = fault_decorator(args.service, args.fault)(sim)
    # Bound before anything is printed: a taken port is one line, and no credential is shown for it.
    sock = bind(args.host, args.port)
    base_url = f"http://{args.host}:{sock.getsockname()[1]}"
    _print_exports(args, sim.credentials, base_url, _path_settings(args.service, options))
    _listen(args, sim, sock)
    return 0


def simulator_options(items: list[str]) -> dict[str, str]:
    """``--option NAME=VALUE`` items as simulator keyword arguments; a malformed one is one line."""
    options = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise HarnessError(f"--option takes NAME=VALUE, got '{item}'")
        if not value:  # an empty path segment would make every path 404
            raise HarnessError(f"--option {name} needs a value, got '{item}'")
        if name == "clock":
            raise HarnessError("--option clock is not a simulator option; use --clock-rate")
        options[name] = value
    return options


def _path_settings(service: str, options: dict[str, str]) -> dict[str, str]:
    """The options that are the contract's path settings (printed as their variables). The
    contract costs a quarter of a second to load: only read when there are options to sort."""
    if not options:
        return {}
    from conformance.contract import load_contract

    variables = load_contract(service).server_variables()
    return {k: v for k, v in options.items() if k in variables}


def _print_exports(args: argparse.Namespace, credentials: Mapping[str, str], base_url: str,
                   path_settings: dict[str, str]) -> None:
    from conformance.simulators.sandbox import export_lines

    with_fault = f" with {args.fault}" if args.fault else ""
    print(f"# serving the {args.service} simulator{with_fault} on {base_url} (clock rate {args.clock_rate}); "
          "paste these lines into a shell, then `conformance run --target http "
          f"--service {args.service}`:", flush=True)
    for line in export_lines(args.service, credentials, base_url, path_settings=path_settings,
                             clock_rate=args.clock_rate):
        print(line, flush=True)


def _listen(args: argparse.Namespace, sim: Simulator, sock: socket.socket) -> None:
    import uvicorn

    from conformance.simulators.asgi import UVICORN_OPTIONS, SimulatorApp

    config = uvicorn.Config(SimulatorApp(sim), host=args.host, port=sock.getsockname()[1], log_level=args.log_level,
                            **UVICORN_OPTIONS)
    uvicorn.Server(config).run(sockets=[sock])

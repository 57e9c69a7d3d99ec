"""``conformance proxy``: a local HTTP proxy in front of a service's upstream that passes every
exchange through unchanged and holds it to the contract, both sides; stopping it (Ctrl-C,
SIGTERM) writes what it saw as a run (summary.json, triage.md).

Exit status: the first signal is how a proxy session ends, so it is not an interruption: the
report is written and the status is the verdict, as a finished run's (0; 1 when the vendor broke a
rule; 2 for a harness error, a check that raised included; 3 when no exchange passed or failed any
rule, as a run that checked nothing). Signals while the report is written are deferred (the report
is written whole, the status is still the verdict); a third ends the process at once with 130
(SIGINT) or 143 (SIGTERM), as an interrupted run's.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from conformance.cli.ids import available_services
from conformance.errors import HarnessError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["proxy", "register"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("proxy", help="a checking proxy: a team's own traffic to a service held to its contract",
                            description="Forward every request to --upstream, return its answer unchanged, and check "
                                        "each exchange against the contract (the vendor's side and the caller's). "
                                        "Ctrl-C or SIGTERM writes summary.json and triage.md as a run does.")
    parser.add_argument("service", help=f"one of: {', '.join(available_services())}")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--upstream", help="base URL of the service the proxy forwards to")
    source.add_argument("--recheck", metavar="CASSETTES",
                        help="no proxy: hold the exchanges a session recorded (its cassettes/ folder) to today's "
                             "contract again and write the report")
    parser.add_argument("--port", type=int, default=8090,
                        help="port on 127.0.0.1 to listen on; 0: any free port (the printed URL names it)")
    parser.add_argument("--report-dir", default=None,
                        help="where summary.json and triage.md go (default: a new reports/runs/<time>/)")
    parser.add_argument("--option", action="append", metavar="NAME=VALUE",
                        help="a path setting the documents do not show (see `conformance env`), as for `run`, "
                             "e.g. product=shodan")
    parser.add_argument("--record", action="store_true",
                        help="write each exchange as a scrubbed cassette under REPORT_DIR/cassettes/")
    parser.add_argument("--log-level", default="warning",
                        choices=("critical", "error", "warning", "info", "debug", "trace"), help="uvicorn's log level")
    parser.set_defaults(func=proxy)


def proxy(args: argparse.Namespace) -> int:
    from pathlib import Path

    from conformance.cli.preflight import apply_path_options
    from conformance.cli.rundirs import new_run_dir, point_latest
    from conformance.contract import load_contract
    from conformance.proxy.app import ProxyApp, ProxySession
    from conformance.proxy.forward import Forwarder
    from conformance.settings import Limits, env_name
    from conformance.simulators.sandbox import bind, shell_quote

    if not 0 <= args.port <= 65535:
        raise HarnessError(f"port {args.port} is out of range")
    contract = load_contract(args.service)
    # Before the operations are indexed: the path settings make the prefix requests are matched under.
    apply_path_options(args.option or [], [args.service])
    limits = Limits.from_env()
    if args.report_dir:  # before anything listens: a refused directory is one line
        _check_report_dir(Path(args.report_dir))
    if args.recheck:
        return _recheck(args, contract, limits)
    forwarder = Forwarder(args.upstream, limits)
    sock = bind("127.0.0.1", args.port)
    report_dir = Path(args.report_dir) if args.report_dir else new_run_dir(Path("reports"))
    session = ProxySession(contract, forwarder, limits, record_to=report_dir / "cassettes" if args.record else None)
    base_url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    print(f"# proxying {args.service} on {base_url} to {forwarder.origin}; point the client's base URL here. "
          f"Ctrl-C or SIGTERM writes {report_dir}/summary.json", flush=True)
    print(f"export {env_name(args.service, 'BASE_URL')}={shell_quote(base_url)}", flush=True)
    stopped_by = _serve(args, ProxyApp(session), sock)
    code = _write(session, report_dir, stopped_by)
    if not args.report_dir:
        point_latest(report_dir)
    return code


def _check_report_dir(report_dir: Path) -> None:
    """As a run's (no link where it writes), and its cassettes/ folder no link either."""
    from conformance.cli.rundirs import check_report_dir

    check_report_dir(report_dir)
    if (report_dir / "cassettes").is_symlink():
        raise HarnessError(f"--report-dir {report_dir}: cassettes is a symbolic link; the proxy writes its own "
                           "files and never follows a link out of its directory: remove it or pick another "
                           "--report-dir")


def _recheck(args: argparse.Namespace, contract: Any, limits: Any) -> int:
    """``--recheck CASSETTES``: the recorded exchanges through the checks, no network."""
    from pathlib import Path

    from conformance.cli.rundirs import new_run_dir, point_latest
    from conformance.proxy.app import ProxySession
    from conformance.proxy.forward import Forwarder
    from conformance.proxy.recheck import recheck

    folder = Path(args.recheck)
    # The forwarder is never used: the session names it as the origin the exchanges went to.
    session = ProxySession(contract, Forwarder("http://recorded.invalid", limits), limits)
    recheck(session, folder)
    report_dir = Path(args.report_dir) if args.report_dir else new_run_dir(Path("reports"))
    code = _write(session, report_dir, None)
    if not args.report_dir:
        point_latest(report_dir)
    return code


def replayed_session(args: argparse.Namespace, target: str, cassette_dir: str) -> int | None:
    """``conformance run --target replay --cassette-dir DIR`` where DIR (or DIR/cassettes) holds a
    proxy session's cassettes (``exchange-*.yaml``, not one file per rule): the traffic re-judged
    against today's contract, as ``conformance proxy SERVICE --recheck DIR`` does (a run's rules send
    their own requests, which a session's traffic never answers). None for any other run."""
    from pathlib import Path

    from conformance.contract import load_contract
    from conformance.settings import Limits

    if target != "replay":
        return None
    folder = Path(cassette_dir)
    folder = folder / "cassettes" if not any(folder.glob("exchange-*.yaml")) else folder
    if not any(folder.glob("exchange-*.yaml")):
        return None
    if len(args.service or []) != 1:
        raise HarnessError(f"--cassette-dir {cassette_dir} holds a proxy session's exchanges: name the service they "
                           "went to (one --service ID)")
    if args.report_dir:
        _check_report_dir(Path(args.report_dir))
    recheck = argparse.Namespace(recheck=str(folder), report_dir=args.report_dir)
    return _recheck(recheck, load_contract(args.service[0]), Limits.from_env())


def _serve(args: argparse.Namespace, app: Any, sock: Any) -> str | None:
    """Serve until the first SIGINT or SIGTERM; its name. uvicorn would raise the signal again once
    stopped (ending the process before the report is written): this server only notes it."""
    import signal

    import uvicorn

    from conformance.simulators.asgi import UVICORN_OPTIONS

    class _Server(uvicorn.Server):
        stopped_by: str | None = None

        def handle_exit(self, sig: int, frame: Any) -> None:
            if self.stopped_by is None:
                self.stopped_by = signal.Signals(sig).name
            self.should_exit = True

    # No Server or Date header of its own: the caller gets the upstream's headers, no more.
    config = uvicorn.Config(app, host="127.0.0.1", port=sock.getsockname()[1], log_level=args.log_level,
                            server_header=False, **UVICORN_OPTIONS)
    server = _Server(config)
    server.run(sockets=[sock])
    return server.stopped_by


def _write(session: Any, report_dir: Path, stopped_by: str | None) -> int:
    import sys

    from conformance import interrupts
    from conformance.proxy.report import write_report

    interrupts.install()
    interrupts.stop_raising()  # signals from here are recorded; the third ends the process (130/143)
    interrupts.checkpoint("proxy-report")
    try:
        data = write_report(session, report_dir, stopped_by)
    except OSError as exc:
        raise HarnessError(f"cannot write the proxy's report into {report_dir}: {exc.strerror}") from None
    proxy = data["services"][session.contract.service]["proxy"]
    counts = data["counts"]
    print(f"conformance proxy: {proxy['exchanges']} exchanges; rules: {counts.get('passed', 0)} passed, "
          f"{counts.get('failed', 0)} failed, {counts.get('skipped', 0)} skipped; "
          f"{proxy['caller_mistakes_total']} caller mistakes; report in {report_dir}", file=sys.stderr)
    if session.harness_errors:
        return 2
    if session.tally.vendor_failed():
        return 1
    if not session.tally.judged():
        # As a run that checked nothing: no green verdict for traffic that showed no rule.
        print(f"conformance proxy: no exchange passed or failed any rule ({proxy['exchanges']} exchanges): "
              "incomplete, exit 3", file=sys.stderr)
        return 3
    return 0

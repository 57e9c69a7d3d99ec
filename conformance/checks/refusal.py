"""One notion of "refused", used by every check that expects a request to be turned down.

* The rule documents a status: exactly that status.
* Otherwise any 4xx, but only after a control request that differs in nothing but the point
  under test succeeded first: without it, "any 4xx" is also met by a 404 for a route the target
  does not serve or for a placeholder id, which shows nothing about the rule.
* 401 to a credential variant needs no control: HTTP defines it as "credentials refused"
  (RFC 9110, section 15.5.2).
* A 5xx is never a refusal: it is a crash.
"""

from __future__ import annotations

from collections.abc import Callable

from conformance.checks.context import CheckContext
from conformance.checks.expect import expect, expect_status
from conformance.errors import ContractFailure, SkipKind
from conformance.transport.model import Exchange

__all__ = ["documented_status", "expect_accepted", "expect_refused", "refusal_answer", "refused_statuses"]

ANY_4XX = frozenset(range(400, 500))


def documented_status(ctx: CheckContext) -> int | None:
    status = (ctx.rule.violation or {}).get("status")
    return int(status) if status else None


def refused_statuses(ctx: CheckContext) -> set[int]:
    status = documented_status(ctx)
    return {status} if status else set(ANY_4XX)


def expect_accepted(ctx: CheckContext, exchange: Exchange, why: str) -> None:
    """The control: a 2xx. A control that is not accepted means the refusal would show nothing,
    so the rule is skipped as not exercised (the control's own rule reports the problem)."""
    if exchange.transient:
        ctx.skip(f"control request ({why}) kept answering {exchange.transient}, which the document tells clients "
                 "to retry: a refusal would show nothing", SkipKind.TARGET_TRANSIENT)
    if not 200 <= exchange.response.status < 300:
        ctx.skip(f"control request not accepted ({why}: got {exchange.response.status}), so a refusal "
                 "would show nothing about this rule")


def refusal_answer(ctx: CheckContext, refused: Callable[[], Exchange], control: Callable[[], Exchange],
                   why: str) -> Exchange:
    """The answer to a request that must be refused, sent after its control was accepted, for the
    check to judge. A status the document says to retry, still there after the retries: the
    control is sent again, and while it is accepted the target is answering and the answer stands
    (a 5xx is never a refusal); when it is not, the rule is unchecked (``expect_accepted``). Sends
    nothing more otherwise, so a recorded run replays as it was."""
    with ctx.judging_refusal():
        got = refused()
    if got.transient and not 400 <= got.response.status < 500:
        expect_accepted(ctx, control(), f"{why} (the control, sent again)")
    return got


def expect_refused(ctx: CheckContext, why: str, refused: Callable[[], Exchange], *,
                   control: Callable[[], Exchange] | None = None, credential_variant: bool = False) -> Exchange:
    """Send the request under test (``refused``) and hold its answer to a refusal (module doc).

    ``control`` sends the same request with the point under test made valid. It is sent first
    when the rule documents no status; for a credential variant it is sent only when the
    answer is not 401 (a placeholder id may make the control itself a 404)."""
    status = documented_status(ctx)
    if status is None and control is not None and not credential_variant:
        expect_accepted(ctx, control(), why)
    with ctx.judging_refusal():
        got = refused()
    if got.transient and not 400 <= got.response.status < 500:
        # A status the document says to retry, still there after the retries: a storm, or an
        # answer to this very request? The control tells: while it is accepted, the target is
        # answering, and the refusal is judged as it stands (a 5xx is never a refusal). With no
        # control nothing tells, and the rule is unchecked.
        if control is None:
            ctx.skip(f"{why}: kept answering {got.transient}, which the document tells clients to retry, and no "
                     "control request shows the target up", SkipKind.TARGET_TRANSIENT)
        expect_accepted(ctx, control(), why)
    if status is not None:
        expect_status(ctx.rule.id, got, status, why)
        return got
    expect_status(ctx.rule.id, got, ANY_4XX, why)
    if credential_variant and got.response.status != 401:
        if control is None:
            raise ContractFailure(ctx.rule.id, f"{why}: answered {got.response.status}, not 401, and no control "
                                  "request shows the refusal is about the credential", expected="401", exchange=got)
        answer = control()
        expect(answer.response.status != got.response.status, ctx.rule.id,
               f"{why}: answered {got.response.status} with and without valid credentials, so the refusal is "
               "not about the credential", exchange=answer,
               expected="a different answer once valid credentials are sent")
    elif not credential_variant and control is None:
        expect(False, ctx.rule.id, f"{why}: {got.response.status} with no documented status and no control "
               "request to compare with", exchange=got, expected="the documented status, or a control that succeeded")
    return got

"""DEP002: Order/Allow/Deny and Require in the same section.

mod_access_compat (Order/Allow/Deny) and mod_authz_core (Require) are two checks
(``server/request.c``, ap_process_request_internal): with Satisfy All -- the default -- a
request must pass both, with Satisfy Any one is enough (the compat check first).  A section
holding any compat line has a compat configuration of its own, defaults included (Order
Deny,Allow, no lists): mod_access_compat has no merge function.  So when each side says
the same for every request, or when one side's answer makes the other's irrelevant, the
mix changes nothing: that is the deny-all pattern applications ship for 2.2 and 2.4 alike,
and only worth a warning.  Otherwise the 2.2 lines change what Apache 2.4 answers: an error.
"""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.dep.access import ACCESS_COMPAT, REQUIRE, translate
from confmig.syntax import Directive


@register
class MixedAccessControl(Rule):
    code = "DEP002"
    name = "mixed-access-control"
    summary = "Order/Allow/Deny mixed with Require in one section: both must allow a request"
    rationale = (
        "mod_access_compat (Order/Allow/Deny) and mod_authz_core (Require) are two separate "
        "checks. With 'Satisfy All' — the default — a request must pass both, so "
        "'Require all granted' does not lift a 'Deny from all', and 'Allow from all' does not "
        "lift 'Require all denied'; with 'Satisfy Any' passing either one is enough. "
        "Verified on Apache 2.4: 'Require all granted' with 'Order deny,allow' + "
        "'Deny from all' answers 403, and 200 once 'Satisfy Any' is added; 'Require all "
        "denied' with 'Satisfy Any' alone answers 200 (the section's Order/Allow/Deny "
        "defaults let everyone in). Pick one system — Require. Where the two cannot change "
        "the answer — both deny every request, as the deny-all blocks many applications "
        "ship for 2.2 and 2.4 do (Require all denied next to Order Allow,Deny + Deny from "
        "all, 403 either way), or one side makes the other irrelevant — it is a warning "
        "that says why; mod_access_compat's lines are still inherited by the sections "
        "below, where a Require alone cannot open access again."
    )
    bad = "Require all granted\nOrder deny,allow\nDeny from all\n"
    good = "Require all denied\n"
    severity = Severity.error
    fix = "remove Order/Allow/Deny/Satisfy and express the whole policy with Require"
    harmless_fix = ("read the 2.2 lines only on 2.2: wrap them in <IfModule !mod_authz_core.c> "
                    "(or drop them)")

    file_directives = ACCESS_COMPAT

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        grouped = _grouped(ctx)
        for scope in ctx.scopes():
            new = [d for d in scope.directives if d.lname in REQUIRE]
            if not new:  # (read first: most sections have none)
                continue
            old = [d for d in scope.directives if d.lname in ACCESS_COMPAT]
            if not old:
                continue
            satisfy = [d for d in old if d.lname == "satisfy" and d.args]
            any_ = bool(satisfy) and satisfy[-1].args[0].lower() == "any"
            rule = ("either one granting is enough (Satisfy Any)" if any_
                    else "a request must pass both (Satisfy All, the default)")
            first = min(old[0], new[0], key=lambda d: (d.line, d.column))
            what = (f"{old[0].name} (line {old[0].line}) and {new[0].name} (line "
                    f"{new[0].line}) in {scope.label} are two separate checks: {rule}")
            why = _harmless(_compat_verdict(old, grouped), _require_verdict(new, grouped),
                            any_)
            if why is None:
                yield self.finding(first, what)
            else:
                yield self.finding(first, f"{what}; {why}", hint=self.harmless_fix,
                                   severity=Severity.warning)


# Sections inside a scope that make a line apply to some methods only, or group Require lines:
# a verdict for "every request" is not read through them.
_GROUPS = frozenset({"limit", "limitexcept", "requireall", "requireany", "requirenone"})
_INHERITED = ("; mod_access_compat's lines carry on into sections below that have none of "
              "their own, so one there that opens access with Require alone is still refused")


def _grouped(ctx: FileContext) -> set[int]:
    """ids of the directives of *ctx* inside a <Limit>/<LimitExcept>/<Require*> section."""
    return {id(node) for node, parents in ctx.walk()
            if any(p.lname in _GROUPS for p in parents)}


def _compat_verdict(old: list[Directive], grouped: set[int]) -> str | None:
    """"deny"/"grant" when this section's Order/Allow/Deny answer every request alike."""
    if any(id(d) in grouped for d in old):
        return None
    equivalent = translate([d for d in old if d.lname != "satisfy"])
    return {"Require all denied": "deny", "Require all granted": "grant"}.get(equivalent or "")


def _require_verdict(new: list[Directive], grouped: set[int]) -> str | None:
    """"deny"/"grant" when this section's Require lines (one RequireAny) answer every
    request alike."""
    if any(id(d) in grouped for d in new):
        return None
    words = [tuple(a.lower() for a in d.args) for d in new]
    if words and all(w == ("all", "denied") for w in words):
        return "deny"
    if ("all", "granted") in words:
        return "grant"
    return None


def _harmless(compat: str | None, require: str | None, any_: bool) -> str | None:
    """Why Apache answers as the Require lines alone would, or None when the 2.2 lines can
    change the answer (Satisfy All: compat AND Require; Satisfy Any: compat OR Require)."""
    inherited = _INHERITED if compat == "deny" else ""
    if compat is not None and compat == require:
        answer = "403 for every request" if compat == "deny" else "every request let through"
        return (f"both generations {compat} every request, so it is {answer} whatever "
                f"Satisfy says and the 2.2 lines change nothing here{inherited}")
    if not any_ and (compat == "grant" or require == "deny"):
        side = ("the Order/Allow/Deny lines let every request through"
                if compat == "grant" else "Require denies every request")
        return f"{side}, so the Require lines alone decide{inherited}"
    if any_ and (compat == "deny" or require == "grant"):
        side = ("the Order/Allow/Deny lines refuse every request" if compat == "deny"
                else "Require lets every request through")
        return f"{side}, so the Require lines alone decide{inherited}"
    return None

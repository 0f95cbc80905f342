"""DEP002: Order/Allow/Deny and Require in the same section."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.dep.access import ACCESS_COMPAT, REQUIRE
from confmig.lint.rules.rw.scopes import scopes


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
        "'Deny from all' answers 403, and 200 once 'Satisfy Any' is added. Pick one system "
        "— Require."
    )
    bad = "Require all granted\nOrder deny,allow\nDeny from all\n"
    good = "Require all denied\n"
    severity = Severity.error
    fix = "remove Order/Allow/Deny/Satisfy and express the whole policy with Require"

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in scopes(ctx):
            old = [d for d in scope.directives if d.lname in ACCESS_COMPAT]
            new = [d for d in scope.directives if d.lname in REQUIRE]
            if not old or not new:
                continue
            satisfy = [d for d in old if d.lname == "satisfy" and d.args]
            any_ = bool(satisfy) and satisfy[-1].args[0].lower() == "any"
            rule = ("either one granting is enough (Satisfy Any)" if any_
                    else "a request must pass both (Satisfy All, the default)")
            first = min(old[0], new[0], key=lambda d: (d.line, d.column))
            yield self.finding(
                first,
                f"{old[0].name} (line {old[0].line}) and {new[0].name} (line {new[0].line}) "
                f"in {scope.label} are two separate checks: {rule}")

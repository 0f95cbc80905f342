"""DEP001: Order / Allow / Deny / Satisfy (mod_access_compat)."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.lint.rules.dep.access import ACCESS_COMPAT, translate

UPGRADE_DOC = "https://httpd.apache.org/docs/2.4/upgrading.html#access"


@register
class AccessCompat(Rule):
    code = "DEP001"
    name = "deprecated-access-control"
    summary = "Order/Allow/Deny/Satisfy are Apache 2.2 access control (mod_access_compat)"
    rationale = (
        "Apache 2.4 replaced Order, Allow, Deny and Satisfy with Require (mod_authz_host, "
        "mod_authz_core). The old directives only work while mod_access_compat is loaded — "
        "without it every one of them is an 'Invalid command' (httpd does not start, or a "
        ".htaccess answers 500) — and they are evaluated separately from Require, which "
        "makes mixed configurations surprising (see DEP002)."
    )
    bad = "Order deny,allow\nDeny from all\nAllow from 192.168.1.0/24\n"
    good = "Require ip 192.168.1.0/24\n"
    fix = "replace with Require"

    file_directives = ACCESS_COMPAT

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.scopes():
            # (no list of the section's Order/Allow/Deny lines: translate passes over others)
            lines = scope.directives
            first = next((d for d in lines if d.lname in ACCESS_COMPAT), None)
            if first is None:
                continue
            names = "/".join(dict.fromkeys(d.name for d in lines if d.lname in ACCESS_COMPAT))
            equivalent = translate(lines)
            if equivalent is not None:
                hint = f"replace with: {equivalent}"
                message = (f"{names} in {scope.label} is 2.2 access control "
                           f"(mod_access_compat); the 2.4 equivalent is '{equivalent}'")
            else:
                hint = f"rewrite with Require / <RequireAll> / <RequireAny>: {UPGRADE_DOC}"
                message = (f"{names} in {scope.label} is 2.2 access control "
                           "(mod_access_compat); rewrite it with Require")
            yield self.finding(first, message, hint=hint)

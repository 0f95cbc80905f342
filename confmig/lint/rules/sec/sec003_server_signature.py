"""SEC003: ServerSignature On."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.syntax import Directive, Section


@register
class ServerSignatureOn(Rule):
    code = "SEC003"
    name = "server-signature-on"
    summary = "ServerSignature On adds the server version to error pages and listings"
    rationale = (
        "ServerSignature On (or EMail) appends a footer line such as 'Apache/2.4.71 "
        "(Debian) Server at example.com Port 80' to every server-generated page: error "
        "documents, directory listings, mod_proxy errors. It tells an attacker the exact "
        "version to look up. The default is Off."
    )
    bad = "ServerSignature On\n"
    good = "ServerSignature Off\n"
    fix = "ServerSignature Off"

    directives = frozenset({"serversignature"})

    def check_directive(self, d: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        if d.args and d.args[0].lower() in ("on", "email"):
            yield self.finding(d, f"ServerSignature {d.args[0]}: error pages and listings "
                                  "show the Apache version and host name")

"""PERF002: HostnameLookups On/Double."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.syntax import Directive, Section


@register
class HostnameLookupsOn(Rule):
    code = "PERF002"
    name = "hostname-lookups"
    summary = "HostnameLookups On/Double: a reverse DNS lookup for every request"
    rationale = (
        "With HostnameLookups On, Apache resolves the client's address to a name for "
        "every request before logging it (Double adds a forward lookup to check it). "
        "Each lookup can take up to the resolver timeout, holding a worker meanwhile. "
        "Resolve names offline from the logs instead (logresolve)."
    )
    bad = "<Directory /var/www/html>\n    HostnameLookups On\n</Directory>\n"
    good = "<Directory /var/www/html>\n    HostnameLookups Off\n</Directory>\n"
    example_kind = "server"
    fix = "HostnameLookups Off (resolve the logs offline with logresolve)"

    directives = frozenset({"hostnamelookups"})

    def check_directive(self, d: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        if d.args and d.args[0].lower() in ("on", "double"):
            yield self.finding(d, f"HostnameLookups {d.args[0]}: every request waits for "
                                  "a reverse DNS lookup of the client")

"""SEC005: TRACE left enabled."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext, LintContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.lint.rules.sec.server_wide import first_directive, full_config, top_directives
from confmig.syntax import Directive, Section


@register
class TraceEnabled(Rule):
    code = "SEC005"
    name = "trace-enabled"
    summary = "TRACE is enabled (TraceEnable On, or not set in the server config)"
    rationale = (
        "TraceEnable defaults to On: the core answers a TRACE request by echoing the "
        "request, headers included, back to the client (verified on Apache 2.4: 200 with "
        "the request in the body; 405 with 'TraceEnable Off'). It has no use on a "
        "production site and helps cross-site tracing attacks that read headers such as "
        "cookies or proxy credentials."
    )
    bad = "ServerRoot /etc/apache2\nListen 80\nTraceEnable On\n"
    good = "ServerRoot /etc/apache2\nListen 80\nTraceEnable Off\nServerTokens Prod\n"
    example_kind = "server"
    fix = "TraceEnable Off"

    directives = frozenset({"traceenable"})

    def check_directive(self, d: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        if d.args and d.args[0].lower() in ("on", "extended"):
            yield self.finding(d, f"TraceEnable {d.args[0]}: TRACE requests are echoed "
                                  "back to the client")

    def check_tree(self, ctx: LintContext) -> Iterator[Finding]:
        server = ctx.server
        if server is None or not full_config(server):
            return
        if top_directives(server.nodes, "traceenable"):
            return
        anchor = first_directive(server)
        if anchor is not None:
            yield self.finding(anchor, "no TraceEnable in this server config: TRACE is on by "
                                       "default and echoes requests back")

"""SEC004: ServerTokens other than Prod."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext, LintContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.lint.rules.sec.server_wide import first_directive, full_config, top_directives
from confmig.syntax import Directive, Section

_QUIET = frozenset({"prod", "productonly"})


@register
class ServerTokensVerbose(Rule):
    code = "SEC004"
    name = "server-tokens-not-prod"
    summary = "ServerTokens is not Prod: the Server header carries version and OS"
    rationale = (
        "ServerTokens decides the 'Server:' response header. The default, Full, sends "
        "'Apache/2.4.71 (Debian) OpenSSL/3.0.x …'; OS, Minor, Major and Min send less but "
        "still a version. 'ServerTokens Prod' sends just 'Apache'. It can only be set for "
        "the whole server."
    )
    bad = "ServerRoot /etc/apache2\nListen 80\nServerTokens OS\n"
    good = "ServerRoot /etc/apache2\nListen 80\nServerTokens Prod\nTraceEnable Off\n"
    example_kind = "server"
    fix = "ServerTokens Prod"

    directives = frozenset({"servertokens"})

    def check_directive(self, d: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        if d.args and d.args[0].lower() not in _QUIET:
            yield self.finding(d, f"ServerTokens {d.args[0]}: the Server header reveals "
                                  "the Apache version")

    def check_tree(self, ctx: LintContext) -> Iterator[Finding]:
        server = ctx.server
        if server is None or not full_config(server):
            return
        if top_directives(server.nodes, "servertokens"):
            return
        anchor = first_directive(server)
        if anchor is not None:
            yield self.finding(anchor, "no ServerTokens in this server config: the default "
                                       "(Full) sends the Apache version and OS in every "
                                       "response's Server header")

"""CTX005: Require, Order and other per-directory directives at the server level."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import ANY_DIRECTIVE, Rule, register
from confmig.lint.rules.ctx.ctx004_server_only_in_directory import per_dir_parent
from confmig.syntax import Directive, Section


@register
class DirectoryOnlyAtServerLevel(Rule):
    code = "CTX005"
    name = "directory-directive-at-server-level"
    summary = "Require, Order, Allow, Deny… outside any <Directory>, <Location> or <Files>"
    rationale = (
        "Access control (Require, Order, Allow, Deny, Satisfy) and other per-directory "
        "directives only exist inside <Directory>, <Location>, <Files> or <If> sections (and "
        ".htaccess). At the top of a server config or directly inside <VirtualHost>, Apache "
        "stops with \"Require not allowed here\" and refuses to start "
        "(h5bp/server-configs-apache#211)."
    )
    bad = "<VirtualHost *:80>\n    ServerName example.com\n    Require all granted\n" \
          "</VirtualHost>\n"
    good = ("<VirtualHost *:80>\n    ServerName example.com\n    <Location \"/\">\n"
            "        Require all granted\n    </Location>\n</VirtualHost>\n")
    severity = Severity.error
    example_kind = "server"
    fix = "put it inside a <Directory> or <Location> section"

    directives = frozenset({ANY_DIRECTIVE})
    kinds = frozenset({"server"})

    def check_directive(self, node: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        if per_dir_parent(parents) is not None:
            return
        info = ctx.info(node)
        if info is None or not ctx.module_loaded(info):
            return
        contexts = set(info.contexts)
        if contexts & {"server config", "virtual host"} or "directory" not in contexts:
            return
        vhost = next((p for p in parents if p.lname == "virtualhost"), None)
        where = "not allowed in <VirtualHost> context" if vhost else "not allowed here"
        yield self.finding(node, f"{node.name} {where}: Apache refuses to start")

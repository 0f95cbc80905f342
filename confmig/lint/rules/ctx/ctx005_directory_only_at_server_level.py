"""CTX005: Require, Order and other per-directory directives at the server level."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.ctx.ctx004_server_only_in_directory import per_dir_parent


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

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        if ctx.kind != "server":
            return
        for node, parents in ctx.directives():
            if per_dir_parent(parents) is not None:
                continue
            info = ctx.info(node)
            if info is None or not ctx.module_loaded(info):
                continue
            contexts = set(info.contexts)
            if contexts & {"server config", "virtual host"} or "directory" not in contexts:
                continue
            vhost = next((p for p in parents if p.lname == "virtualhost"), None)
            where = "not allowed in <VirtualHost> context" if vhost else "not allowed here"
            yield self.finding(node, f"{node.name} {where}: Apache refuses to start")

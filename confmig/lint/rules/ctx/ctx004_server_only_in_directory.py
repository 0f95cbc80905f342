"""CTX004: a server-level directive inside a per-directory section of a server config."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import ANY_DIRECTIVE, ANY_SECTION, Rule, register
from confmig.syntax import Directive, Section

# Sections whose body is per-directory configuration (cmd->path is set, or <If>).
PER_DIR = frozenset({"directory", "directorymatch", "location", "locationmatch", "files",
                     "filesmatch", "if", "elseif", "else", "proxy", "proxymatch"})
PROXY = frozenset({"proxy", "proxymatch"})


def per_dir_parent(parents: tuple[Section, ...]) -> Section | None:
    return next((p for p in reversed(parents) if p.lname in PER_DIR), None)


@register
class ServerOnlyInDirectory(Rule):
    code = "CTX004"
    name = "server-directive-in-directory"
    summary = "A server-level directive inside <Directory>, <Location> or <Files>"
    rationale = (
        "Directives such as ServerName, Listen, DocumentRoot, Alias, ErrorLog or KeepAlive "
        "apply to a whole server or virtual host. Inside a <Directory>, <Location>, <Files> or "
        "<If> section Apache stops with \"X not allowed in <Directory> context\" and refuses "
        "to start."
    )
    bad = ("<Directory /var/www/html>\n    DocumentRoot /var/www/html\n"
           "    Require all granted\n</Directory>\n")
    good = ("DocumentRoot /var/www/html\n<Directory /var/www/html>\n"
            "    Require all granted\n</Directory>\n")
    severity = Severity.error
    example_kind = "server"
    fix = "move it out of the section, to the server or <VirtualHost> level"

    directives = frozenset({ANY_DIRECTIVE, ANY_SECTION})
    kinds = frozenset({"server"})

    def check_directive(self, node: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        parent = per_dir_parent(parents)
        if parent is None:
            return
        info = ctx.info(node)
        if info is None or not ctx.module_loaded(info):
            return
        contexts = set(info.contexts)
        if "directory" in contexts or ".htaccess" in contexts:
            return
        if parent.lname in PROXY and "proxy section" in contexts:
            return
        if not contexts & {"server config", "virtual host"}:
            return
        label = f"<{node.name}>" if isinstance(node, Section) else node.name
        yield self.finding(node, f"{label} not allowed in <{parent.name}> context: "
                                 "Apache refuses to start")

"""CTX001: a directive that is never allowed in .htaccess."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import ANY_DIRECTIVE, ANY_SECTION, Rule, register
from confmig.syntax import Directive, Section


@register
class NotAllowedInHtaccess(Rule):
    code = "CTX001"
    name = "directive-not-allowed-in-htaccess"
    summary = "A directive that Apache never allows in .htaccess"
    rationale = (
        "Server-level directives (ServerName, Listen, LoadModule, DocumentRoot, Alias, "
        "HostnameLookups…) and the <Directory>, <VirtualHost> and <Location> sections belong "
        "to the server config. In a .htaccess file Apache answers \"X not allowed here\" with a "
        "500 Internal Server Error for every request under that directory, whatever "
        "AllowOverride says."
    )
    bad = "ServerName www.example.com\n"
    good = "# ServerName belongs in the <VirtualHost> of the server config\n"
    severity = Severity.error
    fix = "move it to the server config (the <VirtualHost> or a <Directory> block)"

    directives = frozenset({ANY_DIRECTIVE, ANY_SECTION})
    kinds = frozenset({"htaccess"})

    def check_directive(self, node: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterable[Finding]:
        info = ctx.info(node)
        if info is None or not ctx.module_loaded(info) or ".htaccess" in info.contexts:
            return ()  # (the common case, answered without making a generator)
        return self._check(node, ctx)

    def _check(self, node: Directive | Section, ctx: FileContext) -> Iterator[Finding]:
        info = ctx.info(node)
        if info is None or not ctx.module_loaded(info):
            return  # SYN003
        if ".htaccess" in info.contexts:
            return
        if node.name.lower() in ctx.overrides.allow_override_list and info.listable is not False:
            return  # AllowOverrideList admits even <Directory>-only directives
        label = f"<{node.name}" if isinstance(node, Section) else node.name
        if "Override" in ctx.overrides.nonfatal:
            yield self.finding(node, f"{label} is not allowed in .htaccess: Apache ignores "
                                     "it (AllowOverride Nonfatal=Override)",
                               severity=Severity.warning)
        else:
            yield self.finding(node, f"{label} not allowed here: Apache answers 500 for "
                                     "every request under this directory")

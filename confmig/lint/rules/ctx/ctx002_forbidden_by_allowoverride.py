"""CTX002: a .htaccess directive the AllowOverride in force does not permit."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import ANY_DIRECTIVE, Rule, register
from confmig.syntax import Directive, Section


@register
class ForbiddenByAllowOverride(Rule):
    code = "CTX002"
    name = "forbidden-by-allowoverride"
    summary = "A .htaccess directive that the AllowOverride in force forbids"
    rationale = (
        "Each .htaccess directive belongs to an override class (AuthConfig, FileInfo, Indexes, "
        "Limit, Options). When the AllowOverride of the directory does not grant that class, "
        "and AllowOverrideList does not name the directive, Apache answers \"X not allowed "
        "here\" with a 500 Internal Server Error for every request under the directory — the "
        "line is not merely ignored (unless AllowOverride has Nonfatal=Override)."
    )
    bad = "RewriteEngine On\n"
    good = "Require all granted\n"
    severity = Severity.error
    example_allow_override = ("AuthConfig",)
    fix = "grant the class in the server's <Directory> AllowOverride, or move the lines there"

    directives = frozenset({ANY_DIRECTIVE})
    kinds = frozenset({"htaccess"})

    def check_directive(self, node: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        granted = ctx.overrides.classes
        listed = ctx.overrides.allow_override_list
        nonfatal = "Override" in ctx.overrides.nonfatal
        source = ctx.overrides.source or "the default"
        if True:
            info = ctx.info(node)
            if info is None or not ctx.module_loaded(info) or ".htaccess" not in info.contexts:
                return  # SYN003 / CTX001
            classes = sorted(info.override_classes)
            if not classes:
                return  # unknown (third-party) or allowed whatever AllowOverride says
            if node.lname in listed:
                if info.listable is not False:
                    return
            elif any(c in granted for c in classes):
                return
            needed = " or ".join(classes)
            state = ctx.overrides.describe()
            if nonfatal:
                yield self.finding(node, f"{node.name} in .htaccess forbidden by AllowOverride "
                                         f"({state}, {source}): Apache ignores it "
                                         f"(Nonfatal=Override); it needs {needed}",
                                   hint=f"add {classes[0]} to AllowOverride",
                                   severity=Severity.warning)
            else:
                yield self.finding(node, f"{node.name} not allowed here: needs AllowOverride "
                                         f"{needed} ({state} in force, {source}); Apache "
                                         "answers 500 for every request under this directory",
                                   hint=f"AllowOverride {classes[0]} (or AllowOverrideList "
                                        f"{node.name}) in the server's <Directory>, or move "
                                        "the lines there")

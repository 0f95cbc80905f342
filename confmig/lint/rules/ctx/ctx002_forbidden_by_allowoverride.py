"""CTX002: a .htaccess directive the AllowOverride in force does not permit."""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator

from confmig.apache.registry import overrides_permit
from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import ANY_DIRECTIVE, Rule, register
from confmig.syntax import Directive, Section

# The model's decision, asked once per (directive, AllowOverride, AllowOverrideList).
_permits = functools.lru_cache(maxsize=4096)(overrides_permit)


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
                        ctx: FileContext) -> Iterable[Finding]:
        info = ctx.info(node)
        if info is None or not ctx.module_loaded(info) or ".htaccess" not in info.contexts:
            return ()  # SYN003 / CTX001
        overrides = ctx.overrides
        if _permits(info.name, overrides.spec, overrides.list_words):
            return ()  # (the common case, answered without making a generator)
        return self._check(node, ctx)

    def _check(self, node: Directive | Section, ctx: FileContext) -> Iterator[Finding]:
        info = ctx.info(node)
        if info is None or not ctx.module_loaded(info) or ".htaccess" not in info.contexts:
            return  # SYN003 / CTX001
        overrides = ctx.overrides
        if _permits(info.name, overrides.spec, overrides.list_words):
            return  # the model's decision, the one explain and convert use
        classes = sorted(info.override_classes)
        needed = " or ".join(classes) or (f"the class of this {info.module} directive, which "
                                          "confmig does not know (only All is sure to grant it)")
        first = classes[0] if classes else "All"
        state = overrides.describe()
        source = overrides.source or "the default"
        if "Override" in overrides.nonfatal:
            yield self.finding(node, f"{node.name} in .htaccess forbidden by AllowOverride "
                                     f"({state}, {source}): Apache ignores it "
                                     f"(Nonfatal=Override); it needs {needed}",
                               hint=f"add {first} to AllowOverride",
                               severity=Severity.warning)
        else:
            yield self.finding(node, f"{node.name} not allowed here: needs AllowOverride "
                                     f"{needed} ({state} in force, {source}); Apache "
                                     "answers 500 for every request under this directory",
                               hint=f"AllowOverride {first} (or AllowOverrideList "
                                    f"{node.name}) in the server's <Directory>, or move "
                                    "the lines there")

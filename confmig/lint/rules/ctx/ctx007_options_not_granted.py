"""CTX007: ``Options`` in .htaccess setting an option AllowOverride Options=… does not grant."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.apache.registry import is_option_keyword
from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.syntax import Directive, Section


@register
class OptionsNotGranted(Rule):
    code = "CTX007"
    name = "option-not-allowed"
    summary = "Options sets an option that AllowOverride Options… does not grant"
    rationale = (
        "`AllowOverride Options=Indexes,MultiViews` lets .htaccess files name only those "
        "options, and a bare `AllowOverride Options` grants Apache's OPT_ALL, which leaves out "
        "MultiViews and SymLinksIfOwnerMatch. `Options +FollowSymLinks` (or `All`, or any "
        "option outside the grant) in such a directory is not ignored: Apache answers "
        "\"Option FollowSymLinks not allowed here\" with a 500 Internal Server Error for every "
        "request under the directory. Turning an option off counts too."
    )
    bad = "Options +FollowSymLinks -Indexes\n"
    good = "Options -Indexes\n"
    severity = Severity.error
    example_allow_override = ("Options=Indexes",)
    fix = "name only the options the server grants, or extend AllowOverride Options=…"

    directives = frozenset({"options"})
    kinds = frozenset({"htaccess"})

    def check_directive(self, node: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        spec = ctx.overrides.spec
        if "Options" not in spec.classes:
            return  # CTX002 reports Options itself
        for word in node.args:
            name = word.lstrip("+-")
            if not is_option_keyword(word):
                break  # "Illegal option": another error
            if not spec.permits_option(word):
                granted = ", ".join(sorted(spec.options or ())) or "none"
                yield self.finding(node, f"Option {name} not allowed here (the options "
                                         f"granted: {granted}; {ctx.overrides.describe()})"
                                         ": Apache answers 500 for every request under "
                                         "this directory")
                break

"""CTX006: AllowOverrideList entries Apache discards (class names, unknown directives)."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.apache.registry import OVERRIDE_CLASSES, override_list
from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.syntax import Directive, Section

_CLASSES = {c.lower() for c in (*OVERRIDE_CLASSES, "All")}


@register
class AllowOverrideListDiscarded(Rule):
    code = "CTX006"
    name = "allowoverridelist-discarded"
    summary = "AllowOverrideList names something that is not a directive: Apache drops it"
    rationale = (
        "AllowOverrideList takes directive names (RewriteEngine, Header…), not AllowOverride "
        "classes. Apache discards a name it does not recognize with only a startup warning "
        "(\"Discarding unrecognized directive `FileInfo' in AllowOverrideList\", AH00116) and "
        "`apache2 -t` still says Syntax OK — so `AllowOverrideList FileInfo` grants nothing, "
        "and with AllowOverride None the .htaccess files are not even read."
    )
    bad = "<Directory /var/www/html>\n    AllowOverride None\n" \
          "    AllowOverrideList FileInfo\n</Directory>\n"
    good = "<Directory /var/www/html>\n    AllowOverride FileInfo\n</Directory>\n"
    severity = Severity.warning
    example_kind = "server"
    fix = "list directive names (AllowOverrideList Redirect RewriteEngine RewriteRule), or use " \
          "AllowOverride for classes"

    directives = frozenset({"allowoverridelist"})
    kinds = frozenset({"server"})

    def check_directive(self, node: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        if [a.lower() for a in node.args] == ["none"]:
            return
        for word in node.args:
            lower = word.lower()
            if lower in _CLASSES:
                yield self.finding(
                    node, f"AllowOverrideList {word}: {word} is an AllowOverride class, "
                          "not a directive; Apache discards it (AH00116)",
                    hint=f"AllowOverride {word if lower != 'all' else 'All'}")
                continue
            if word.lower() not in override_list([word]):
                yield self.finding(
                    node, f"AllowOverrideList {word}: not a directive Apache knows; "
                          "Apache discards it (AH00116)")

"""SYN004: an On/Off directive with another value."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from confmig.apache.arity import is_flag
from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import ANY_DIRECTIVE, Rule, register
from confmig.syntax import Directive, Section


@register
class InvalidOnOff(Rule):
    code = "SYN004"
    name = "invalid-on-off"
    summary = "An On/Off directive has a value that is neither On nor Off"
    rationale = (
        "Flag directives such as RewriteEngine, ExpiresActive or DirectorySlash accept only On "
        "or Off (any case). Anything else — `true`, `1`, `yes`, or no value at all — is a "
        "configuration error: \"RewriteEngine must be On or Off\". In .htaccess Apache answers "
        "500 for every request under the directory; in a server config it refuses to start."
    )
    bad = "ExpiresActive yes\n"
    good = "ExpiresActive On\n"
    severity = Severity.error
    fix = "write On or Off"

    directives = frozenset({ANY_DIRECTIVE})

    def check_directive(self, node: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterable[Finding]:
        args = node.args  # (once: a directive's kept words are split again on each read)
        value = args[0] if args else ""
        if value.lower() in ("on", "off") or "${" in value:
            return ()  # (the common cases, answered without making a generator)
        info = ctx.info(node)
        if info is None or not is_flag(getattr(info, "syntax", None), node.name):
            return ()
        return self._check(node, ctx)

    def _check(self, node: Directive | Section, ctx: FileContext) -> Iterator[Finding]:
        where = ("Apache answers 500 for every request under this directory"
                 if ctx.kind == "htaccess" else "Apache refuses to start")
        value = node.args[0] if node.args else ""
        if value.lower() in ("on", "off") or "${" in value:
            return
        info = ctx.info(node)
        if info is None or not is_flag(getattr(info, "syntax", None), node.name):
            return
        if not ctx.module_loaded(info):
            return  # SYN003 says the module is missing
        shown = f" (got {value!r})" if value else " (no value given)"
        yield self.finding(node, f"{node.name} must be On or Off{shown}: {where}")

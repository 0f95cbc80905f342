"""PERF006: mod_expires half configured (no effect)."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.lint.scopes import walk_directives

_RULES = frozenset({"expiresbytype", "expiresdefault"})
_LOOKED_AT = _RULES | {"expiresactive"}


@register
class ExpiresHalfConfigured(Rule):
    code = "PERF006"
    name = "expires-without-effect"
    summary = "ExpiresActive On without any ExpiresByType/ExpiresDefault, or the reverse"
    rationale = (
        "mod_expires needs both: 'ExpiresActive On' and at least one ExpiresByType or "
        "ExpiresDefault saying how long. ExpiresActive On alone adds no header; "
        "ExpiresByType without ExpiresActive On (its default is Off) adds none either. "
        "Verified on Apache 2.4: neither half alone produces an Expires or Cache-Control "
        "header. Both settings are inherited, so the other half may come from a parent "
        "directory's configuration — then nothing is wrong."
    )
    bad = "ExpiresByType text/css \"access plus 1 month\"\n"
    good = "ExpiresActive On\nExpiresByType text/css \"access plus 1 month\"\n"
    fix = "add the missing half: ExpiresActive On plus ExpiresByType/ExpiresDefault"

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        # Only mod_expires' directives are listed (a list of every directive of a 1 MB file
        # is a lint's peak: issue 10).
        if ctx.is_htaccess:
            directives = ctx.directive_nodes() if ctx.read_by_apache else []
        else:  # the other half may be in another file of the same server config
            directives = (d for d, _ in walk_directives(ctx.loaded.nodes))
        found = [d for d in directives if d.lname in _LOOKED_AT]
        active = [d for d in found if d.lname == "expiresactive"]
        on = [d for d in active if [a.lower() for a in d.args] == ["on"]]
        rules = [d for d in found if d.lname in _RULES]
        where = "a parent directory" if ctx.is_htaccess else "an enclosing section"
        if on and not rules and on[0].file == ctx.path:
            yield self.finding(on[0], "ExpiresActive On but no ExpiresByType or "
                                      "ExpiresDefault here: no Expires header is added "
                                      f"unless {where} sets them")
        elif rules and not on and rules[0].file == ctx.path:
            yield self.finding(rules[0], f"{rules[0].name} without 'ExpiresActive On' "
                                         f"(default Off): no effect unless {where} turns "
                                         "it on")

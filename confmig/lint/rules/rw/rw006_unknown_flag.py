"""RW006: a RewriteRule / RewriteCond flag Apache does not know (or silently drops)."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.rw.flags import flag_words
from confmig.model.rewrite.parse import RewriteConfig, directive_arg_line

_D_FLAGS = frozenset({"d", "dpi", "discardpath"})
# How cmd_parseflagfield / cmd_rewrite*_setflag word their errors.
_FLAG_ERRORS = ("unknown flag", "bad flag delimiters", "invalid HTTP response code", "flag '")


def flag_errors(config: RewriteConfig) -> dict[int, str]:
    """Apache's own flag errors in a parsed section, by ``id`` of the directive."""
    out: dict[int, str] = {}
    for directive, message in config.errors:
        if message.partition(": ")[2].startswith(_FLAG_ERRORS):
            out.setdefault(id(directive), message)
    return out


@register
class UnknownRewriteFlag(Rule):
    code = "RW006"
    name = "unknown-rewrite-flag"
    summary = "unknown RewriteRule/RewriteCond flag"
    rationale = (
        "mod_rewrite checks flags when it reads the configuration: an unknown flag (or bad "
        "[ ] delimiters, or an R=code that is not an HTTP status) makes httpd refuse to "
        "start, or answer 500 for every request below a .htaccess, with "
        "\"RewriteRule: unknown flag 'X'\". One quirk: any flag starting with 'D' is "
        "accepted without a word and does nothing unless it is D, DPI or discardpath — "
        "verified on Apache 2.4 ([L,Dummy] gives no error) — so a typo there is silently "
        "ignored instead."
    )
    bad = "RewriteEngine On\nRewriteRule ^old$ /new [R=301,L,NoQuery]\n"
    good = "RewriteEngine On\nRewriteRule ^old$ /new? [R=301,L]\n"
    severity = Severity.error
    fix = ("use a documented flag: B, BNP, BCTLS, BNE, C, CO, DPI, E, END, F, G, H, L, N, NC, "
           "NE, NS, P, PT, QSA, QSD, QSL, R, S, T, UNC, UnsafeAllow3F, UnsafePrefixStat")

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            errors = flag_errors(scope.rewrite)
            for d in scope.named("rewriterule", "rewritecond"):
                parsed = directive_arg_line(d)
                if parsed is None or parsed[2] is None:
                    continue
                error = errors.get(id(d))
                if error is not None:
                    effect = ("every request below this directory gets a 500"
                              if ctx.is_htaccess else "httpd refuses to start")
                    yield self.finding(d, f"{error}; {effect}")
                    continue
                if d.lname != "rewriterule":
                    continue
                for word in flag_words(parsed[2]):
                    if word[:1] in "dD" and word.lower() not in _D_FLAGS:
                        yield self.finding(
                            d, f"RewriteRule flag '{word}' starts with D, so Apache accepts it "
                               "without complaint and ignores it (only D, DPI or discardpath "
                               "mean anything)", severity=Severity.warning)

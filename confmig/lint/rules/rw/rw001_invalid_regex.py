"""RW001: a RewriteRule / RewriteCond pattern PCRE2 cannot compile."""

from __future__ import annotations

from collections.abc import Iterator

import pcre2

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.model.rewrite.parse import directive_arg_line
from confmig.model.rewrite.regex import Regex, to_bytes
from confmig.syntax import Directive


def cond_regex(pattern: str, test: str) -> str | None:
    """The regex of a RewriteCond pattern, or None when it is a test or comparison.

    Mirrors ``cmd_rewritecond``: after an optional ``!``, ``-f``-style tests,
    ``-lt``… integer and ``<``/``=``/``>`` string comparisons, and ``expr`` conditions
    are not regular expressions.
    """
    pat = pattern[1:] if pattern.startswith("!") else pattern
    if test.lower() == "expr":
        return None
    if len(pat) >= 2:
        if pat[0] == "-" and len(pat) == 2 and pat[1] in "fsdxhLlUF":
            return None
        if pat[0] == "-" and len(pat) >= 4 and pat[1:3] in ("lt", "le", "gt", "ge", "eq", "ne"):
            return None
        if pat[0] in "<>=":
            return None
    return pat


def nocase(flags: str | None) -> bool:
    if not flags:
        return False
    items = flags.strip("[]").split(",")
    return any(i.strip().lower() in ("nc", "nocase") for i in items)


def patterns(d: Directive) -> tuple[str, bool] | None:
    """``(regex, NC)`` of a RewriteRule or RewriteCond, or None when it has none."""
    parsed = directive_arg_line(d)
    if parsed is None:
        return None
    first, second, flags = parsed
    if d.lname == "rewriterule":
        return (first[1:] if first.startswith("!") else first), nocase(flags)
    regex = cond_regex(second, first)
    return (regex, nocase(flags)) if regex is not None else None


def char_offset(pattern: str, byte_offset: int) -> int:
    return len(to_bytes(pattern)[:byte_offset].decode("utf-8", "ignore"))


@register
class InvalidRewriteRegex(Rule):
    code = "RW001"
    name = "invalid-rewrite-regex"
    summary = "RewriteRule/RewriteCond pattern is not a valid PCRE2 regular expression"
    rationale = (
        "mod_rewrite compiles every pattern with PCRE2 when it reads the configuration. "
        "If compiling fails, httpd refuses to start (server config) or, in a .htaccess, "
        "answers 500 Internal Server Error for every request below that directory and logs "
        "'RewriteRule: cannot compile regular expression'. The pattern is checked here with "
        "PCRE2 itself, with the options Apache uses, so the message and offset are PCRE2's."
    )
    bad = "RewriteEngine On\nRewriteRule ^(blog/(.*)$ /news/$2 [L]\n"
    good = "RewriteEngine On\nRewriteRule ^(blog/(.*))$ /news/$2 [L]\n"
    severity = Severity.error
    fix = "fix the pattern (escape literal ( [ { * + ? with a backslash)"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            # mod_rewrite's parser (confmig.model.rewrite.parse) compiled every pattern of
            # the section already: only the directives it rejected need a second look.
            rejected = {id(d) for d, _ in scope.rewrite.errors}
            for d in scope.named("rewriterule", "rewritecond"):
                if id(d) in rejected:
                    yield from self._check(ctx, d)

    def _check(self, ctx: FileContext, d: Directive) -> Iterator[Finding]:
        found = patterns(d)
        if found is None:
            return
        pattern, nc = found
        try:
            Regex(pattern, nc)
        except pcre2.PatternError as exc:
            yield self._finding(ctx, d, pattern, exc)

    def _finding(self, ctx: FileContext, d: Directive, pattern: str,
                 exc: pcre2.PatternError) -> Finding:
        offset = char_offset(pattern, getattr(exc, "pos", 0) or 0)
        detail = getattr(exc, "msg", str(exc))
        reason = detail.split("; ", 1)[-1]
        effect = ("every request below this directory gets a 500" if ctx.is_htaccess
                  else "httpd refuses to start")
        message = (f"{d.name} pattern '{pattern}' does not compile: {reason} "
                   f"(PCRE2, at offset {offset}); {effect}")
        finding = self.finding(d, message)
        line = ctx.line_text(d.line)
        at = line.find(pattern, d.column - 1 + len(d.name)) if line else -1
        if at < 0:
            return finding
        column = at + 1 + min(offset, len(pattern))
        return Finding(finding.code, finding.message, finding.file, finding.line, column,
                       finding.severity, finding.hint)

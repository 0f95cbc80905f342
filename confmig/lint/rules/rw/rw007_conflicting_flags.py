"""RW007: RewriteRule flags that contradict each other; Apache silently picks one."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.lint.rules.rw.flags import flag_words

_CANONICAL = {
    "f": "F", "forbidden": "F", "g": "G", "gone": "G", "r": "R", "redirect": "R",
    "p": "P", "proxy": "P", "pt": "PT", "passthrough": "PT", "l": "L", "last": "L",
    "end": "END", "n": "N", "next": "N", "c": "C", "chain": "C", "qsa": "QSA",
    "qsappend": "QSA", "qsd": "QSD", "qsdiscard": "QSD",
}


def canonical_flags(flags_text: str) -> list[str]:
    """The flags that matter here, canonically spelt, in written order."""
    return [_CANONICAL[w.lower()] for w in flag_words(flags_text) if w.lower() in _CANONICAL]


def conflicts(flags: list[str], status_code: int = 0) -> list[str]:
    """What Apache does with each contradictory pair (from mod_rewrite.c's rule loop).

    ``status_code`` is the status the rule ends up with (the last F/G/R=code written).
    """
    have = set(flags)
    out: list[str] = []
    status = [f for f in flags if f in ("F", "G")]
    if len(set(status)) == 2:
        out.append(f"[F] and [G] both set the status; the last one written ([{status[-1]}]) wins")
    moving = [f for f in ("R", "P", "PT") if f in have]
    if status and moving:
        extra = ""
        if "R" in have and status_code:
            location = " with no Location header" if 300 <= status_code < 400 else ""
            extra = (f"; Apache answers {status_code}{location} (whichever of F/G and "
                     "R=code is written last sets the status)")
        verb = "does" if len(moving) == 1 else "do"
        out.append(f"[{status[0]}] answers a status without substitution, so "
                   f"[{'], ['.join(moving)}] {verb} nothing{extra}")
    elif "P" in have and "R" in have:
        out.append("[P] is applied before [R]: the request is proxied, never redirected")
    if "PT" in have and ("R" in have or "P" in have) and not status:
        other = "R" if "R" in have else "P"
        out.append(f"[PT] prefixes the [{other}] result with 'passthrough:', which breaks it "
                   "(per-directory context answers 400)")
    stop = [f for f in ("L", "END") if f in have]
    if "N" in have and stop:
        out.append(f"[{stop[0]}] is checked before [N]: the rule set is never restarted")
    if "QSA" in have and "QSD" in have:
        out.append("[QSD] drops the query string before [QSA] could append it: QSA does nothing")
    enders = [f for f in ("L", "END", "F", "G", "P") if f in have]
    if "C" in have and enders:
        out.append(f"[C] with [{enders[0]}]: when this rule matches processing stops, when it "
                   "does not the chained rules are skipped — they never run")
    return out


@register
class ConflictingRewriteFlags(Rule):
    code = "RW007"
    name = "conflicting-rewrite-flags"
    summary = "RewriteRule flags contradict each other; Apache silently ignores one of them"
    rationale = (
        "mod_rewrite does not reject contradictory flags; its rule loop simply acts on one of "
        "them. [F]/[G] make a status-only rule (no substitution, no Location), so [R], [P] "
        "and [PT] are dead — and with [F,R=301] Apache answers 301 *without* a Location "
        "header (verified on Apache 2.4). [P] is handled before [R]; [L]/[END] before [N]; "
        "[QSD] throws the query string away before [QSA] could keep it; [PT] after [R] turns "
        "the redirect URL into a bogus path (400 in .htaccess, verified); and [C] with a "
        "stopping flag makes the chained rules unreachable."
    )
    bad = "RewriteEngine On\nRewriteRule ^private/ /login [F,R=302,L]\n"
    good = "RewriteEngine On\nRewriteRule ^private/ /login [R=302,L]\n"
    fix = "keep the one flag that says what you mean"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            for rule in scope.rewrite.rules:
                if rule.directive is None:
                    continue
                found = conflicts(canonical_flags(rule.flags_text), rule.redirect_code)
                if found:
                    yield self.finding(rule.directive,
                                       f"conflicting flags {rule.flags_text}: " + "; ".join(found))

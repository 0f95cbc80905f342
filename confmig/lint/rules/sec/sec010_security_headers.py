"""SEC010: a security header misspelt, or removed with Header unset."""

from __future__ import annotations

import functools
from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.syntax import Directive

SECURITY_HEADERS = (
    "Strict-Transport-Security", "Content-Security-Policy",
    "Content-Security-Policy-Report-Only", "X-Frame-Options", "X-Content-Type-Options",
    "Referrer-Policy", "Permissions-Policy", "Cross-Origin-Opener-Policy",
    "Cross-Origin-Embedder-Policy", "Cross-Origin-Resource-Policy", "X-XSS-Protection",
)
_BY_LOWER = {h.lower(): h for h in SECURITY_HEADERS}
# the lengths a near miss of a security header may have (see misspelt: within 2)
_NEAR_LENGTHS = frozenset(len(h) + d for h in SECURITY_HEADERS for d in range(-2, 3))
_SETTING = frozenset({"set", "append", "add", "merge", "setifempty"})
_CONDITIONS = frozenset({"always", "onsuccess"})


def distance(a: str, b: str, limit: int = 3) -> int:
    """Levenshtein distance (case-insensitive), cut off above ``limit``."""
    a, b = a.lower(), b.lower()
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


@functools.lru_cache(maxsize=1024)
def misspelt(name: str) -> str | None:
    """The security header ``name`` is a near miss of, if any (never an exact match)."""
    if len(name) not in _NEAR_LENGTHS or name.lower() in _BY_LOWER:
        return None
    close = [h for h in SECURITY_HEADERS if abs(len(h) - len(name)) <= 2]
    if not close:
        return None
    best = min(close, key=lambda h: distance(name, h))
    limit = 1 if len(best) < 12 else 2
    return best if distance(name, best) <= limit else None


def header_action(d: Directive) -> tuple[str, str] | None:
    """``(action, header name)`` of a ``Header`` directive."""
    args = list(d.args)
    if args and args[0].lower() in _CONDITIONS:
        args = args[1:]
    if len(args) < 2:
        return None
    return args[0].lower(), args[1]


@register
class SecurityHeaderMistake(Rule):
    code = "SEC010"
    name = "security-header-mistake"
    summary = "security header misspelt, or removed with 'Header unset'"
    rationale = (
        "Browsers act on exact header names: 'Referer-Policy' or 'X-Content-Type-Option' "
        "is sent but does nothing, and nobody notices because nothing breaks. 'Header "
        "unset' of Content-Security-Policy, X-Frame-Options… removes a protection another "
        "part of the configuration (or the application) put in place."
    )
    bad = ('Header always set Referer-Policy "strict-origin-when-cross-origin"\n'
           "Header unset X-Frame-Options\n")
    good = ('Header always set Referrer-Policy "strict-origin-when-cross-origin"\n'
            'Header always set X-Frame-Options "SAMEORIGIN"\n')
    fix = "spell the header exactly; do not unset security headers"

    file_directives = frozenset({"header"})

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        if not ctx.read_by_apache:
            return
        # "Header onsuccess unset X" + "Header always set X" is the documented way to avoid a
        # duplicate header, not a removal: only an unset of a header never set here counts.
        # Only the directives that may be reported are kept (a file may hold 50,000 Headers),
        # and only the security headers' names set here: nothing else is asked of the set.
        set_here: set[str] = set()
        candidates: list[tuple[Directive, str, str, str | None]] = []
        for d in ctx.directive_nodes():
            if d.lname != "header" or (found := header_action(d)) is None:
                continue
            action, name = found
            if action in _SETTING:
                if (lower := name.lower()) in _BY_LOWER:
                    set_here.add(lower)
                near = misspelt(name)
                if near is not None:
                    candidates.append((d, action, name, near))
            elif action == "unset" and name.lower() in _BY_LOWER:
                candidates.append((d, action, name, None))
        for d, action, name, near in candidates:
            if action in _SETTING:
                yield self.finding(d, f"Header {action} '{name}': not a header browsers "
                                      f"know — did you mean '{near}'?")
            elif name.lower() not in set_here | {"x-xss-protection"}:
                yield self.finding(d, f"Header unset {name} removes a security header")

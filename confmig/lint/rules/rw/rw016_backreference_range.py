"""RW016: $N / %N back-references to groups that do not exist (always empty)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.lint.rules.rw.refs import scan
from confmig.model.rewrite.parse import Condition, RewriteRule
from confmig.syntax import Directive


def rule_groups(rule: RewriteRule) -> int:
    """The highest ``$N`` with a value: -1 when the pattern is negated (nothing is captured,
    not even ``$0``).  The count is the parsed rule's own compiled pattern's (a rule whose
    pattern does not compile is not parsed: RW001's business), not a second compile."""
    if rule.negate:
        return -1
    return rule.regex.captures


def cond_groups(conditions: Sequence[Condition]) -> tuple[int, str]:
    """The highest ``%N`` with a value (-1: none), and which condition it comes from.

    ``%N`` refers to the last *matched* positive regex condition.  With only AND
    conditions that is the last such condition; with [OR] any of them may be the one,
    so the largest count is taken (no false alarm).  One pass, no list: a chain of
    20,000 conditions is a 1 MB file's whole content (issue 10).
    """
    last: Condition | None = None
    highest = -1
    ornext = False
    for c in conditions:
        ornext = ornext or c.ornext
        if c.kind == "regex" and not c.negate:
            last = c
            highest = max(highest, _captures(c))
    if last is None:
        return -1, "no RewriteCond captures anything"
    if ornext:
        return highest, "the RewriteCond patterns"
    return _captures(last), f"the last matching RewriteCond ({last.test} {last.raw_pattern})"


def _captures(condition: Condition) -> int:
    return condition.regex.captures if condition.regex is not None else 0


def _texts(rule: RewriteRule) -> Iterator[tuple[Directive, str]]:
    """The substitution and each condition's test string, with the line each is on."""
    assert rule.directive is not None
    yield rule.directive, rule.raw_substitution
    for c in rule.conditions:
        if c.directive is not None:
            yield c.directive, c.test


@register
class BackReferenceOutOfRange(Rule):
    code = "RW016"
    name = "backreference-out-of-range"
    summary = "$N/%N refers to a group the pattern does not have: it is always empty"
    rationale = (
        "$N is group N of the RewriteRule pattern, %N group N of the last RewriteCond "
        "that matched (negated patterns and -f style tests capture nothing). A reference "
        "past the last group is replaced by an empty string, silently: verified on Apache "
        "2.4, 'RewriteRule ^a$ /x$1y.txt' serves /xy.txt. Usually a group was forgotten, "
        "or a later RewriteCond took over the %N of an earlier one."
    )
    bad = "RewriteEngine On\nRewriteRule ^blog/.*$ /news/$1 [R=301,L]\n"
    good = "RewriteEngine On\nRewriteRule ^blog/(.*)$ /news/$1 [R=301,L]\n"
    fix = "add the ( ) group the reference needs, or fix the number"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            for rule in scope.rewrite.rules:
                if rule.directive is None:
                    continue
                yield from self._check(rule)

    def _check(self, rule: RewriteRule) -> Iterator[Finding]:
        assert rule.directive is not None
        groups = rule_groups(rule)
        cgroups, where = cond_groups(rule.conditions)
        for directive, text in _texts(rule):
            reported: set[str] = set()
            for ref in scan(text):
                n = int(ref.name) if ref.kind in ("rule", "cond") else 0
                token = ("$" if ref.kind == "rule" else "%") + ref.name
                if token in reported:
                    continue
                if ref.kind == "rule" and n > groups:
                    reported.add(token)
                    why = ("the pattern is negated, so nothing is captured" if groups < 0
                           else f"the RewriteRule pattern has {groups} group(s)")
                    yield self.finding(directive, f"{token} is always empty: {why}")
                elif ref.kind == "cond" and directive is rule.directive and n > cgroups:
                    reported.add(token)
                    why = (where if cgroups < 0 else f"{where} has {cgroups} group(s)")
                    yield self.finding(directive, f"{token} is always empty: {why}")

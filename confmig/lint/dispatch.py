"""Calling the rules: each file is walked once and its directives are handed to the rules
that declared them (gixy-style), then the whole-file and whole-tree hooks run.

A rule that raises does not end the run: it becomes an internal-error finding
(``LINT000``) naming the rule, and that rule is not called again for the file.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable, Sequence
from pathlib import Path

from confmig.lint.context import FileContext, LintContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import ANY_DIRECTIVE, ANY_SECTION, KINDS, Rule
from confmig.syntax import Directive, Section

INTERNAL_CODE = "LINT000"


def internal_error(rule: Rule, path: str, exc: BaseException) -> Finding:
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" at {Path(frame.filename).name}:{frame.lineno}" if frame else ""
    return Finding(INTERNAL_CODE, f"internal error in rule {rule.code} ({rule.name}): "
                   f"{type(exc).__name__}: {exc}{where}", path, 1, 1, Severity.error,
                   "please report this; the other rules still ran")


def _overrides(cls: type[Rule], method: str) -> bool:
    return getattr(cls, method) is not getattr(Rule, method)


class RuleSet:
    """The enabled rules of a run, indexed by the kind of file and the directive names they
    look at (built once per run, so a file costs one walk and a dictionary lookup per node)."""

    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules = list(rules)
        # kind -> lower-case name ("<name" for a section, ANY_*) -> rules
        self.tables: dict[str, dict[str, list[Rule]]] = {kind: {} for kind in KINDS}
        for rule in self.rules:
            if not _overrides(type(rule), "check_directive"):
                continue
            for kind in rule.kinds:
                for name in rule.directives:
                    self.tables[kind].setdefault(name, []).append(rule)
        self.file_rules = [r for r in self.rules if _overrides(type(r), "check_file")]
        self.tree_rules = [r for r in self.rules if _overrides(type(r), "check_tree")]
        self.summary_rules = [r for r in self.tree_rules if _overrides(type(r), "summarize")]

    @property
    def has_tree_rules(self) -> bool:
        return bool(self.tree_rules)

    def check_file(self, ctx: FileContext) -> list[Finding]:
        """Every per-directive and whole-file finding for one file."""
        out: list[Finding] = []
        table = self.tables.get(ctx.kind)
        if table and ctx.read_by_apache:
            self._dispatch(ctx, table, out)
        for rule in self.file_rules:
            try:
                out.extend(rule.check_file(ctx))
            except Exception as exc:  # a broken rule must not take the run down
                out.append(internal_error(rule, ctx.path, exc))
        return out

    @staticmethod
    def _dispatch(ctx: FileContext, table: dict[str, list[Rule]], out: list[Finding]) -> None:
        any_directive = table.get(ANY_DIRECTIVE, [])
        any_section = table.get(ANY_SECTION, [])
        broken: set[str] = set()
        for node, parents in ctx.walk():
            if isinstance(node, Directive):
                rules = table.get(node.lname, ())
                rules = [*rules, *any_directive] if rules else any_directive
            elif isinstance(node, Section):
                rules = table.get("<" + node.lname, ())
                rules = [*rules, *any_section] if rules else any_section
            else:
                continue
            for rule in rules:
                if broken and rule.code in broken:
                    continue
                try:
                    out.extend(rule.check_directive(node, parents, ctx))
                except Exception as exc:
                    out.append(internal_error(rule, ctx.path, exc))
                    broken.add(rule.code)

    def summarize(self, ctx: FileContext) -> tuple[dict[str, object], list[Finding]]:
        """Each tree rule's summary of one access file (and an internal error for a rule
        that raised)."""
        out: dict[str, object] = {}
        errors: list[Finding] = []
        for rule in self.summary_rules:
            try:
                out[rule.code] = rule.summarize(ctx)
            except Exception as exc:
                errors.append(internal_error(rule, ctx.path, exc))
        return out, errors

    def check_tree(self, ctx: LintContext) -> list[Finding]:
        out: list[Finding] = []
        for rule in self.tree_rules:
            try:
                out.extend(rule.check_tree(ctx))
            except Exception as exc:
                where = ctx.files[0].path if ctx.files else "<tree>"
                out.append(internal_error(rule, where, exc))
        return out


def rule_set(rules: Sequence[Rule] | RuleSet) -> RuleSet:
    return rules if isinstance(rules, RuleSet) else RuleSet(rules)

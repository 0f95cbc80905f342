"""Calling the rules: each file is walked once and its directives are handed to the rules
that declared them (gixy-style), then the whole-file and whole-tree hooks run.

A rule that raises does not end the run: it becomes an internal-error finding
(``LINT000``) naming the rule, and that rule is not called again for the file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from confmig.lint.context import FileContext, LintContext
from confmig.lint.finding import Finding, Findings, Severity
from confmig.lint.rule import ANY_DIRECTIVE, ANY_SECTION, KINDS, Rule, rule_class, rule_entries
from confmig.syntax import Directive, Section

INTERNAL_CODE = "LINT000"


def internal_error(rule: Rule, path: str, exc: BaseException) -> Finding:
    import traceback  # (only for a rule that raised)

    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" at {Path(frame.filename).name}:{frame.lineno}" if frame else ""
    return Finding(INTERNAL_CODE, f"internal error in rule {rule.code} ({rule.name}): "
                   f"{type(exc).__name__}: {exc}{where}", path, 1, 1, Severity.error,
                   "please report this; the other rules still ran")


def _overrides(cls: type[Rule], method: str) -> bool:
    return getattr(cls, method) is not getattr(Rule, method)


class RuleSet:
    """The enabled rules of a run, indexed by the kind of file and the directive names they
    look at (built once per run, so a file costs one walk and a dictionary lookup per node).

    :meth:`of` builds it from rule codes without importing every rule: a rule that is only
    ever handed the directives it names (:attr:`confmig.lint.rule.RuleEntry.dispatched_only`)
    is imported when a file first has one of them, and so is a rule that has only a whole-file
    hook with ``file_directives`` (:attr:`confmig.lint.rule.RuleEntry.file_hook_only`); the
    others run on every file and are imported at once."""

    def __init__(self, rules: Iterable[Rule], pending: Iterable[str] = ()) -> None:
        self.rules: list[Rule] = []
        # kind -> lower-case name ("<name" for a section, ANY_*) -> rules
        self.tables: dict[str, dict[str, list[Rule]]] = {kind: {} for kind in KINDS}
        # kind -> key -> the rules a node with that key is handed (its own, then the ANY_*
        # ones), made on first use and forgotten when a rule is added
        self._handed: dict[str, dict[str, tuple[Rule, ...]]] = {kind: {} for kind in KINDS}
        self.file_rules: list[Rule] = []
        # What whole-file hooks ask a file to have (Rule.file_directives: exact names,
        # prefixes), each once, and the file_rules with the index of theirs (-1: nothing).
        self._needs: list[tuple[frozenset[str], tuple[str, ...]]] = []
        self._file_hooks: list[tuple[Rule, int]] = []
        self.tree_rules: list[Rule] = []
        # The tree rules whose findings give way to another rule's error on the same line
        # (Rule.defers_to_errors: see without_repeats).
        self.deferring: set[str] = set()
        self.summary_rules: list[Rule] = []
        for rule in rules:
            self._add(rule)
        # kind -> name -> codes of the rules not imported yet that look at it
        self.pending: dict[str, dict[str, list[str]]] = {kind: {} for kind in KINDS}
        # what a file must have (as in _needs) -> codes of the whole-file rules not imported
        # yet that ask for it
        self.pending_files: dict[tuple[frozenset[str], tuple[str, ...]], list[str]] = {}
        entries = rule_entries()
        for code in pending:
            entry = entries[code]
            if entry.file_hook_only:
                self.pending_files.setdefault(_need(entry.file_directives), []).append(code)
                continue
            for kind in entry.kinds:
                for name in entry.directives:
                    self.pending[kind].setdefault(name, []).append(code)

    @classmethod
    def of(cls, codes: Iterable[str]) -> RuleSet:
        """The rules with these codes; those only dispatched to, or only called for a file
        with some directives, are imported when needed."""
        entries = rule_entries()
        codes = list(codes)
        later = {c for c in codes if entries[c].dispatched_only or entries[c].file_hook_only}
        now = [rule_class(c)() for c in codes if c not in later]
        return cls(now, [c for c in codes if c in later])

    def _add(self, rule: Rule) -> None:
        self.rules.append(rule)
        cls = type(rule)
        if _overrides(cls, "check_directive"):
            for kind in rule.kinds:
                for name in rule.directives:
                    rules = self.tables[kind].setdefault(name, [])
                    rules.append(rule)
                    rules.sort(key=lambda r: r.code)
                self._handed[kind].clear()
        if _overrides(cls, "check_file"):
            self.file_rules.append(rule)
            self._file_hooks.append((rule, self._need_of(rule.file_directives)))
        if _overrides(cls, "check_tree"):
            self.tree_rules.append(rule)
            if rule.defers_to_errors:
                self.deferring.add(rule.code)
            if _overrides(cls, "summarize"):
                self.summary_rules.append(rule)

    def _need_of(self, names: frozenset[str]) -> int:
        """The index of ``names`` (a rule's ``file_directives``) in ``_needs``; -1 for
        none."""
        if not names:
            return -1
        need = _need(names)
        if need not in self._needs:
            self._needs.append(need)
        return self._needs.index(need)

    def _import_pending_files(self, names: frozenset[str]) -> None:
        """Import and add the pending whole-file rules a file with directives *names* needs."""
        for need in [n for n in self.pending_files if _wanted(names, *n)]:
            loaded = {r.code for r in self.rules}
            for code in self.pending_files.pop(need):
                if code not in loaded:
                    self._add(rule_class(code)())

    def _import_pending(self, kind: str, name: str) -> None:
        """Import and add the pending rules that look at *name* in a file of *kind*."""
        codes = self.pending[kind].pop(name)
        loaded = {r.code for r in self.rules}
        for code in codes:
            if code not in loaded:
                self._add(rule_class(code)())

    @property
    def has_tree_rules(self) -> bool:
        return bool(self.tree_rules)

    def check_file(self, ctx: FileContext) -> Findings:
        """Every per-directive and whole-file finding for one file."""
        out = Findings()  # (compact: a file can have a finding on every line)
        table = self.tables.get(ctx.kind)
        if (table or self.pending.get(ctx.kind)) and ctx.read_by_apache:
            self._dispatch(ctx, out)
        names = ctx.directive_names if self._needs or self.pending_files else frozenset()
        if self.pending_files:
            self._import_pending_files(names)
        has = [_wanted(names, exact, prefixes) for exact, prefixes in self._needs]
        for rule, need in self._file_hooks:
            if need >= 0 and not has[need]:
                continue
            try:
                out.extend(rule.check_file(ctx))
            except Exception as exc:  # a broken rule must not take the run down
                out.append(internal_error(rule, ctx.path, exc))
        return out

    def _handed_to(self, kind: str, key: str) -> tuple[Rule, ...]:
        """The rules a node with ``key`` (a lower-case directive name, ``<name`` for a
        section) is handed in a file of ``kind``: those that name it, then those that take
        every directive (or section).  The pending rules that name it are imported first."""
        pending = self.pending[kind]
        if key in pending:
            self._import_pending(kind, key)
        table = self.tables[kind]
        every = table.get(ANY_SECTION if key.startswith("<") else ANY_DIRECTIVE, [])
        found = self._handed[kind][key] = (*table.get(key, ()), *every)
        return found

    def _dispatch(self, ctx: FileContext, out: Findings) -> None:
        kind = ctx.kind
        handed = self._handed[kind]
        broken: set[str] = set()
        found: list[Finding] = []   # (into ``out`` a few hundred at a time)
        for node, parents in ctx.walk():
            if len(found) >= 256:
                out += found
                found.clear()
            if isinstance(node, Directive):
                key = node.lname
            elif isinstance(node, Section):
                key = "<" + node.lname
            else:
                continue
            rules = handed.get(key)
            if rules is None:
                rules = self._handed_to(kind, key)
            for rule in rules:
                if broken and rule.code in broken:
                    continue
                try:
                    found.extend(rule.check_directive(node, parents, ctx))
                except Exception as exc:
                    found.append(internal_error(rule, ctx.path, exc))
                    broken.add(rule.code)
        out += found

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

    def check_tree(self, ctx: LintContext) -> Findings:
        out = Findings()
        for rule in self.tree_rules:
            try:
                out.extend(rule.check_tree(ctx))
            except Exception as exc:
                where = ctx.files[0].path if ctx.files else "<tree>"
                out.append(internal_error(rule, where, exc))
        return out


def without_repeats(tree: Findings, others: Iterable[Findings], codes: set[str]) -> Findings:
    """*tree* (the tree rules' findings) less those of a rule of *codes* on a line where
    another rule reports an error (in *others*, the files' findings, or in *tree*): the more
    specific finding is kept, not both.  Nothing is read unless such a finding is there."""
    if not codes or codes.isdisjoint(tree.codes()):
        return tree
    errors = {(f.file, f.line) for found in (*others, tree) for f in found
              if f.severity is Severity.error and f.code not in codes}
    return Findings(f for f in tree if f.code not in codes or (f.file, f.line) not in errors)


def _need(names: frozenset[str]) -> tuple[frozenset[str], tuple[str, ...]]:
    """A rule's ``file_directives`` as (exact names, prefixes): ``"rewrite*"`` is a prefix."""
    return (frozenset(n for n in names if not n.endswith("*")),
            tuple(sorted(n[:-1] for n in names if n.endswith("*"))))


def _wanted(names: frozenset[str], exact: frozenset[str], prefixes: tuple[str, ...]) -> bool:
    """Whether a file with directives ``names`` has one a whole-file hook asks for
    (:attr:`confmig.lint.rule.Rule.file_directives`)."""
    return not exact.isdisjoint(names) or (
        bool(prefixes) and any(n.startswith(prefixes) for n in names))


def rule_set(rules: Sequence[Rule] | RuleSet) -> RuleSet:
    return rules if isinstance(rules, RuleSet) else RuleSet(rules)

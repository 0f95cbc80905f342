"""RW010: a subdirectory .htaccess whose own mod_rewrite lines switch off its parent's rules."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from confmig.lint.context import AccessEntry, FileContext, LintContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.scopes import Scope
from confmig.syntax import Directive

_INHERIT = frozenset({"Inherit", "InheritBefore"})
_INHERIT_DOWN = frozenset({"InheritDown", "InheritDownBefore"})


def _top(ctx: FileContext) -> Scope | None:
    return next((s for s in ctx.rewrite_scopes() if s.section is None), None)


def _parts(path: str) -> list[str]:
    return [p for p in os.path.normpath(path).split("/") if p]


def _below(path: str, parent: str) -> bool:
    """``path`` is strictly inside ``parent``."""
    child_parts, parent_parts = _parts(path), _parts(parent)
    return len(child_parts) > len(parent_parts) and child_parts[:len(parent_parts)] == parent_parts


def _replaces(scope: Scope) -> bool:
    """The scope has its own mod_rewrite config that does not inherit its parent's rules."""
    config = scope.rewrite
    return config.has_directives and not (config.options & _INHERIT
                                          or config.has_option("IgnoreInherit"))


def _first_rewrite(scope: Scope) -> Directive:
    return next((d for d in scope.directives if d.lname.startswith("rewrite")),
                scope.directives[0])


@register
class RewriteRulesNotInherited(Rule):
    code = "RW010"
    name = "parent-rewrite-rules-dropped"
    summary = ("a .htaccess with its own mod_rewrite directives replaces the parent "
               "directory's rules")
    rationale = (
        "Per-directory rewrite rules are not merged: when a subdirectory's .htaccess holds "
        "any mod_rewrite directive — even just 'RewriteEngine On' — its rule list replaces "
        "the parent's, so the parent's rules stop applying below it (verified on Apache "
        "2.4: a parent rule for 'sub/a' works until sub/.htaccess says 'RewriteEngine On'). "
        "A .htaccess without mod_rewrite directives keeps the parent's rules. "
        "'RewriteOptions Inherit' in the child (or InheritDown in the parent) appends the "
        "parent's rules after the child's — but they then run in the child's context and "
        "match paths relative to the child's directory (verified: '^sub/a$' still fails "
        "there, '(^|/)a$' works)."
    )
    bad = ("<Directory /var/www/html>\n    RewriteEngine On\n"
           "    RewriteRule ^blog/old$ /blog/new [R=301,L]\n</Directory>\n"
           "<Directory /var/www/html/blog>\n    RewriteEngine On\n"
           "    RewriteRule ^feed$ /feed.php [L]\n</Directory>\n")
    good = ("<Directory /var/www/html>\n    RewriteEngine On\n"
            "    RewriteRule ^blog/old$ /blog/new [R=301,L]\n</Directory>\n"
            "<Directory /var/www/html/blog>\n    RewriteEngine On\n"
            "    RewriteOptions Inherit\n"
            "    RewriteRule ^feed$ /feed.php [L]\n</Directory>\n")
    severity = Severity.info
    example_kind = "server"
    fix = ("add 'RewriteOptions Inherit' if the parent's rules should still apply (they then "
           "match paths relative to this directory)")

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        """<Directory> sections of a server config merge the same way."""
        if ctx.is_htaccess:
            return
        dirs = [s for s in ctx.rewrite_scopes() if s.kind == "directory" and s.directory]
        for child in dirs:
            if not _replaces(child):
                continue
            assert child.directory is not None
            parents = [p for p in dirs if p is not child and p.directory
                       and _below(child.directory, p.directory)]
            if not parents:
                continue
            parent = max(parents, key=lambda p: len(_parts(p.directory or "")))
            if parent.rewrite.rules and not parent.rewrite.options & _INHERIT_DOWN:
                yield self.finding(
                    _first_rewrite(child),
                    f"{child.label} has mod_rewrite directives, so the "
                    f"{len(parent.rewrite.rules)} RewriteRule(s) of {parent.label} "
                    f"(line {parent.directives[0].line}) no longer apply there")

    def summarize(self, ctx: FileContext) -> _Top | None:
        """An access file's top-level mod_rewrite configuration, as far as inheritance goes."""
        top = _top(ctx)
        if top is None:
            return None
        config = top.rewrite
        return _Top(_replaces(top), config.has_directives, len(config.rules),
                    bool(config.options & _INHERIT_DOWN), _first_rewrite(top))

    def check_tree(self, ctx: LintContext) -> Iterator[Finding]:
        entries = [e for e in ctx.access if e.directory]
        by_dir = {os.path.normpath(e.directory or "/"): e for e in entries}

        def top_of(entry: AccessEntry) -> _Top | None:
            summary = ctx.summary(self, entry)
            return summary if isinstance(summary, _Top) else None

        for child in entries:
            top = top_of(child)
            if top is None or not top.replaces:
                continue
            parent = self._parent_with_rules(child, by_dir, top_of)
            if parent is None:
                continue
            ptop = top_of(parent)
            assert ptop is not None
            if ptop.inherit_down:
                continue
            yield self.finding(
                top.first,
                f"this .htaccess has mod_rewrite directives, so the "
                f"{ptop.rules} RewriteRule(s) of {parent.path} no longer apply "
                "in this directory and below")

    @staticmethod
    def _parent_with_rules(child: AccessEntry, by_dir: dict[str, AccessEntry],
                           top_of: Callable[[AccessEntry], _Top | None]) -> AccessEntry | None:
        """The nearest ancestor .htaccess with mod_rewrite directives, if it has rules.

        Walks up the child's own path (linear in its depth, not in the number of files)."""
        assert child.directory is not None
        directory = os.path.normpath(child.directory)
        while True:
            parent_dir = os.path.dirname(directory)
            if parent_dir == directory:
                return None
            directory = parent_dir
            ancestor = by_dir.get(directory)
            if ancestor is None:
                continue
            top = top_of(ancestor)
            if top is not None and top.has_directives:
                return ancestor if top.rules else None


@dataclass(frozen=True)
class _Top:
    replaces: bool          # has its own mod_rewrite config that does not inherit
    has_directives: bool
    rules: int
    inherit_down: bool
    first: Directive        # its first mod_rewrite directive

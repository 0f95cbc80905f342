"""RW010: a subdirectory .htaccess whose own mod_rewrite lines switch off its parent's rules."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from confmig.lint.context import AccessEntry, FileContext, LintContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.scopes import Scope
from confmig.model.rewrite.merge import merge
from confmig.model.rewrite.parse import RewriteConfig
from confmig.syntax import Directive


def _top(ctx: FileContext) -> Scope | None:
    return next((s for s in ctx.rewrite_scopes() if s.section is None), None)


def _parts(path: str) -> list[str]:
    return [p for p in os.path.normpath(path).split("/") if p]


def _below(path: str, parent: str) -> bool:
    """``path`` is strictly inside ``parent``."""
    child_parts, parent_parts = _parts(path), _parts(parent)
    return len(child_parts) > len(parent_parts) and child_parts[:len(parent_parts)] == parent_parts


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

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        """<Directory> sections of a server config merge the same way."""
        if ctx.is_htaccess:
            return
        dirs = [s for s in ctx.rewrite_scopes() if s.kind == "directory" and s.directory]
        for child in dirs:
            if not child.rewrite.has_directives:
                continue
            assert child.directory is not None
            parents = [p for p in dirs if p is not child and p.directory
                       and _below(child.directory, p.directory)]
            if not parents:
                continue
            parent = max(parents, key=lambda p: len(_parts(p.directory or "")))
            if not parent.rewrite.rules:
                continue
            kept = {id(rule) for rule in merge(parent.rewrite, child.rewrite).rules}
            if any(id(rule) in kept for rule in parent.rewrite.rules):
                continue  # the model's merge keeps them (Inherit, InheritDown…)
            yield self.finding(
                _first_rewrite(child),
                f"{child.label} has mod_rewrite directives, so the "
                f"{len(parent.rewrite.rules)} RewriteRule(s) of {parent.label} "
                f"(line {parent.directives[0].line}) no longer apply there")

    def summarize(self, ctx: FileContext) -> _Top | None:
        """An access file's top-level mod_rewrite configuration, its rules replaced by the
        one token ``(path, number of rules)`` (none without rules), and its first mod_rewrite
        directive.  Small and picklable: the merge keeps or drops a file's list of rules as a
        whole, so one token stands for all of them (a tuple per rule was 1.9 MB for a 1 MB
        file of rules; the token repeated once per rule, a list kept until the tree rules
        ran, 0.16 MB)."""
        top = _top(ctx)
        if top is None:
            return None
        config = top.rewrite
        tokens: list[Any] = [(ctx.path, len(config.rules))] if config.rules else []
        light = replace(config, rules=tokens, maps={}, problems=[], errors=[],
                        dangling_conditions=[])
        return _Top(light, _first_rewrite(top))

    def check_tree(self, ctx: LintContext) -> Iterator[Finding]:
        """For each access file with mod_rewrite directives: the configuration in force in
        its parent directory (the access files above merged down, as Apache merges them),
        then merged with its own; the parent's rules are dropped when none of them is left
        (:func:`confmig.model.rewrite.merge.merge` decides: ``Inherit`` — its own or one it
        inherits — keeps them, ``IgnoreInherit`` refuses a parent's ``InheritDown``)."""
        entries = [e for e in ctx.access if e.directory]
        by_dir = {os.path.normpath(e.directory or "/"): e for e in entries}
        tops: dict[str, _Top | None] = {}
        in_force: dict[str, RewriteConfig | None] = {}

        def top_of(entry: AccessEntry) -> _Top | None:
            if entry.path not in tops:
                summary = ctx.summary(self, entry)
                tops[entry.path] = summary if isinstance(summary, _Top) else None
            return tops[entry.path]

        def config_in(directory: str) -> RewriteConfig | None:
            """The per-directory rewrite configuration the access files leave in force in
            ``directory`` (None: none of them has mod_rewrite directives)."""
            if directory in in_force:
                return in_force[directory]
            parent = os.path.dirname(directory)
            above = config_in(parent) if parent != directory else None
            entry = by_dir.get(directory)
            top = top_of(entry) if entry is not None else None
            found = above
            if top is not None and top.config.has_directives:
                found = top.config if above is None else merge(above, top.config)
            in_force[directory] = found
            return found

        for child in entries:
            top = top_of(child)
            if top is None or not top.config.has_directives:
                continue
            directory = os.path.normpath(child.directory or "/")
            parent_dir = os.path.dirname(directory)
            if parent_dir == directory:
                continue
            above = config_in(parent_dir)
            if above is None or not above.rules:
                continue
            kept = set(merge(above, top.config).rules)
            if any(rule in kept for rule in above.rules):
                continue
            counts: dict[str, int] = {}
            for path, number in above.rules:  # (one token for each file's rules)
                counts[path] = counts.get(path, 0) + number
            whose = " and ".join(f"{n} RewriteRule(s) of {path}" for path, n in counts.items())
            yield self.finding(
                top.first,
                f"this .htaccess has mod_rewrite directives, so the {whose} no longer apply "
                "in this directory and below")


@dataclass(frozen=True)
class _Top:
    config: RewriteConfig   # its rules are (path, number of rules) tokens
    first: Directive        # its first mod_rewrite directive

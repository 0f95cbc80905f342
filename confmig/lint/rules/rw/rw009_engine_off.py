"""RW009: RewriteRules that never run because the rewrite engine is off."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

from confmig.lint.context import AccessEntry, FileContext, LintContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.scopes import Scope
from confmig.syntax import Directive, Node, Section


def _engine(scope: Scope) -> bool | None:
    """The RewriteEngine set in a scope (last one wins), or None when not set there."""
    config = scope.rewrite
    return config.engine if config.engine_set else None


def _top(ctx: FileContext) -> Scope | None:
    return next((s for s in ctx.rewrite_scopes() if s.section is None), None)


def _any_engine_on(nodes: list[Node]) -> bool:
    """Whether a server config turns the engine on anywhere (it is then inherited by
    directories below it; we do not try to decide which)."""
    for node in nodes:
        if isinstance(node, Directive) and node.lname == "rewriteengine" and \
                [a.lower() for a in node.args] == ["on"]:
            return True
        if isinstance(node, Section) and _any_engine_on(node.children):
            return True
    return False


def _within(path: str, parent: str) -> bool:
    return path != parent and path.startswith(parent.rstrip("/") + "/")


@register
class RewriteEngineOff(Rule):
    code = "RW009"
    name = "rewrite-engine-off"
    summary = "RewriteRules present but RewriteEngine is Off or never turned On: they are ignored"
    rationale = (
        "mod_rewrite does nothing unless 'RewriteEngine On' is in force for the section. "
        "The setting is inherited by subdirectories (and a server-level 'RewriteEngine On' "
        "also covers the directories), but its default is Off, and 'RewriteEngine Off' "
        "turns every rule of the section off silently. Verified on Apache 2.4: a .htaccess "
        "with rules and no RewriteEngine line, or with 'RewriteEngine Off', leaves every "
        "request untouched; the same rules run once a parent directory's .htaccess says "
        "'RewriteEngine On'."
    )
    bad = "RewriteRule ^old$ /new [R=301,L]\n"
    good = "RewriteEngine On\nRewriteRule ^old$ /new [R=301,L]\n"
    severity = Severity.error
    fix = "add 'RewriteEngine On' before the rules (or delete the rules)"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        server_on: bool | None = None
        for scope in ctx.rewrite_scopes():
            config = scope.rewrite
            if not config.rules:
                continue
            if _engine(scope) is False:
                off = scope.named("rewriteengine")[-1]
                yield self.finding(off, f"RewriteEngine Off in {scope.label}: its "
                                        f"{len(config.rules)} RewriteRule(s) are ignored")
            elif _engine(scope) is None and not ctx.is_htaccess:
                if server_on is None:
                    server_on = _any_engine_on(ctx.loaded.nodes)
                if not server_on:
                    rule = config.rules[0]
                    if rule.directive is not None:
                        yield self.finding(
                            rule.directive,
                            f"{len(config.rules)} RewriteRule(s) in {scope.label} but no "
                            "'RewriteEngine On' in this configuration: Apache ignores them",
                            severity=Severity.warning)

    def summarize(self, ctx: FileContext) -> _Top | None:
        """An access file's top-level rewrite state: its RewriteEngine (None: not set), its
        rules and the first one."""
        top = _top(ctx)
        if top is None:
            return None
        rules = top.rewrite.rules
        return _Top(_engine(top), len(rules), rules[0].directive if rules else None)

    def check_tree(self, ctx: LintContext) -> Iterator[Finding]:
        tops: dict[str, _Top | None] = {}
        by_dir: dict[str, AccessEntry] = {}
        for entry in ctx.access:
            summary = ctx.summary(self, entry)
            tops[entry.path] = summary if isinstance(summary, _Top) else None
            if entry.directory:
                by_dir.setdefault(os.path.normpath(entry.directory), entry)
        server_on = ctx.server is not None and _any_engine_on(ctx.server.nodes)
        for entry in ctx.access:
            top = tops[entry.path]
            if top is None or not top.rules or top.engine is not None:
                continue
            if server_on or self._inherited(entry, by_dir, tops):
                continue
            if top.first_rule is None:
                continue
            where = ("a parent directory's .htaccess or the server config"
                     if ctx.server is not None else
                     "a parent directory's .htaccess (no server config given)")
            yield self.finding(
                top.first_rule,
                f"{top.rules} RewriteRule(s) but no 'RewriteEngine On' in this "
                f"file or in {where}: Apache ignores them",
                severity=Severity.warning)

    @staticmethod
    def _inherited(entry: AccessEntry, by_dir: dict[str, AccessEntry],
                   tops: dict[str, _Top | None]) -> bool:
        """Whether the nearest ancestor .htaccess that sets RewriteEngine turns it on
        (walks up the file's own path: linear in its depth, not in the number of files)."""
        if entry.directory is None:
            return False
        directory = os.path.normpath(entry.directory)
        while True:
            parent = os.path.dirname(directory)
            if parent == directory:
                return False
            directory = parent
            ancestor = by_dir.get(directory)
            top = tops.get(ancestor.path) if ancestor is not None else None
            if top is not None and top.engine is not None:
                return top.engine


@dataclass(frozen=True)
class _Top:
    engine: bool | None
    rules: int
    first_rule: Directive | None

"""DUP001: the same rewrite block in several .htaccess files or sections."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from confmig.lint.context import AccessEntry, FileContext, LintContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.dup.blocks import (
    BLOCK_DIRECTIVES,
    Lines,
    block_key,
    block_lines,
    key_hash,
    same_key,
)
from confmig.lint.scopes import Scope
from confmig.syntax import Directive

SHOW = 5


def _first(scope: Scope) -> Directive:
    return next(d for d in scope.directives if d.lname in BLOCK_DIRECTIVES)


def _names(items: list[str]) -> str:
    shown = ", ".join(items[:SHOW])
    return shown + (f" and {len(items) - SHOW} more" if len(items) > SHOW else "")


def _url_prefix(f: AccessEntry, docroot: str | None) -> str | None:
    """The URL-path of an access file's directory, when the docroot is known."""
    if docroot is None or not f.directory:
        return None
    real = f.real_directory
    if real == docroot:
        return "/"
    if not real.startswith(docroot.rstrip("/") + "/"):
        return None
    return real[len(docroot.rstrip("/")):].replace(os.sep, "/") + "/"


@register
class RepeatedRewriteBlock(Rule):
    code = "DUP001"
    name = "repeated-rewrite-block"
    summary = "the same rewrite block is repeated in several places: hoist it into one section"
    rationale = (
        "A RewriteCond/RewriteRule block copied into many .htaccess files (or <Directory> "
        "sections) is parsed again for each of them, and a fix has to be made in every "
        "copy. Written once in the server config — a <Directory> or <DirectoryMatch> "
        "covering all the copies, with AllowOverride None below — it is read once at "
        "start. 'confmig convert --to httpd' performs exactly this hoisting."
    )
    bad = ("<Directory /var/www/html/blog>\n    RewriteEngine On\n"
           "    RewriteCond %{REQUEST_FILENAME} !-f\n    RewriteRule ^ index.php [L]\n"
           "</Directory>\n<Directory /var/www/html/shop>\n    RewriteEngine On\n"
           "    RewriteCond %{REQUEST_FILENAME} !-f\n    RewriteRule ^ index.php [L]\n"
           "</Directory>\n")
    good = ('<DirectoryMatch "^/var/www/html/(blog|shop)/">\n    RewriteEngine On\n'
            "    RewriteCond %{REQUEST_FILENAME} !-f\n    RewriteRule ^ index.php [L]\n"
            "</DirectoryMatch>\n")
    severity = Severity.info
    example_kind = "server"
    fix = "hoist it into one <Directory>/<DirectoryMatch>: confmig convert --to httpd"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        """Sections of one server config file with the same block."""
        if ctx.is_htaccess:
            return
        groups: dict[tuple[str, ...], list[Scope]] = defaultdict(list)
        for scope in ctx.rewrite_scopes():
            if scope.context != "directory":
                continue
            key = block_key(scope)
            if key is not None:
                groups[key].append(scope)
        for members in groups.values():
            if len(members) < 2:
                continue
            for scope in members:
                others = [s.label for s in members if s is not scope]
                yield self.finding(_first(scope), f"this rewrite block ({len(_block(scope))} "
                                                  f"lines) is repeated in {_names(others)}")

    def summarize(self, ctx: FileContext) -> _Summary | None:
        """An access file's top-level rewrite block: its base, lines, first line and size."""
        top = next((s for s in ctx.rewrite_scopes() if s.section is None), None)
        found = block_lines(top) if top is not None else None
        if top is None or found is None:
            return None
        return _Summary(found[0], found[1], _first(top), len(_block(top)))

    def check_tree(self, ctx: LintContext) -> Iterator[Finding]:
        docroot = os.path.realpath(ctx.docroot) if ctx.docroot is not None else None
        # Blocks by the hash of their key (not the key: a string per line), blocks with one
        # hash told apart line by line; the groups in the order their first block came.
        by_hash: dict[int, list[list[tuple[AccessEntry, _Summary, str | None]]]] = {}
        groups: list[list[tuple[AccessEntry, _Summary, str | None]]] = []
        for entry in ctx.access:
            summary = ctx.summary(self, entry)
            if not isinstance(summary, _Summary):
                continue
            prefix = _url_prefix(entry, docroot)
            block = (summary.base, summary.lines, prefix)
            same_hash = by_hash.setdefault(key_hash(*block), [])
            group = next((g for g in same_hash
                          if same_key((g[0][1].base, g[0][1].lines, g[0][2]), block)), None)
            if group is None:
                group = []
                same_hash.append(group)
                groups.append(group)
            group.append((entry, summary, prefix))
        for members in groups:
            if len(members) < 2:
                continue
            # Only the first few other paths are named: build that short list per member
            # (not the whole list, which would be quadratic in a tree of copies).
            head = [o.path for o, _, _ in members[:SHOW + 1]]
            for entry, summary, _ in members:
                shown = [path for path in head if path != entry.path][:SHOW]
                more = len(members) - 1 - len(shown)
                names = ", ".join(shown) + (f" and {more} more" if more else "")
                yield self.finding(
                    summary.first,
                    f"this rewrite block ({summary.size} lines) is repeated in "
                    f"{len(members) - 1} other .htaccess file(s): {names}")


@dataclass(frozen=True)
class _Summary:
    base: str | None
    lines: Lines  # the lines' kinds, then three fields a line, in one tuple
    first: Directive
    size: int


def _block(scope: Scope) -> list[Directive]:
    return [d for d in scope.directives if d.lname in BLOCK_DIRECTIVES]

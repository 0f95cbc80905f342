"""DUP001: the same rewrite block in several .htaccess files or sections."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from confmig.lint.context import AccessEntry, FileContext, LintContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.dup.blocks import BLOCK_DIRECTIVES, BlockDigest, block_digest, block_key
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
        """An access file's top-level rewrite block: its digest and first line."""
        top = next((s for s in ctx.rewrite_scopes() if s.section is None), None)
        found = block_digest(top) if top is not None else None
        if top is None or found is None:
            return None
        return _Summary(found, _first(top))

    def check_tree(self, ctx: LintContext) -> Iterator[Finding]:
        docroot = os.path.realpath(ctx.docroot) if ctx.docroot is not None else None
        # Blocks by their digest (blocks.BlockDigest: not a string per line), in the order
        # their first block came.
        groups: dict[bytes, list[tuple[AccessEntry, _Summary]]] = {}
        for entry in ctx.access:
            summary = ctx.summary(self, entry)
            if not isinstance(summary, _Summary):
                continue
            key = summary.block.key(_url_prefix(entry, docroot))
            groups.setdefault(key, []).append((entry, summary))
        for members in groups.values():
            if len(members) < 2:
                continue
            # Only the first few other paths are named: build that short list per member
            # (not the whole list, which would be quadratic in a tree of copies).
            head = [o.path for o, _ in members[:SHOW + 1]]
            for entry, summary in members:
                shown = [path for path in head if path != entry.path][:SHOW]
                more = len(members) - 1 - len(shown)
                names = ", ".join(shown) + (f" and {more} more" if more else "")
                yield self.finding(
                    summary.first,
                    f"this rewrite block ({summary.block.size} lines) is repeated in "
                    f"{len(members) - 1} other .htaccess file(s): {names}")


@dataclass(frozen=True)
class _Summary:
    block: BlockDigest
    first: Directive


def _block(scope: Scope) -> list[Directive]:
    return [d for d in scope.directives if d.lname in BLOCK_DIRECTIVES]

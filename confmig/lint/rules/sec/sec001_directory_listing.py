"""SEC001: directory listings switched on."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.lint.rules.sec.options import enables
from confmig.syntax import Directive, Section


@register
class DirectoryListing(Rule):
    code = "SEC001"
    name = "directory-listing"
    summary = "Options enables Indexes: directories without an index file are listed"
    rationale = (
        "With Indexes on, mod_autoindex answers a request for a directory that has no "
        "DirectoryIndex file with a list of everything in it — backups, uploads, config "
        "files included (verified on Apache 2.4: 200 'Index of /…'). 'Options All' "
        "includes Indexes. Listings are rarely intended on a public site."
    )
    bad = "Options +Indexes\n"
    good = "Options -Indexes\n"
    fix = "use 'Options -Indexes' (or leave Indexes out)"

    directives = frozenset({"options"})

    def check_directive(self, d: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        if enables(d, "indexes"):
            how = "'All' includes Indexes" if not any(
                a.lower().lstrip("+") == "indexes" for a in d.args) else "Indexes is on"
            yield self.finding(d, f"Options {' '.join(d.args)}: {how}, so directories "
                                  "without an index file are listed")

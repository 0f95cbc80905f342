"""SEC007: CGI execution enabled in a directory users upload to."""

from __future__ import annotations

import re
from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.lint.rules.sec.options import enables
from confmig.lint.scopes import Scope
from confmig.syntax import Directive

UPLOAD_DIR = re.compile(r"(?:^|/)(?:uploads?|user[-_]?files|attachments|tmp|temp|cache|"
                        r"media|files)(?:/|$)", re.I)


def _path(scope: Scope) -> str | None:
    """The directory (or URL) a section applies to: an access file's directory, or the
    innermost <Directory>/<Location> around it."""
    if scope.htaccess:
        return scope.file_directory
    for section in reversed(scope.enclosing):
        if section.lname in ("directory", "directorymatch", "location", "locationmatch") \
                and section.args:
            return section.args[-1]
    return None


def enables_cgi(d: Directive) -> str | None:
    """What in ``d`` runs uploaded files as programs."""
    if d.lname == "options" and enables(d, "execcgi"):
        return f"Options {' '.join(d.args)}"
    if d.lname in ("addhandler", "sethandler") and d.args and \
            d.args[0].lower() in ("cgi-script", "fcgid-script"):
        return f"{d.name} {' '.join(d.args)}"
    return None


@register
class CgiInUploads(Rule):
    code = "SEC007"
    name = "cgi-in-upload-directory"
    summary = "CGI execution is enabled in an upload/temporary directory"
    rationale = (
        "A directory that users can write to (uploads, media, tmp, cache) must never run "
        "what is in it. With ExecCGI and a cgi-script handler, uploading 'shell.pl' or "
        "'x.cgi' and requesting it runs it as the web server user — remote code execution."
    )
    bad = ("<Directory /var/www/html/wp-content/uploads>\n    Options +ExecCGI\n"
           "    AddHandler cgi-script .pl .cgi\n</Directory>\n")
    good = ("<Directory /var/www/html/wp-content/uploads>\n    Options -ExecCGI\n"
            "    RemoveHandler .pl .cgi\n</Directory>\n")
    example_kind = "server"
    fix = "remove ExecCGI and the cgi-script handler here ('Options -ExecCGI')"

    file_directives = frozenset({"options", "addhandler", "sethandler"})  # enables_cgi

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.scopes():
            path = _path(scope)
            if not path or not UPLOAD_DIR.search(path):
                continue
            for d in scope.directives:
                what = enables_cgi(d)
                if what is not None:
                    yield self.finding(d, f"{what} in {path}: files uploaded there can run "
                                          "as programs")

"""PERF005: a .htaccess holding only static server settings."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.syntax import Directive

# Settings that describe how files are served — caching, compression, types, charsets,
# error pages — and that no application rewrites at run time.
STATIC = frozenset({
    "expiresactive", "expiresbytype", "expiresdefault", "header", "requestheader",
    "addtype", "addcharset", "addencoding", "addlanguage", "adddefaultcharset",
    "defaultlanguage", "addoutputfilterbytype", "addoutputfilter", "setoutputfilter",
    "removetype", "removehandler", "removeoutputfilter", "deflatecompressionlevel",
    "brotlicompressionquality", "fileetag", "directoryindex", "errordocument", "options",
    "indexoptions", "indexignore", "forcetype", "charsetdefault", "addiconbytype",
    "limitrequestbody", "setenvif", "browsermatch", "setenvifnocase", "setenv", "unsetenv",
})
MIN_DIRECTIVES = 3


@register
class StaticHtaccess(Rule):
    code = "PERF005"
    name = "static-htaccess"
    summary = "this .htaccess only holds static settings that belong in the server config"
    rationale = (
        "Apache re-reads every .htaccess on the way to a file for every request, while "
        "the server config is read once at start. A file that only sets caching, "
        "compression, MIME types, charsets or error pages — nothing an application edits "
        "at run time — costs that parse on each request for nothing. Moved into a "
        "<Directory> block (which 'confmig convert --to httpd' does), the directory can "
        "run with AllowOverride None and no .htaccess lookups at all."
    )
    bad = ("ExpiresActive On\nExpiresByType text/css \"access plus 1 year\"\n"
           "AddType application/manifest+json webmanifest\n"
           "Header set X-Content-Type-Options nosniff\n")
    good = ("ExpiresActive On\nExpiresByType text/css \"access plus 1 year\"\n"
            "RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
            "RewriteRule ^ index.php [L]\n")
    severity = Severity.info
    fix = "move it into the server's <Directory> block: confmig convert --to httpd"

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        if not ctx.is_htaccess or not ctx.read_by_apache:
            return
        # Counted, not listed: a list of every directive of a 1 MB file is a lint's peak
        # (issue 10).
        first: Directive | None = None
        count = 0
        for d in ctx.directive_nodes():
            if d.lname not in STATIC:
                return
            if first is None:
                first = d
            count += 1
        if first is None or count < MIN_DIRECTIVES:
            return
        yield self.finding(first, f"all {count} directives here are static settings "
                                     "(caching, types, headers…): in the server config they "
                                     "would be read once instead of on every request")

"""RW004: a relative [R] target in a per-directory context without RewriteBase."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.rw.refs import scan
from confmig.model.rewrite.uri import is_absolute_uri

# Variables whose value never starts with "/" (a host name), and those that always do.
_HOST_VARS = frozenset({"HTTP_HOST", "SERVER_NAME", "HTTP:HOST"})
_PATH_VARS = frozenset({"REQUEST_URI", "SCRIPT_FILENAME", "REQUEST_FILENAME",
                        "DOCUMENT_ROOT", "CONTEXT_PREFIX", "CONTEXT_DOCUMENT_ROOT"})


def relative_start(substitution: str) -> str | None:
    """Why ``substitution`` is certainly relative (no ``/`` nor ``scheme://`` first), or None.

    ``$N`` first counts as relative: in per-directory context the matched path has
    no leading slash, so a back-reference to it has none either.
    """
    if not substitution or substitution == "-" or substitution.startswith("/"):
        return None
    if is_absolute_uri(substitution)[0]:
        return None
    refs = scan(substitution)
    first = refs[0] if refs and refs[0].offset == 0 else None
    if first is None:
        return "a relative path"
    if first.kind == "rule":
        return f"${first.name} (the per-directory path, which has no leading slash)"
    if first.kind == "var" and first.name.upper() in _HOST_VARS:
        return f"%{{{first.name}}} without a scheme"
    if first.kind == "var" and first.name.upper() in _PATH_VARS:
        return None
    return None  # %N, ${map:...}, other variables: cannot tell


@register
class RelativeRedirectWithoutBase(Rule):
    code = "RW004"
    name = "relative-redirect-without-rewritebase"
    summary = "relative [R] target in a per-directory context without RewriteBase"
    rationale = (
        "In per-directory context (.htaccess, <Directory>) mod_rewrite adds the directory's "
        "filesystem path back in front of a relative substitution. For an internal rewrite "
        "it then strips the DocumentRoot again, which happens to work; for a redirect [R] "
        "nothing strips it, and the Location header carries the physical path: "
        "'RewriteRule ^old$ new [R=301,L]' in /var/www/html/sub/.htaccess redirects to "
        "http://host/var/www/html/sub/new (verified on Apache 2.4). RewriteBase, or an "
        "absolute target, gives the URL-path instead."
    )
    bad = "RewriteEngine On\nRewriteRule ^old-page$ new-page [R=301,L]\n"
    good = "RewriteEngine On\nRewriteBase /\nRewriteRule ^old-page$ new-page [R=301,L]\n"
    severity = Severity.error
    fix = "add 'RewriteBase /url/path/of/this/directory/' or make the target start with '/'"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            config = scope.rewrite
            if not scope.strips_prefix or config.base_set or config.has_option("MergeBase"):
                continue
            prefix = scope.directory or ""
            if prefix and not prefix.endswith("/"):
                prefix += "/"
            for rule in config.rules:
                if rule.directive is None or not rule.redirect or rule.status_flag:
                    continue
                why = relative_start(rule.substitution)
                if why is None:
                    continue
                target = (f"{prefix}{rule.substitution}" if prefix not in ("", "/")
                          else f"<this directory's filesystem path>/{rule.substitution}")
                yield self.finding(
                    rule.directive,
                    f"RewriteRule [R] target '{rule.substitution}' starts with {why} and "
                    f"{scope.label} has no RewriteBase: Apache redirects to the filesystem "
                    f"path ({target})")

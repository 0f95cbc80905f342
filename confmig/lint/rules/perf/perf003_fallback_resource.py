"""PERF003: the classic front-controller rewrite that FallbackResource replaces."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.rw.refs import scan
from confmig.model.rewrite.parse import RewriteRule

_FILENAME = ("%{REQUEST_FILENAME}", "%{SCRIPT_FILENAME}")
_CATCH = frozenset({".", "^", ".*", "^.*$", "^(.*)$", "(.*)", "^(.+)$", ".+", "^.+$", "^.*"})


def front_controller(rule: RewriteRule) -> str | None:
    """The script of a ``!-f [!-d] → script [L]`` rule, or None.

    The target must be a plain path (no $N, no variables, no query string): what
    mod_dir's FallbackResource does is exactly "serve this URL when nothing else is
    there", without passing the path along.
    """
    if rule.negate or not (rule.last or rule.end) or rule.pattern not in _CATCH:
        return None
    if rule.redirect or rule.proxy or rule.status_flag or rule.nosub or rule.chain:
        return None
    target = rule.substitution
    if not target or "?" in rule.raw_substitution or scan(target):
        return None
    tests = {(c.kind, c.negate) for c in rule.conditions
             if c.test.upper() in _FILENAME and not c.ornext}
    if len(tests) != len(rule.conditions) or ("-f", True) not in tests:
        return None
    if not tests <= {("-f", True), ("-d", True), ("-l", True)}:
        return None
    return target


@register
class FallbackResourceWouldDo(Rule):
    code = "PERF003"
    name = "use-fallbackresource"
    summary = "front-controller rewrite (!-f, !-d → index.php) that FallbackResource does"
    rationale = (
        "The block 'RewriteCond %{REQUEST_FILENAME} !-f / !-d / RewriteRule . /index.php "
        "[L]' (WordPress, Laravel, …) sends every request that is not an existing file or "
        "directory to the front controller. mod_dir's 'FallbackResource /index.php' does "
        "that in one line, without the rewrite engine and its two file tests per request. "
        "Verified on Apache 2.4: same status and body for an existing file, a missing "
        "path and a missing .php with a query string. One difference: a directory with no "
        "index file gets the front controller under FallbackResource, where the rewrite "
        "block lets Apache list it (or answer 403). Not applicable when the target needs "
        "the path as $1 or a query string."
    )
    bad = ("RewriteEngine On\nRewriteBase /\nRewriteCond %{REQUEST_FILENAME} !-f\n"
           "RewriteCond %{REQUEST_FILENAME} !-d\nRewriteRule . /index.php [L]\n")
    good = "FallbackResource /index.php\n"
    severity = Severity.info
    fix = "replace the block with 'FallbackResource /index.php'"

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            if scope.context != "directory":
                continue
            for rule in scope.rewrite.rules:
                target = front_controller(rule)
                if target is None or rule.directive is None:
                    continue
                if not target.startswith("/"):
                    # FallbackResource resolves a relative path against the *requested*
                    # URL's directory, so it must be spelt from the root.
                    target = scope.url_base + target
                anchor = rule.conditions[0].directive if rule.conditions and \
                    rule.conditions[0].directive is not None else rule.directive
                yield self.finding(anchor, f"this front-controller block (lines {anchor.line}-"
                                           f"{rule.directive.line}) is what "
                                           f"'FallbackResource {target}' does (except for "
                                           "directories without an index file)",
                                   hint=f"replace it with 'FallbackResource {target}'")

"""RW013: -f/-d tests on %{REQUEST_FILENAME} in server or <VirtualHost> context."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register

_FILE_TESTS = frozenset({"-f", "-d", "-s", "-l", "-x"})
_FILENAME_VARS = ("%{REQUEST_FILENAME}", "%{SCRIPT_FILENAME}")


def filename_test(test: str) -> bool:
    """The test string is just the not-yet-mapped filename (nothing prepended)."""
    return test.upper() in _FILENAME_VARS


@register
class FileTestInServerContext(Rule):
    code = "RW013"
    name = "file-test-before-mapping"
    summary = "-f/-d on %{REQUEST_FILENAME} in server/virtual-host context tests the URL-path"
    rationale = (
        "Rules in the server config or a <VirtualHost> run before Apache maps the URL to a "
        "file, so %{REQUEST_FILENAME} still holds the URL-path ('/index.php'). '-f' and "
        "'-d' then look for that path from the filesystem root: '-f' is false and '!-f' "
        "true for every request. Verified on Apache 2.4: in server context "
        "'RewriteCond %{REQUEST_FILENAME} !-f' rewrites requests for files that exist. "
        "The same lines work in .htaccess and <Directory> (h5bp issue 341)."
    )
    bad = ("<VirtualHost *:80>\n    DocumentRoot /var/www/html\n    RewriteEngine On\n"
           "    RewriteCond %{REQUEST_FILENAME} !-f\n    RewriteCond %{REQUEST_FILENAME} !-d\n"
           "    RewriteRule ^ /index.php [L]\n</VirtualHost>\n")
    good = ("<VirtualHost *:80>\n    DocumentRoot /var/www/html\n    RewriteEngine On\n"
            "    RewriteCond %{DOCUMENT_ROOT}%{REQUEST_URI} !-f\n"
            "    RewriteCond %{DOCUMENT_ROOT}%{REQUEST_URI} !-d\n"
            "    RewriteRule ^ /index.php [L]\n</VirtualHost>\n")
    example_kind = "server"
    fix = ("test %{DOCUMENT_ROOT}%{REQUEST_URI} (or %{LA-U:REQUEST_FILENAME}), or move the "
           "rules into <Directory>")

    file_directives = frozenset({"rewrite*"})  # it reads the mod_rewrite sections

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in ctx.rewrite_scopes():
            if scope.context != "server":
                continue
            for rule in scope.rewrite.rules:
                for cond in rule.conditions:
                    if cond.directive is None or cond.kind not in _FILE_TESTS:
                        continue
                    if not filename_test(cond.test):
                        continue
                    outcome = "true" if cond.negate else "false"
                    yield self.finding(
                        cond.directive,
                        f"'{cond.test} {cond.raw_pattern}' in {scope.label}: the URL is not "
                        f"mapped to a file yet, so this tests the URL-path from / and is "
                        f"{outcome} for almost every request")

"""SEC006: AllowOverride other than None on <Directory />."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.lint.rules.sec.root_directory import root_scopes


@register
class AllowOverrideOnRoot(Rule):
    code = "SEC006"
    name = "allowoverride-on-root"
    summary = "AllowOverride on <Directory /> lets a .htaccess anywhere change the server"
    rationale = (
        "<Directory /> covers the whole filesystem. With AllowOverride other than None "
        "there, Apache looks for .htaccess in every directory from / down on every request "
        "(see PERF001), and any .htaccess in any directory Apache ever serves from — "
        "an upload directory, /tmp behind an Alias, a user's home — may change "
        "configuration. The secure default is AllowOverride None on / and overrides "
        "granted only to the directories that need them."
    )
    bad = "<Directory />\n    AllowOverride All\n    Require all denied\n</Directory>\n"
    good = ("<Directory />\n    AllowOverride None\n    Require all denied\n</Directory>\n"
            "<Directory /var/www/html>\n    AllowOverride FileInfo\n</Directory>\n")
    example_kind = "server"
    fix = "AllowOverride None on <Directory />; grant overrides only where needed"

    file_directives = frozenset({"allowoverride", "allowoverridelist"})

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in root_scopes(ctx):
            for d in scope.named("allowoverride", "allowoverridelist"):
                if [a.lower() for a in d.args] in ([], ["none"]):
                    continue
                yield self.finding(d, f"{d.name} {' '.join(d.args)} on <Directory />: Apache "
                                      "reads .htaccess files in every directory of the "
                                      "filesystem it serves from")

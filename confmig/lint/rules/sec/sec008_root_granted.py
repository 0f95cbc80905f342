"""SEC008: access granted to the whole filesystem."""

from __future__ import annotations

from collections.abc import Iterator

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule, register
from confmig.lint.rules.sec.root_directory import root_scopes


def grants_all(args: list[str], lname: str) -> bool:
    words = [a.lower() for a in args]
    if lname == "require":
        return words == ["all", "granted"]
    return lname == "allow" and words[-1:] == ["all"]


@register
class RootAccessGranted(Rule):
    code = "SEC008"
    name = "root-access-granted"
    summary = "<Directory /> grants access: every file Apache can reach may be served"
    rationale = (
        "Apache's own and Debian's configs deny everything on <Directory /> and grant "
        "access per site ('Require all granted' on the DocumentRoot). Granting it on / "
        "means that any URL which maps outside the DocumentRoot — a symlink, an Alias, a "
        "UserDir, a rewrite to a filesystem path — serves the file: /etc/passwd, keys, "
        "other sites' configs."
    )
    bad = "<Directory />\n    Require all granted\n</Directory>\n"
    good = ("<Directory />\n    Require all denied\n</Directory>\n"
            "<Directory /var/www/html>\n    Require all granted\n</Directory>\n")
    example_kind = "server"
    fix = "Require all denied on <Directory />; grant access on the DocumentRoot only"

    file_directives = frozenset({"require", "allow"})

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        for scope in root_scopes(ctx):
            for d in scope.named("require", "allow"):
                if grants_all(d.args, d.lname):
                    yield self.finding(d, f"{d.name} {' '.join(d.args)} on <Directory />: "
                                          "every file on the server may be served")

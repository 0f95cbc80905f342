"""SEC011: a password or group file that Apache serves to anyone who asks.

``AuthUserFile``/``AuthGroupFile`` name files Apache reads to check logins; kept inside a
DocumentRoot, they are also files Apache *serves* unless something denies them.  Debian's
``apache2.conf`` denies names starting with ``.ht``, so ``.htpasswd`` is usually safe and
``passwords.txt`` or ``users`` is not.  Whether it is served is asked of the model — the
request ``GET /path/to/the/file`` for the virtual host whose DocumentRoot holds it — so every
``<Files>``, ``Require`` and rewrite rule in force counts, as on Apache.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from confmig.apache.paths import server_root_relative
from confmig.lint.context import FileContext, LintContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register

NAMED = ("authuserfile", "authgroupfile", "authdbmuserfile", "authdbmgroupfile",
         "authdigestfile")
# (file, line, column, directive name, path as written, absolute path)
Named = tuple[str, int, int, str, str, str]


@register
class PasswordFileServed(Rule):
    code = "SEC011"
    name = "password-file-served"
    summary = "a password or group file inside the DocumentRoot that Apache serves"
    rationale = (
        "The file AuthUserFile names holds every user's password hash; inside a DocumentRoot "
        "it is one request away unless something denies it (Debian denies only names "
        "starting with .ht). Hashes are cracked offline. Keep password files outside every "
        "DocumentRoot, e.g. in /etc/apache2/."
    )
    bad = ("DocumentRoot htdocs\n<Location \"/private\">\n    AuthType Basic\n"
           "    AuthName \"members\"\n    AuthUserFile htdocs/users.txt\n"
           "    Require valid-user\n</Location>\n")
    good = ("DocumentRoot htdocs\n<Location \"/private\">\n    AuthType Basic\n"
            "    AuthName \"members\"\n    AuthUserFile users.txt\n"
            "    Require valid-user\n</Location>\n")
    example_kind = "server"
    example_files = {  # noqa: RUF012  (written by htpasswd -B)
        "htdocs/users.txt": "bob:$2y$05$RuhRKyIwit1LuZDvlkr.C.Y3oXiuOt16X.1.NYDZRsT.P9GjpX5E.\n",
        "users.txt": "bob:$2y$05$RuhRKyIwit1LuZDvlkr.C.Y3oXiuOt16X.1.NYDZRsT.P9GjpX5E.\n",
        "htdocs/index.html": "hi\n"}
    severity = Severity.error
    fix = "move the file out of the DocumentRoot (and deny it meanwhile)"

    def summarize(self, ctx: FileContext) -> list[Named]:
        return list(_named(ctx))

    def check_tree(self, ctx: LintContext) -> Iterator[Finding]:
        named: list[Named] = []
        for f in ctx.files:
            if f.kind == "server":
                named.extend(_named(f))
        for entry in ctx.access:
            named.extend(ctx.summary(self, entry) or [])
        if not named:
            return
        # (the request model is imported only for a tree that names a password file)
        from confmig.model.evaluate import evaluate, site_for
        from confmig.model.request import Request

        site = site_for(ctx.workspace)  # (an error here is the engine's internal error)
        servers = [site.main, *site.vhosts]
        for file, line, column, name, written, path in named:
            for server in servers:
                root = server.document_root.rstrip("/") + "/"
                if not path.startswith(root) or not os.path.isfile(path):
                    continue
                url = "/" + path[len(root):]
                headers = {"Host": server.name} if server.name else {}
                answer = evaluate(site, Request.from_url(url, headers=headers), trace=False)
                if 200 <= answer.status < 300:
                    yield Finding(code=self.code, severity=self.severity, file=file,
                                  line=line, column=column, hint=self.fix,
                                  message=f"{name} {written} is inside DocumentRoot "
                                          f"{server.document_root} and Apache serves it: "
                                          f"GET {url} answers {answer.status}")
                    break


def _named(ctx: FileContext) -> Iterator[Named]:
    server_root = str(ctx.loaded.state.server_root)
    base = ctx.directory if ctx.is_htaccess and ctx.directory else server_root
    for d in ctx.directive_nodes():
        if d.lname in NAMED and d.args:
            # ap_server_root_relative (an .htaccess's relative path too)
            path = server_root_relative(d.args[0], server_root if d.args[0] else base)
            yield d.file, d.line, d.column, d.name, d.args[0], os.path.realpath(path)

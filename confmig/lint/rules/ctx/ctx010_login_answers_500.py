"""CTX010: a Basic login Apache answers 500 for.

``mod_auth_basic`` (:mod:`confmig.model.authn`, held to real Apache by the differential login
sites) answers 500 — not 401 — when a request needs a user and the login cannot be checked:
``AuthType Basic`` with no ``AuthName`` (every such request), no ``AuthUserFile`` for the
default ``file`` provider, or one that cannot be opened (every request that sends
credentials).  A ``Require user``/``valid-user``/``group`` with no ``AuthType`` at all is a
500 too.  Looked at per file: an ``AuthName`` or ``AuthUserFile`` set by a parent directory
counts, so these are reported only when nothing in the file says where they come from.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from confmig.apache.paths import server_root_relative
from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.syntax import Directive

USER_PROVIDERS = frozenset({"user", "valid-user", "group"})


@register
class LoginAnswers500(Rule):
    code = "CTX010"
    name = "login-answers-500"
    summary = "a login Apache cannot check: it answers 500 instead of asking for a password"
    rationale = (
        "mod_auth_basic needs AuthName (the realm) to ask for a password and an AuthUserFile "
        "it can open to check one. Without AuthName every request that needs a user answers "
        "500; without AuthUserFile, or with one Apache cannot open, every login attempt "
        "answers 500; a Require user/valid-user/group without any AuthType answers 500 too."
    )
    bad = "AuthType Basic\nAuthUserFile users.htpasswd\nRequire valid-user\n"
    good = "AuthType Basic\nAuthName \"members\"\nAuthUserFile users.htpasswd\nRequire valid-user\n"
    example_files = {  # noqa: RUF012  (written by htpasswd -B)
        "users.htpasswd": "bob:$2y$05$RuhRKyIwit1LuZDvlkr.C.Y3oXiuOt16X.1.NYDZRsT.P9GjpX5E.\n"}
    severity = Severity.error
    fix = "AuthType Basic, AuthName \"…\", AuthUserFile /path/outside/the/docroot"

    file_directives = frozenset({"require"})  # a login is asked for by a Require

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        found: dict[str, Directive] = {}
        needs_user: Directive | None = None
        for d in ctx.directive_nodes():
            name = d.lname
            if name in ("authtype", "authname", "authuserfile", "authbasicprovider"):
                found.setdefault(name, d)
            elif name == "require" and needs_user is None:
                words = [w.lower() for w in d.args if w.lower() != "not"]
                if words and words[0] in USER_PROVIDERS:
                    needs_user = d
        if needs_user is None:
            return
        auth_type = found.get("authtype")
        if auth_type is None or not auth_type.args:
            if ctx.is_htaccess and "authname" not in found and "authuserfile" not in found:
                return  # a parent directory may well set all of it
            yield self.finding(needs_user, f"{needs_user.name} {' '.join(needs_user.args)} "
                                           "with no AuthType: Apache answers 500")
            return
        if auth_type.args[0].lower() != "basic":
            return
        if "authname" not in found:
            yield self.finding(auth_type, "AuthType Basic without AuthName: every request "
                                          "that needs a user answers 500 (need AuthName)")
        provider = found.get("authbasicprovider")
        if provider is not None and "file" not in (a.lower() for a in provider.args):
            return
        user_file = found.get("authuserfile")
        if user_file is None:
            yield self.finding(auth_type, "AuthType Basic without AuthUserFile: every login "
                                          "attempt answers 500", severity=Severity.warning)
        elif user_file.args:
            path = server_root_relative(user_file.args[0], str(ctx.loaded.state.server_root))
            if not os.path.isfile(path) or not os.access(path, os.R_OK):
                yield self.finding(user_file, f"AuthUserFile {user_file.args[0]}: Apache "
                                              "cannot open it: every login attempt answers "
                                              "500", severity=Severity.warning)

"""SEC012: entries of an ``AuthUserFile`` that never match, or match too easily.

Apache checks a Basic login with ``apr_password_validate`` (:mod:`confmig.model.passwords`).
On Unix a plain-text entry (``htpasswd -p``) never matches — ``crypt()`` hashes the password
with the stored text as salt — so that user can never log in.  ``crypt`` DES (``htpasswd
-d``) uses only the first 8 characters of a password, and ``{SHA}`` (``htpasswd -s``) is one
unsalted SHA-1: both fall to a dictionary in minutes.  bcrypt (``htpasswd -B``) is what to
use.  The file is read as Apache reads it (the path is relative to ServerRoot); no password
or hash is ever printed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from confmig.apache.paths import server_root_relative
from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.model.passwords import scheme
from confmig.syntax import Directive, Section

MAX_BYTES = 1024 * 1024  # larger password files are not read by this rule
PROBLEMS = {
    "plain": ("plain text, which never matches on Unix: this user cannot log in",
              Severity.error),
    "unknown": ("a hash format Apache's crypt() may not know: this user may never log in",
                Severity.warning),
    "des-crypt": ("crypt DES: only the first 8 characters of the password count",
                  Severity.warning),
    "sha1": ("{SHA}: one unsalted SHA-1, cracked from a dictionary in minutes",
             Severity.warning),
}


@register
class WeakPasswordFile(Rule):
    code = "SEC012"
    name = "weak-password-file"
    summary = "an AuthUserFile entry that never matches, or is weakly hashed"
    rationale = (
        "Apache validates Basic logins with apr_password_validate. A plain-text entry never "
        "matches on Unix (crypt() uses it as a salt), so that user is locked out; crypt DES "
        "reads only 8 characters of the password; {SHA} is a single unsalted SHA-1. Use "
        "bcrypt: htpasswd -B."
    )
    bad = "AuthType Basic\nAuthName \"members\"\nAuthUserFile weak.htpasswd\nRequire valid-user\n"
    good = "AuthType Basic\nAuthName \"members\"\nAuthUserFile strong.htpasswd\n" \
           "Require valid-user\n"
    example_files = {  # noqa: RUF012  (written by htpasswd -p and -B)
        "weak.htpasswd": "frank:pw4\n",
        "strong.htpasswd": "bob:$2y$05$RuhRKyIwit1LuZDvlkr.C.Y3oXiuOt16X.1.NYDZRsT.P9GjpX5E.\n",
    }
    fix = "htpasswd -B FILE USER (bcrypt)"

    directives = frozenset({"authuserfile"})

    def check_directive(self, d: Directive | Section, parents: tuple[Section, ...],
                        ctx: FileContext) -> Iterator[Finding]:
        if not d.args:
            return
        path = server_root_relative(d.args[0], str(ctx.loaded.state.server_root))
        for user, kind in _entries(path):
            problem = PROBLEMS.get(kind)
            if problem is not None:
                message, severity = problem
                yield self.finding(d, f"{d.args[0]}: user {user!r}: {message}",
                                   severity=severity)


def _entries(path: str) -> Iterator[tuple[str, str]]:
    """(user, hash format) of each entry, read as mod_authn_file reads the file."""
    try:
        if os.path.getsize(path) > MAX_BYTES:
            return
        with open(path, "rb") as handle:
            data = handle.read(MAX_BYTES)
    except (OSError, ValueError):
        return
    for raw in data.decode("utf-8", errors="surrogateescape").split("\n"):
        line = raw.strip(" \t\r\f\v")
        if not line or line.startswith("#") or ":" not in line:
            continue
        user, _, rest = line.partition(":")
        yield user, scheme(rest.partition(":")[0])

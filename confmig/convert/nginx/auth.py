"""``AuthType Basic`` + ``AuthUserFile`` (``Require valid-user`` or ``Require user …``) as
nginx's ``auth_basic`` / ``auth_basic_user_file``, reading the same password file.

Checked on real Apache and nginx (``tests/nginx/test_policy_auth.py``): both take apr1,
``{SHA}``, bcrypt (``$2y$``/``$2a$``/``$2b$``), MD5/SHA-crypt and DES lines alike — nginx hands
what it does not compute itself to the same system ``crypt()`` Apache's APR uses.  They differ
on three things, decided here from the plan's reading of the file:

* ``{PLAIN}`` and ``{SSHA}`` lines: nginx accepts their password, Apache never does (``crypt()``
  of the text) — looser, so the directory is denied and announced;
* white space around a line: Apache trims it, nginx reads it as part of the name or hash — a
  leading one would let a client whose name starts with it in (denied), a trailing one only
  refuses that user (announced);
* a backslash-newline: Apache joins the lines (denied: nginx would see other users).

``Require user a b``: nginx's ``auth_basic`` takes any user of the file, so the file is
chosen per request by a ``map`` on ``$remote_user`` — the file for those users, an empty one
(``/dev/null``) for anyone else: nginx then answers 401 asking for a login, as Apache does for a
user it does not authorize.  ``Require group g`` is the same map over the members the plan read
from the ``AuthGroupFile`` (a later edit of that file needs a new conversion).

A login inside ``<Files>``/``<FilesMatch>`` applies where Apache's walk stops at a name the
section matches (an entry of an existing directory, or a file followed by PATH_INFO), which
only the file tests of the section's denials tell (:meth:`Renderer._file_denials`), in nginx's
rewrite phase — and ``auth_basic`` cannot sit in an ``if``.  So those tests answer with a
code of their own that ``error_page CODE = @name`` sends to a named location asking for the
login (:func:`files_login`); the static module there serves the file after it, as Apache's
default handler does (404 for PATH_INFO).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from confmig.convert.nginx.headers import literal
from confmig.convert.nginx.maps import HttpMaps
from confmig.convert.nginx.regex import pcre_literal
from confmig.convert.nginx.rewrite import q
from confmig.model.plan import BasicLogin, FilesScope

#: Hash markers nginx computes and Apache's crypt() never matches.
NGINX_ONLY = ("{PLAIN}", "{SSHA}")
#: A password file nobody is in: nginx answers 401 (with the realm) for every login.
NOBODY = "/dev/null"


@dataclass
class LoginLines:
    lines: list[str] = field(default_factory=list)
    refused: str = ""  # why it cannot be reproduced: the directory is denied
    stricter: str = ""  # what nginx refuses that Apache lets in (announced)


def login_lines(login: BasicLogin, maps: HttpMaps) -> LoginLines:
    """The ``auth_basic`` lines for *login*, or why there are none."""
    users = login.users
    relevant = [e for e in login.entries if users is None or e.user in users]
    looser = sorted({e.user for e in relevant if e.marker in NGINX_ONLY})
    if looser:
        return LoginLines(refused="users " + ", ".join(looser) + ": {PLAIN}/{SSHA} hashes "
                          "nginx accepts and Apache never matches")
    if login.joined:
        return LoginLines(refused="the password file joins lines with a backslash-newline "
                          "(Apache reads one line, nginx two)")
    leading = sorted({e.user for e in relevant if e.trimmed in ("leading", "both")})
    if leading:
        return LoginLines(refused="white space before users " + ", ".join(leading) + " (Apache "
                          "trims it; nginx would take it as part of the name)")
    if login.realm == "off":
        return LoginLines(refused='AuthName "off" turns nginx\'s auth_basic off')
    out = LoginLines()
    trailing = sorted({e.user for e in relevant if e.trimmed == "trailing"})
    if trailing:
        out.stricter = ("white space after the lines of users " + ", ".join(trailing)
                        + ": Apache trims it, nginx refuses their password")
    source = f"{login.source}: " if login.source else ""
    if users is None:
        required = "valid-user"
    elif login.groups:
        required = ("group " + " ".join(login.groups) + " (AuthGroupFile, as it reads now: "
                    + (" ".join(users) if users else "nobody") + ")")
    else:
        required = "user " + " ".join(users)
    out.lines = [f"# {source}AuthType Basic, AuthUserFile, Require {required}",
                 f"auth_basic {literal(login.realm)};"]
    if users is None:
        out.lines.append(f"auth_basic_user_file {q(login.user_file)};")
        return out
    pattern = "^(?:" + "|".join(pcre_literal(u) for u in users) + ")\\z" if users else "(?!)"
    chosen = maps.map("$remote_user", [(f"~{pattern}", q(login.user_file))], q(NOBODY))
    out.lines += ["# only these users: the file for them, an empty one for anyone else",
                  f"auth_basic_user_file {chosen};"]
    return out




#: ``error_page`` codes of the named locations asking for a ``<Files>`` login (nginx uses
#: 494-499 itself; no Apache status lies here).
FIRST_FILES_LOGIN_CODE = 471
MAX_FILES_LOGINS = 20  # per directory


@dataclass(frozen=True)
class FilesLogin:
    """The route of a ``<Files>`` section's login: the code its tests answer with and the
    named location ``error_page`` sends that code to; or why it cannot be reproduced."""

    code: int = 0
    name: str = ""
    refused: str = ""


def files_login(files: FilesScope, index: int, name: str, php: bool) -> FilesLogin:
    """The route for the *index*-th ``<Files>`` login of a directory (named *name*), or why
    there is none: the named location serves the file right after the login, so what Apache
    would still run after it (rewrite rules, FallbackResource, PHP) cannot be there."""
    settings = files.settings
    if settings.access.login is None:
        return FilesLogin(refused="not AuthType Basic against one AuthUserFile with Require "
                          "valid-user, user or group")
    if settings.rewrite is not None or settings.fallback:
        return FilesLogin(refused="rules in force here: Apache runs them after the login, "
                          "nginx's rewrite phase before it")
    if php:
        return FilesLogin(refused="with --php-fpm the location asking for the login would "
                          "not hand scripts to PHP")
    if index >= MAX_FILES_LOGINS:
        return FilesLogin(refused=f"more than {MAX_FILES_LOGINS} <Files> logins in one "
                          "directory")
    return FilesLogin(FIRST_FILES_LOGIN_CODE + index, name)

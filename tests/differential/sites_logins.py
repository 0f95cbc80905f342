"""Sites for HTTP Basic logins: every htpasswd format Apache accepts on Unix, AuthGroupFile,
``Require user|group|valid-user``, ``<RequireAny>``, ``AuthMerging`` and the errors Apache
answers 500 for (no AuthName, no or unreadable AuthUserFile, AuthType without a module).

The password file was written by Apache's own ``htpasswd`` (``-m`` apr1, ``-B`` bcrypt,
``-s`` SHA-1, ``-d`` crypt, ``-5``/``-2`` SHA-crypt, ``-p`` plain text, which Unix Apache
never accepts).  These sites need mod_authz_groupfile, so they run on an Apache of their own
(:data:`LOGIN_MODULES`).
"""

from __future__ import annotations

import base64
import hashlib

from tests.differential.harness import ROOT_TOKEN, Case, SiteSpec

LOGIN_MODULES = ("authz_groupfile", "authn_anon")
PASSWORDS = (
    "# written by htpasswd\n"
    "alice:$apr1$S0WVNNxN$oy7UgTrd2y/elDKanE7rA.\n"
    "bob:$2y$05$RuhRKyIwit1LuZDvlkr.C.Y3oXiuOt16X.1.NYDZRsT.P9GjpX5E.\n"
    "carol:{SHA}AsWT/Zr4JUuFnUJqdrbNQoR/vsE=\n"
    "dave:TS5ZNUufV4j3Q\n"
    "erin:$6$r80davIYU2ixCwuG$/BE5F9ax32BzziUJM6MiJ2GNVvb/5n0EDrq3HNvLgEWYuiahIAnGsBcsPk4Y5Pfcc"
    "QBSnKqLA2n7FlKTe3EBb.\n"
    "frank:pw4\n"
    "gina:$5$mJ0iBke9sNylVC5N$mGmCQWbYjigg7afjSPnhOHfDVk9VipC8gq2UkQeCA38\n"
)
GROUPS = "admins: alice carol\nstaff : bob \"gina\"\n"
USERS = f"{ROOT_TOKEN}/logins-files/users"
GROUP_FILE = f"{ROOT_TOKEN}/logins-files/groups"


def basic(user: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def _login(extra: str = "", require: str = "Require valid-user") -> str:
    return (f"AuthType Basic\nAuthName \"members\"\nAuthUserFile {USERS}\n"
            f"AuthGroupFile {GROUP_FILE}\n{extra}{require}\n")


def basic_logins() -> SiteSpec:
    return SiteSpec(
        "logins",
        {
            "logins-files/users": PASSWORDS,
            "logins-files/groups": GROUPS,
            "basic/x.txt": None,
            "basic/.htaccess": _login(),
            "user/x.txt": None,
            "user/.htaccess": _login(require="Require user bob gina"),
            "group/x.txt": None,
            "group/.htaccess": _login(require="Require group admins"),
            "group2/x.txt": None,
            "group2/.htaccess": _login(require="Require group staff"),
            "fof/x.txt": None,
            "fof/.htaccess": _login("AuthzSendForbiddenOnFailure On\n", "Require user bob"),
            "any/x.txt": None,
            "any/.htaccess": _login(require="<RequireAny>\nRequire ip 10.9.9.9\n"
                                            "Require valid-user\n</RequireAny>"),
            "granted/x.txt": None,
            "granted/.htaccess": _login(require="Require all granted"),
            "merge/x.txt": None,
            "merge/.htaccess": _login(),
            "merge/in/x.txt": None,
            "merge/in/.htaccess": "AuthMerging And\nRequire user bob\n",
            "replace/x.txt": None,
            "replace/.htaccess": _login(),
            "replace/in/x.txt": None,
            "replace/in/.htaccess": "Require user carol\n",
            "noname/x.txt": None,
            "noname/.htaccess": f"AuthType Basic\nAuthUserFile {USERS}\nRequire valid-user\n",
            "nofile/x.txt": None,
            "nofile/.htaccess": "AuthType Basic\nAuthName x\nRequire valid-user\n",
            "missing/x.txt": None,
            "missing/.htaccess": "AuthType Basic\nAuthName x\nAuthUserFile /nonexistent/users\n"
                                 "Require valid-user\n",
            "nogroupfile/x.txt": None,
            "nogroupfile/.htaccess": f"AuthType Basic\nAuthName x\nAuthUserFile {USERS}\n"
                                     "Require group admins\n",
            "digest/x.txt": None,
            "digest/.htaccess": "AuthType Digest\nAuthName x\nRequire valid-user\n",
            "satisfy/x.txt": None,
            "satisfy/.htaccess": _login("Order allow,deny\nAllow from 127.0.0.1\nSatisfy Any\n"),
            # add_authn_provider appends: file, then anon (mod_authn_anon, no Anonymous
            # users: it finds nobody) - a second line does not replace the first
            "providers/x.txt": None,
            "providers/.htaccess": _login("AuthBasicProvider file\nAuthBasicProvider anon\n"),
            "providers2/x.txt": None,
            "providers2/.htaccess": _login("AuthBasicProvider anon\nAuthBasicProvider file\n"),
        },
        [
            Case("/basic/x.txt", "no credentials: 401"),
            Case("/basic/x.txt", "apr1 (htpasswd -m)", basic("alice", "s3cret")),
            Case("/basic/x.txt", "apr1, wrong password", basic("alice", "S3cret")),
            Case("/basic/x.txt", "bcrypt (htpasswd -B)", basic("bob", "hunter2")),
            Case("/basic/x.txt", "bcrypt, wrong password", basic("bob", "hunter3")),
            Case("/basic/x.txt", "SHA-1 (htpasswd -s)", basic("carol", "pw1")),
            Case("/basic/x.txt", "crypt (htpasswd -d)", basic("dave", "pw2")),
            Case("/basic/x.txt", "crypt reads 8 characters", basic("dave", "pw2-and-more")),
            Case("/basic/x.txt", "SHA-512 crypt (htpasswd -5)", basic("erin", "pw3")),
            Case("/basic/x.txt", "SHA-256 crypt (htpasswd -2)", basic("gina", "pw5")),
            Case("/basic/x.txt", "plain text is refused on Unix", basic("frank", "pw4")),
            Case("/basic/x.txt", "unknown user", basic("zoe", "x")),
            Case("/basic/x.txt", "another scheme", {"Authorization": "Digest username=alice"}),
            Case("/basic/x.txt", "garbage after Basic", {"Authorization": "Basic !!!"}),
            Case("/basic/x.txt", "no colon: the whole value is the user",
                 {"Authorization": "Basic " + base64.b64encode(b"alice").decode()}),
            Case("/basic/x.txt", "scheme in lower case",
                 {"Authorization": "basic " + base64.b64encode(b"alice:s3cret").decode()}),
            Case("/user/x.txt", "Require user: not listed", basic("alice", "s3cret")),
            Case("/user/x.txt", "Require user: listed", basic("bob", "hunter2")),
            Case("/group/x.txt", "Require group: a member", basic("carol", "pw1")),
            Case("/group/x.txt", "Require group: not a member", basic("bob", "hunter2")),
            Case("/group2/x.txt", "group name with a space before ':' and quoted members",
                 basic("gina", "pw5")),
            Case("/fof/x.txt", "AuthzSendForbiddenOnFailure: 403", basic("alice", "s3cret")),
            Case("/any/x.txt", "RequireAny, no credentials"),
            Case("/any/x.txt", "RequireAny, valid user", basic("alice", "s3cret")),
            Case("/granted/x.txt", "AuthType with Require all granted: no login asked"),
            Case("/merge/in/x.txt", "AuthMerging And: parent's valid-user and bob",
                 basic("alice", "s3cret")),
            Case("/merge/in/x.txt", "AuthMerging And: bob", basic("bob", "hunter2")),
            Case("/replace/in/x.txt", "without AuthMerging the child's Require replaces",
                 basic("alice", "s3cret")),
            Case("/replace/in/x.txt", "the child's user", basic("carol", "pw1")),
            Case("/noname/x.txt", "AuthType Basic without AuthName: 500",
                 basic("alice", "s3cret")),
            Case("/nofile/x.txt", "no AuthUserFile: 500", basic("alice", "s3cret")),
            Case("/nofile/x.txt", "no AuthUserFile, no credentials: 401"),
            Case("/missing/x.txt", "AuthUserFile cannot be opened: 500",
                 basic("alice", "s3cret")),
            Case("/nogroupfile/x.txt", "Require group without AuthGroupFile",
                 basic("alice", "s3cret")),
            Case("/digest/x.txt", "AuthType Digest without mod_auth_digest: 500"),
            Case("/satisfy/x.txt", "Satisfy Any with an allowed address: no login"),
            Case("/providers/x.txt", "AuthBasicProvider twice: the first line's file still asked",
                 basic("alice", "s3cret")),
            Case("/providers/x.txt", "AuthBasicProvider twice: a wrong password",
                 basic("alice", "S3cret")),
            Case("/providers2/x.txt", "AuthBasicProvider anon, then file", basic("bob", "hunter2")),
        ],
    )


def login_variables() -> SiteSpec:
    """REMOTE_USER and AUTH_TYPE in ``Header … expr=`` once the login was checked (``r->user``
    is set before the password is: a wrong password still names the user on the 401)."""
    headers = ("Header always set X-User \"u\" \"expr=%{REMOTE_USER} == 'alice' && "
               "%{AUTH_TYPE} == 'Basic'\"\n")
    return SiteSpec(
        "loginvars",
        {"logins-files/users": PASSWORDS, "logins-files/groups": GROUPS, "v/x.txt": None,
         "v/.htaccess": _login(headers)},
        [
            Case("/v/x.txt", "REMOTE_USER after a login", basic("alice", "s3cret"),
                 compare_headers=("X-User",)),
            Case("/v/x.txt", "REMOTE_USER on the 401 of a wrong password",
                 basic("alice", "S3cret"), compare_headers=("X-User",)),
            Case("/v/x.txt", "no login: no user", compare_headers=("X-User",)),
        ])


def login_expressions() -> SiteSpec:
    """``Require user``/``group`` read their line as a string expression, then split it into
    words (``user_parse_config``)."""
    return SiteSpec(
        "loginexpr",
        {"logins-files/users": PASSWORDS, "logins-files/groups": GROUPS, "u/x.txt": None,
         "u/.htaccess": _login(require="Require user %{HTTP:X-Allowed} nobody"),
         "g/x.txt": None,
         "g/.htaccess": _login(require="Require group %{tolower:%{HTTP:X-Group}}")},
        [
            Case("/u/x.txt", "Require user from a header: alice allowed",
                 {**basic("alice", "s3cret"), "X-Allowed": "bob alice"}),
            Case("/u/x.txt", "Require user from a header: alice not named",
                 {**basic("alice", "s3cret"), "X-Allowed": "bob"}),
            Case("/g/x.txt", "Require group from a header", {**basic("alice", "s3cret"),
                                                               "X-Group": "ADMINS"}),
            Case("/g/x.txt", "Require group from a header: another group",
                 {**basic("alice", "s3cret"), "X-Group": "staff"}),
        ])


def digest_algorithm() -> SiteSpec:
    """``AuthBasicUseDigestAlgorithm MD5``: a Basic login checked against an htdigest file's
    ``user:realm:MD5(user:realm:password)`` (``get_realm_hash``); ``AuthBasicFake`` does not
    change the login's answer."""
    realm_hash = hashlib.md5(b"alice:members:s3cret").hexdigest()
    digests = f"alice:members:{realm_hash}\nbob:elsewhere:{realm_hash}\n"
    login = (f"AuthType Basic\nAuthName \"members\"\nAuthUserFile {ROOT_TOKEN}/files/digests\n"
             "AuthBasicUseDigestAlgorithm MD5\nRequire valid-user\n")
    fake = _login("AuthBasicFake demo demopass\n")
    return SiteSpec(
        "logindigest",
        {"files/digests": digests, "logins-files/users": PASSWORDS,
         "logins-files/groups": GROUPS, "d/x.txt": None, "d/.htaccess": login,
         "f/x.txt": None, "f/.htaccess": fake},
        [
            Case("/d/x.txt", "the realm hash matches", basic("alice", "s3cret")),
            Case("/d/x.txt", "a wrong password", basic("alice", "S3cret")),
            Case("/d/x.txt", "a user of another realm", basic("bob", "s3cret")),
            Case("/f/x.txt", "AuthBasicFake: a good login", basic("alice", "s3cret")),
            Case("/f/x.txt", "AuthBasicFake: no login"),
        ])


def lookahead_user() -> SiteSpec:
    """``%{LA-U:REMOTE_USER}`` in the server context: mod_rewrite's look-ahead sub-request
    checks the login, and the variable is the user it named (mod_rewrite's documented use)."""
    rules = ("RewriteEngine On\nRewriteCond %{LA-U:REMOTE_USER} (.+)\n"
             "RewriteRule ^ - [E=RU:%1]\nHeader always set X-RU \"%{RU}e\"\n")
    return SiteSpec(
        "lookaheaduser",
        {"logins-files/users": PASSWORDS, "logins-files/groups": GROUPS, "a/x.txt": None,
         "a/.htaccess": _login(), "n/x.txt": None},
        [
            Case("/a/x.txt", "LA-U:REMOTE_USER after a login", basic("alice", "s3cret"),
                 compare_headers=("X-RU",)),
            Case("/a/x.txt", "LA-U:REMOTE_USER, a wrong password", basic("alice", "S3cret"),
                 compare_headers=("X-RU",)),
            Case("/n/x.txt", "LA-U:REMOTE_USER without a login check",
                 basic("alice", "s3cret"), compare_headers=("X-RU",)),
        ], vhost_extra=rules)


SITES = [basic_logins, login_variables, login_expressions, digest_algorithm, lookahead_user]

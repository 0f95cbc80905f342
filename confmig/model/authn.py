"""Authentication (the ``check_user_id`` hook): who the client is, from its ``Authorization``
header, as ``mod_auth_basic`` with the ``file`` provider (``mod_authn_file``) decides it, and the
group file ``mod_authz_groupfile`` reads.

Apache runs this only when authorization cannot decide without a user (a ``Require user``,
``valid-user`` or ``group`` that nothing else settled); :mod:`confmig.model.access` calls it
then and evaluates the ``Require`` tree again with the user, as ``authorize_user`` does.

Read from ``modules/aaa/mod_auth_basic.c`` (``authenticate_basic_user``, ``get_basic_auth``),
``mod_authn_file.c`` (``check_password``) and ``mod_authz_groupfile.c`` (``groups_for_user``);
each answer is checked against real Apache in ``tests/model/test_logins_apache.py``.
Passwords and hashes are never put into the explanation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from confmig.apache.paths import server_root_relative
from confmig.model.merge.authbasic import AuthBasicDir, AuthnFileDir, GroupFileDir
from confmig.model.passwords import Verdict, validate
from confmig.model.round import Round
from confmig.syntax.words import split_words

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation

# Apache reads the password file with ap_cfg_getline into MAX_STRING_LEN bytes; confmig reads
# at most this much of a password or group file (a larger one is reported, not read).
MAX_FILE_BYTES = 16 * 1024 * 1024
_BASE64 = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")


@dataclass(frozen=True)
class Login:
    """The outcome of ``check_user_id``: ``status`` 0 and the ``user``, or the error status
    (401, 500) with the user the client claimed (Apache sets ``r->user`` before checking)."""

    status: int
    user: str | None = None


def authenticate(ev: Evaluation, rnd: Round) -> Login:
    """``check_user_id`` for the merged configuration of *rnd*."""
    authn = rnd.config.get("authn")
    auth_type = authn.auth_type if authn is not None else None
    modules = ev.site.state.modules
    if auth_type is None or auth_type.lower() != "basic" \
            or not modules.has("auth_basic_module"):
        if auth_type is not None and auth_type.lower() == "digest" \
                and modules.has("auth_digest_module"):
            ev.note("AuthType Digest: logins are not checked (taken as no valid login)")
            ev.step("access", "AuthType Digest: no valid login → 401")
            return Login(401)
        ev.step("access", f"no module authenticates AuthType {auth_type} → 500")
        return Login(500)
    if not authn.auth_name:
        ev.step("access", "AuthType Basic without AuthName → 500 (need AuthName)")
        return Login(500)
    credentials = basic_credentials(ev.request.headers.get("Authorization"))
    if credentials is None:
        ev.step("access", f"AuthType Basic, realm \"{authn.auth_name}\": no Basic "
                          "credentials sent → 401")
        return Login(401)
    user, password = credentials
    basic: AuthBasicDir = rnd.config.get("auth_basic") or AuthBasicDir()
    if basic.fake:
        ev.note("AuthBasicFake: the Authorization header it sets in the fixups is not "
                "modelled (the login is checked as sent)")
    digest = None
    if basic.digest_algorithm is not None:  # AuthBasicUseDigestAlgorithm MD5
        import hashlib  # (here: a request model without a login does not load it, issue 17)

        digest = hashlib.md5(f"{user}:{authn.auth_name}:{password}".encode(
            "utf-8", "surrogateescape")).hexdigest()
    providers = basic.providers or ("file",)
    for name in providers:
        if name != "file":
            ev.note(f"AuthBasicProvider {name}: not modelled (taken as an unknown user)")
            continue
        status = (check_password_file(ev, rnd, user, password) if digest is None
                  else check_realm_hash(ev, rnd, user, authn.auth_name, digest))
        if status != "not-found":
            break
    else:
        status = "not-found"
    if status == "granted":
        ev.step("access", f"user {user!r} authenticated by AuthUserFile")
        return Login(0, user)
    if status == "error":
        return Login(500, user)
    reason = "password mismatch" if status == "denied" else "user not found"
    ev.step("access", f"user {user!r}: {reason} → 401")
    return Login(401, user)


def basic_credentials(header: str | None) -> tuple[str, str] | None:
    """``get_basic_auth``: the user and password of a ``Basic`` Authorization header (None
    when there is none or it names another scheme).  Decoding is APR's: the base64 prefix of
    the value, a C string (cut at a NUL byte), split at the first ``:``."""
    if header is None:
        return None
    scheme, _, rest = header.partition(" ")
    if scheme.lower() != "basic":
        return None
    data = rest.lstrip(" \t").encode("latin-1", errors="replace")
    valid = len(data)
    for index, byte in enumerate(data):
        if byte not in _BASE64:
            valid = index
            break
    prefix = data[:valid]
    if len(prefix) % 4 == 1:
        prefix = prefix[:-1]
    import base64  # (here: a request without a login does not load it, issue 17)

    decoded = base64.b64decode(prefix + b"=" * (-len(prefix) % 4)).split(b"\0", 1)[0]
    user, _, password = decoded.partition(b":")
    return (user.decode("utf-8", errors="surrogateescape"),
            password.decode("utf-8", errors="surrogateescape"))


def check_password_file(ev: Evaluation, rnd: Round, user: str, password: str) -> str:
    """``mod_authn_file``'s ``check_password``: "granted", "denied", "not-found" or "error"."""
    conf: AuthnFileDir | None = rnd.config.get("authn_file")
    if conf is None or conf.user_file is None:
        ev.step("access", "AuthUserFile not specified in the configuration → 500")
        return "error"
    lines = _read_lines(ev, conf.user_file, "password")
    if lines is None:
        ev.step("access", "the password file cannot be read → 500")
        return "error"
    for line in lines:
        name, _, rest = line.partition(":")
        if name == user:
            stored = rest.partition(":")[0]
            verdict = validate(password, stored)
            if verdict is Verdict.UNKNOWN:
                ev.note(f"AuthUserFile {conf.user_file}: the hash format of user {user!r} is "
                        "not one confmig computes (taken as a mismatch)")
            return "granted" if verdict is Verdict.MATCH else "denied"
    return "not-found"


def check_realm_hash(ev: Evaluation, rnd: Round, user: str, realm: str, digest: str) -> str:
    """``mod_authn_file``'s ``get_realm_hash`` under ``AuthBasicUseDigestAlgorithm MD5``: the
    line ``user:realm:hash`` (an htdigest file) whose hash must equal MD5 of
    ``user:realm:password``.  "granted", "denied", "not-found" or "error"."""
    conf: AuthnFileDir | None = rnd.config.get("authn_file")
    if conf is None or conf.user_file is None:
        ev.step("access", "AuthUserFile not specified in the configuration → 500")
        return "error"
    lines = _read_lines(ev, conf.user_file, "password")
    if lines is None:
        ev.step("access", "the password file cannot be read → 500")
        return "error"
    for line in lines:
        name, _, rest = line.partition(":")
        line_realm, _, rest = rest.partition(":")
        if name == user and line_realm == realm:
            return "granted" if rest.partition(":")[0] == digest else "denied"
    return "not-found"


def groups_of(ev: Evaluation, rnd: Round, user: str) -> set[str] | None:
    """``groups_for_user``: the groups of the group file that list *user* (None when there is
    no group file or it cannot be read: Apache then denies)."""
    conf: GroupFileDir | None = rnd.config.get("authz_groupfile")
    if conf is None or conf.group_file is None:
        ev.step("access", "Require group: no AuthGroupFile → denied")
        return None
    lines = _read_lines(ev, conf.group_file, "group")
    if lines is None:
        return None
    return groups_listing(lines, user)


def groups_listing(lines: list[str], user: str) -> set[str]:
    """The groups whose line of the group file (:func:`logical_lines`) lists *user*: the
    name before the first ``:`` without trailing white space, the members split as
    ``ap_getword_conf`` splits them (``groups_for_user``)."""
    groups: set[str] = set()
    for line in lines:
        name, _, members = line.partition(":")
        if user in split_words(members):
            groups.add(name.rstrip(" \t\n\r\f\v"))
    return groups


def group_members(lines: list[str]) -> list[str]:
    """Every name a group file lists as a member, in order of first appearance: the only
    users :func:`groups_listing` can find a group for."""
    return list(dict.fromkeys(w for line in lines for w in split_words(line.partition(":")[2])))


def in_required_group(groups: set[str], required: list[str]) -> bool:
    """``Require group``: whether one of *required* is among the user's *groups* — looked
    up in an APR table, whose keys compare without regard to ASCII case (``strcasecmp``)."""
    folded = {g.translate(_ASCII_LOWER) for g in groups}
    return any(w.translate(_ASCII_LOWER) in folded for w in required)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _read_lines(ev: Evaluation, written: str, kind: str) -> list[str] | None:
    """The non-comment, non-blank logical lines of a password or group file, trimmed as
    ``ap_cfg_getline`` trims them (cached per evaluation site); None when unreadable."""
    path = server_root_relative(written, str(ev.site.state.server_root))
    key = ("auth-file", path)
    cached = ev.site.memo.get(key)
    if cached is None:
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            ev.step("access", f"Could not open {kind} file {path}: {exc.strerror or exc}")
            return None
        if len(data) > MAX_FILE_BYTES:
            ev.note(f"{kind} file {path} is larger than {MAX_FILE_BYTES} bytes: not read")
            return None
        cached = ev.site.memo[key] = logical_lines(data)
    return cached


def logical_lines(data: bytes) -> list[str]:
    """The lines of a password or group file as Apache reads them (``ap_cfg_getline``): a
    backslash-newline joins two lines, each is trimmed of white space, blank ones and
    ``#`` comments are skipped."""
    text = data.decode("utf-8", errors="surrogateescape").replace("\\\n", "")
    return [s for s in (raw.strip(" \t\n\r\f\v") for raw in text.split("\n"))
            if s and not s.startswith("#")]

"""``apr_password_validate``: does a password match a hash from an htpasswd file?

APR tells the formats apart by their prefix (apr-util ``crypto/apr_passwd.c``):

* ``$2a$``/``$2y$`` — bcrypt (``htpasswd -B``);
* ``$apr1$`` — APR's own MD5 crypt (``htpasswd -m``, the default);
* ``{SHA}`` — base64 of SHA-1 (``htpasswd -s``);
* anything else goes to the system's ``crypt()``: DES (``htpasswd -d``), ``$1$`` MD5,
  ``$5$``/``$6$`` SHA-crypt (``htpasswd -2``/``-5``), ``$2b$`` bcrypt.  Plain text
  (``htpasswd -p``) is accepted only on Windows, NetWare and BeOS: on Unix ``crypt()`` hashes
  the password with the stored text as its salt, which never equals the stored text.

The hashes are computed by libpass (the maintained fork of passlib), imported on first use so
commands that check no login do not pay for it.  A format confmig cannot compute (yescrypt
``$y$``, a crypt() scheme libpass lacks) is reported as unknown rather than guessed.
"""

from __future__ import annotations

from enum import Enum


class Verdict(Enum):
    MATCH = "match"
    MISMATCH = "mismatch"
    UNKNOWN = "unknown"  # a hash format confmig cannot compute


def validate(password: str, stored: str) -> Verdict:
    """Apache's answer for *password* against the *stored* hash (both as Apache reads them:
    bytes decoded with surrogateescape, so any byte round-trips)."""
    from passlib import hash as schemes  # libpass; imported here on purpose (start-up time)

    secret = password.encode("utf-8", errors="surrogateescape")
    if stored.startswith(("$2a$", "$2y$", "$2b$")):
        scheme = schemes.bcrypt
    elif stored.startswith("$apr1$"):
        scheme = schemes.apr_md5_crypt
    elif stored.startswith("{SHA}"):
        scheme = schemes.ldap_sha1
    elif stored.startswith("$1$"):
        scheme = schemes.md5_crypt
    elif stored.startswith("$5$"):
        scheme = schemes.sha256_crypt
    elif stored.startswith("$6$"):
        scheme = schemes.sha512_crypt
    elif stored.startswith("$"):
        return Verdict.UNKNOWN
    elif len(stored) == 13:
        scheme = schemes.des_crypt
    else:  # crypt() of a malformed DES hash: never the stored text itself (plain text fails)
        return Verdict.MISMATCH
    if not scheme.identify(stored):
        return Verdict.MISMATCH
    try:
        return Verdict.MATCH if scheme.verify(secret, stored) else Verdict.MISMATCH
    except ValueError:  # a malformed hash of a known scheme: crypt() gives no match
        return Verdict.MISMATCH

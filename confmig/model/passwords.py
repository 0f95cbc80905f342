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

    kind = scheme(stored)
    if kind == "unknown":
        return Verdict.UNKNOWN
    if kind == "plain":  # crypt() of a malformed DES hash: never the stored text itself
        return Verdict.MISMATCH
    handler = {"bcrypt": schemes.bcrypt, "apr1": schemes.apr_md5_crypt,
               "sha1": schemes.ldap_sha1, "md5-crypt": schemes.md5_crypt,
               "sha256-crypt": schemes.sha256_crypt, "sha512-crypt": schemes.sha512_crypt,
               "des-crypt": schemes.des_crypt}[kind]
    if not handler.identify(stored):
        return Verdict.MISMATCH
    secret = password.encode("utf-8", errors="surrogateescape")
    try:
        return Verdict.MATCH if handler.verify(secret, stored) else Verdict.MISMATCH
    except ValueError:  # a malformed hash of a known scheme: crypt() gives no match
        return Verdict.MISMATCH


def scheme(stored: str) -> str:
    """The format of a stored hash as APR tells it apart: ``bcrypt``, ``apr1``, ``sha1``
    (``{SHA}``, unsalted), ``md5-crypt``, ``sha256-crypt``, ``sha512-crypt``, ``des-crypt``
    (only 8 characters of a password count), ``plain`` (never matches on Unix) or
    ``unknown``."""
    if stored.startswith(("$2a$", "$2y$", "$2b$")):
        return "bcrypt"
    for prefix, name in (("$apr1$", "apr1"), ("{SHA}", "sha1"), ("$1$", "md5-crypt"),
                         ("$5$", "sha256-crypt"), ("$6$", "sha512-crypt")):
        if stored.startswith(prefix):
            return name
    if stored.startswith("$"):
        return "unknown"
    if len(stored) == 13 and all(c.isalnum() or c in "./" for c in stored):
        return "des-crypt"
    return "plain"

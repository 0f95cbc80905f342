"""CTX010: logins Apache answers 500 for.  The 500s themselves are held to real Apache by the
differential login sites (tests/differential/sites_logins.py: noname, nofile, missing)."""

from __future__ import annotations

from pathlib import Path

from confmig.lint.finding import Severity
from confmig.lint.testing import finds

HASH = "bob:$2y$05$RuhRKyIwit1LuZDvlkr.C.Y3oXiuOt16X.1.NYDZRsT.P9GjpX5E.\n"


def test_no_authname_is_an_error() -> None:
    found = finds("CTX010", "AuthType Basic\nAuthUserFile u\nRequire valid-user\n",
                  files={"u": HASH})
    assert [f.severity for f in found] == [Severity.error]
    assert "without AuthName" in found[0].message


def test_missing_or_unreadable_user_file(tmp_path: Path) -> None:
    text = "AuthType Basic\nAuthName x\nAuthUserFile /nonexistent/users\nRequire user bob\n"
    found = finds("CTX010", text)
    assert len(found) == 1 and "cannot open it" in found[0].message
    missing = finds("CTX010", "AuthType Basic\nAuthName x\nRequire valid-user\n")
    assert len(missing) == 1 and "without AuthUserFile" in missing[0].message
    other = finds("CTX010", "AuthType Basic\nAuthName x\nAuthBasicProvider ldap\n"
                            "Require valid-user\n", modules=None)
    assert all("AuthUserFile" not in f.message for f in other)


def test_require_user_without_authtype() -> None:
    assert finds("CTX010", "Require valid-user\n") == []  # a parent may set it all
    found = finds("CTX010", "AuthName x\nRequire valid-user\n")
    assert len(found) == 1 and "with no AuthType" in found[0].message


def test_complete_logins_and_other_requires_are_quiet() -> None:
    text = "AuthType Basic\nAuthName x\nAuthUserFile u\nRequire valid-user\n"
    assert finds("CTX010", text, files={"u": HASH}) == []
    assert finds("CTX010", "AuthType Basic\nRequire all granted\n") == []

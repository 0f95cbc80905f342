"""SEC011 (a password file Apache serves, asked of the model) and SEC012 (password entries
that never match or match too easily)."""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.lint.engine import lint_paths
from confmig.lint.finding import Severity
from confmig.lint.testing import finds, write_tree
from confmig.model.passwords import scheme
from tests.differential.sites_logins import PASSWORDS

LOGIN = "AuthType Basic\nAuthName m\nAuthUserFile {path}\nRequire valid-user\n"


def lint_tree(root: Path) -> list:
    return [f for f in lint_paths([root], use_cache=False).findings if f.code == "SEC011"]


def test_a_password_file_apache_serves_is_found(tmp_path: Path) -> None:
    root = tmp_path / "www"
    write_tree(root, {"index.html": "hi\n", "users.txt": PASSWORDS,
                      "private/.htaccess": LOGIN.format(path=root / "users.txt")})
    found = lint_tree(root)
    assert len(found) == 1 and "GET /users.txt answers 200" in found[0].message


def test_one_behind_its_own_login_is_not(tmp_path: Path) -> None:
    root = tmp_path / "www"  # (GET /private/users.txt: 401)
    write_tree(root, {"index.html": "hi\n", "private/users.txt": PASSWORDS,
                      "private/.htaccess": LOGIN.format(path=root / "private/users.txt")})
    assert lint_tree(root) == []


def test_one_a_rule_denies_is_not(tmp_path: Path) -> None:
    root = tmp_path / "www"
    write_tree(root, {"index.html": "hi\n", "users.txt": PASSWORDS,
                      ".htaccess": '<Files "users.txt">\nRequire all denied\n</Files>\n',
                      "private/.htaccess": LOGIN.format(path=root / "users.txt")})
    assert lint_tree(root) == []


def test_one_outside_the_docroot_is_not(tmp_path: Path) -> None:
    root = tmp_path / "www"
    (tmp_path / "users").write_text(PASSWORDS)
    write_tree(root, {"index.html": "hi\n", ".htaccess": LOGIN.format(path=tmp_path / "users")})
    assert lint_tree(root) == []


@pytest.mark.parametrize(("user", "kind"), [
    ("alice", "apr1"), ("bob", "bcrypt"), ("carol", "sha1"), ("dave", "des-crypt"),
    ("erin", "sha512-crypt"), ("frank", "plain"), ("gina", "sha256-crypt")])
def test_every_htpasswd_format_is_told_apart(user: str, kind: str) -> None:
    entries = dict(line.split(":", 1) for line in PASSWORDS.splitlines() if ":" in line)
    assert scheme(entries[user]) == kind


def test_weak_entries_are_reported_without_their_hashes() -> None:
    found = finds("SEC012", LOGIN.format(path="users"), files={"users": PASSWORDS})
    by_user = {f.message.split("user ")[1].split(":")[0].strip("'"): f for f in found}
    assert set(by_user) == {"carol", "dave", "frank"}
    assert by_user["frank"].severity is Severity.error
    assert by_user["dave"].severity is Severity.warning
    hashes = [line.split(":", 1)[1] for line in PASSWORDS.splitlines() if ":" in line]
    for f in found:
        assert not any(h in f.message for h in hashes)


def test_a_dot_ht_name_is_denied_by_debians_defaults(tmp_path: Path) -> None:
    root = tmp_path / "www"
    write_tree(root, {"index.html": "hi\n", ".htpasswd": PASSWORDS,
                      "private/.htaccess": LOGIN.format(path=root / ".htpasswd")})
    assert lint_tree(root) == []

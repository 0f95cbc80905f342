"""explain with logins: ``--user`` sends Basic credentials, nothing secret is printed, and
bad options are one-line errors.  (The answers themselves are held to real Apache by the
differential login sites, tests/differential/sites_logins.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.model.authn import basic_credentials
from confmig.model.passwords import Verdict, validate
from tests.differential.sites_logins import PASSWORDS

HASHES = dict(line.split(":", 1) for line in PASSWORDS.splitlines() if ":" in line)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "users").write_text(PASSWORDS)
    root = tmp_path / "www"
    root.mkdir()
    (root / "x.txt").write_text("hi\n")
    (root / ".htaccess").write_text(f"AuthType Basic\nAuthName m\nAuthUserFile "
                                    f"{tmp_path / 'users'}\nRequire user alice\n")
    return root


def explain(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["explain", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.output


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_correct_login_is_200_and_nothing_secret_is_printed(site: Path, fmt: str) -> None:
    code, output = explain("/x.txt", "--root", str(site), "--user", "alice:s3cret",
                           "--format", fmt)
    assert code == 0
    assert ('"status": 200' in output) if fmt == "json" else ("200" in output)
    for secret in ("s3cret", HASHES["alice"], "YWxpY2U6czNjcmV0"):
        assert secret not in output


def test_a_wrong_password_is_401(site: Path) -> None:
    code, output = explain("/x.txt", "--root", str(site), "--user", "alice:nope",
                           "--format", "json")
    assert code == 0 and '"status": 401' in output


def test_user_without_colon_is_a_usage_error(site: Path) -> None:
    code, output = explain("/x.txt", "--root", str(site), "--user", "alice")
    assert code == 2 and "NAME:PASSWORD" in output


def test_remote_addr_decides_require_ip(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("hi\n")
    (tmp_path / ".htaccess").write_text("Require ip 10.0.0.0/8\n")
    assert '"status": 200' in explain("/x.txt", "--root", str(tmp_path), "--remote-addr",
                                      "10.1.2.3", "--format", "json")[1]
    assert '"status": 403' in explain("/x.txt", "--root", str(tmp_path), "--format", "json")[1]
    code, output = explain("/x.txt", "--root", str(tmp_path), "--remote-addr", "10.1.2")
    assert code == 2 and "not an IP address" in output


@pytest.mark.parametrize(("user", "password"), [
    ("alice", "s3cret"), ("bob", "hunter2"), ("carol", "pw1"), ("dave", "pw2"), ("erin", "pw3"),
    ("gina", "pw5")])
def test_every_unix_htpasswd_format_validates(user: str, password: str) -> None:
    assert validate(password, HASHES[user]) is Verdict.MATCH
    assert validate(password + "x", HASHES[user]) is Verdict.MISMATCH or user == "dave"


def test_plain_text_never_matches_on_unix() -> None:
    assert validate("pw4", HASHES["frank"]) is Verdict.MISMATCH


def test_unknown_hash_formats_are_said_to_be_unknown() -> None:
    assert validate("x", "$y$j9T$abc$def") is Verdict.UNKNOWN


@pytest.mark.parametrize(("header", "expected"), [
    ("Basic YWxpY2U6czNjcmV0", ("alice", "s3cret")),
    ("basic   YWxpY2U6czNjcmV0", ("alice", "s3cret")),
    ("Basic YWxpY2U=", ("alice", "")),
    ("Basic YWxpY2U6czNj!!!", ("alice", "s3c")),
    ("Digest x", None),
    (None, None),
])
def test_basic_credentials_decode_as_apr_does(header: str | None,
                                              expected: tuple[str, str] | None) -> None:
    assert basic_credentials(header) == expected


def test_no_dns_announces_the_host_name_decision(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("hi\n")
    (tmp_path / ".htaccess").write_text("Require host localhost\n")
    looked_up = explain("/x.txt", "--root", str(tmp_path), "--format", "json")[1]
    assert '"status": 200' in looked_up and "DNS lookups are off" not in looked_up
    offline = explain("/x.txt", "--root", str(tmp_path), "--no-dns", "--format", "json")[1]
    assert '"status": 403' in offline and "DNS lookups are off" in offline


def test_time_option_sets_the_clock_of_time_variables(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("hi\n")
    (tmp_path / ".htaccess").write_text('<If "%{TIME_HOUR} -lt 12">\nRequire all denied\n'
                                        '</If>\n')
    morning = explain("/x.txt", "--root", str(tmp_path), "--time", "2026-01-01T10:00:00",
                      "--format", "json")[1]
    afternoon = explain("/x.txt", "--root", str(tmp_path), "--time", "2026-01-01T13:00:00",
                        "--format", "json")[1]
    assert '"status": 403' in morning and '"status": 200' in afternoon
    code, output = explain("/x.txt", "--root", str(tmp_path), "--time", "soon")
    assert code == 2 and "--time" in output

"""DEP rules: unit hits/misses, and what they claim checked on real Apache 2.4."""

from __future__ import annotations

import gc
import os
import shutil
import tracemalloc
from collections.abc import Iterator

import pytest

from confmig.lint.finding import Severity
from confmig.lint.rules.dep.access import translate
from confmig.lint.testing import ApacheCases, HtaccessCase, finds
from confmig.servers import ApacheBinary, ApacheServer, apache_config_test, http_get, make_docroot
from confmig.syntax import Directive, parse_text

# -- DEP001 -----------------------------------------------------------------------------------


def _directives(text: str) -> list[Directive]:
    return list(parse_text(text).directives())


@pytest.mark.parametrize("text, expected", [
    ("Order deny,allow\nDeny from all\n", "Require all denied"),
    ("Order allow,deny\nAllow from all\n", "Require all granted"),
    ("Order Allow,Deny\n", "Require all denied"),
    ("Order deny,allow\nDeny from all\nAllow from 10.0.0.0/8 example.org\n",
     "Require ip 10.0.0.0/8; Require host example.org"),
    ("Allow from env=let_in\nDeny from all\n", "Require env let_in"),
    ("Order allow,deny\nAllow from all\nDeny from 192.168.1.5\n",
     "<RequireAll> Require all granted; Require not ip 192.168.1.5 </RequireAll>"),
    ("Deny from 2001:db8::/32\n",
     "<RequireAll> Require all granted; Require not ip 2001:db8::/32 </RequireAll>"),
    ("Order allow,deny\nAllow from 10.1\nDeny from 10.1.2.3\n", None),
    ("Order deny,allow\nDeny from all\nSatisfy Any\n", None),
])
def test_dep001_translation(text: str, expected: str | None) -> None:
    assert translate(_directives(text)) == expected


def test_dep001_translation_passes_over_other_lines() -> None:
    text = "Header set X y\nDeny from all\nRequire all granted\nAllow from 10.0.0.1\n"
    assert translate(_directives(text)) == "Require ip 10.0.0.1"
    [found] = finds("DEP001", text)
    assert (found.line, found.hint) == (2, "replace with: Require ip 10.0.0.1")
    assert found.message.startswith("Deny/Allow in ")


def test_dep001_translation_holds_no_list_of_every_word() -> None:
    """A line's words are read when it is reached (issue 10): the words of every Allow line
    held at once were 70 bytes a line, the peak of a lint of 1 MB of ``Allow from`` lines."""
    n = 3_000
    nodes = _directives("".join(f"Allow from 10.{i // 256}.{i % 256}.0/24\n" for i in range(n)))
    for d in nodes:
        d.args  # noqa: B018 - read (and kept) before, as a lint does
    gc.collect()
    tracemalloc.start()
    equivalent = translate(nodes)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert equivalent == "Require all granted"
    assert peak / n < 10, f"{peak / n:.0f} bytes a line"


def test_dep001_one_finding_per_section_with_the_equivalent() -> None:
    text = ("Order deny,allow\nDeny from all\n<Files x.php>\nOrder allow,deny\nAllow from all\n"
            "</Files>\n")
    found = finds("DEP001", text)
    assert [f.line for f in found] == [1, 4]
    assert found[0].hint == "replace with: Require all denied"
    assert "Require all granted" in found[1].message


def test_dep001_misses_require() -> None:
    assert not finds("DEP001", "Require all denied\n<RequireAny>\nRequire ip 10.0.0.1\n"
                               "</RequireAny>\n")


# -- DEP002 -----------------------------------------------------------------------------------


def test_dep002_same_section_only() -> None:
    assert finds("DEP002", "<Files a>\nRequire all granted\nDeny from all\n</Files>\n")
    assert not finds("DEP002", "Require all granted\n<Files a>\nDeny from all\n</Files>\n")
    [m] = [f.message for f in finds("DEP002", "Require all granted\nSatisfy Any\n")]
    assert "Satisfy Any" in m


# A deny-all block many applications ship (Nextcloud's data/.htaccess): on a 2.4 server with
# mod_access_compat loaded (Debian's default) both generations are read.
SHIPPED_DENY_ALL = (
    "<IfModule mod_authz_core.c>\n  Require all denied\n</IfModule>\n"
    "<IfModule mod_access_compat.c>\n  Order Allow,Deny\n  Deny from all\n  Satisfy All\n"
    "</IfModule>\n<IfModule !mod_authz_core.c>\n  <IfModule !mod_access_compat.c>\n"
    "    <IfModule mod_authz_host.c>\n      Order Allow,Deny\n      Deny from all\n"
    "    </IfModule>\n    Satisfy All\n  </IfModule>\n</IfModule>\n")

# case -> (.htaccess, DEP002 severity or None, what Apache answers from 127.0.0.1)
DEP002_CASES = {
    "shipped": (SHIPPED_DENY_ALL, Severity.warning, 403),
    "bothdenyany": ("Require all denied\nOrder allow,deny\nDeny from all\nSatisfy Any\n",
                    Severity.warning, 403),
    "bothgrant": ("Require all granted\nOrder allow,deny\nAllow from all\n", Severity.warning,
                  200),
    "requiredenies": ("Require all denied\nOrder deny,allow\nDeny from 10.0.0.0/8\n",
                      Severity.warning, 403),
    "mixed": ("Require all granted\nOrder deny,allow\nDeny from all\n", Severity.error, 403),
    "liftedbyany": ("Require all denied\nSatisfy Any\n", Severity.error, 200),
    "allowany": ("Require all denied\nOrder allow,deny\nAllow from all\nSatisfy Any\n",
                 Severity.error, 200),
    "bylocalip": ("Require all granted\nOrder deny,allow\nDeny from all\n"
                  "Allow from 127.0.0.1\n", Severity.error, 200),
    "limit": ("Require all denied\n<Limit GET>\nOrder allow,deny\nAllow from all\n</Limit>\n"
              "Satisfy Any\n", Severity.error, 200),
    "guarded": ("<IfModule authz_core_module>\n\tRequire all denied\n</IfModule>\n"
                "<IfModule !authz_core_module>\n\tDeny from all\n</IfModule>\n", None, 403),
}


@pytest.mark.parametrize("case", DEP002_CASES)
def test_dep002_is_an_error_only_where_the_2_2_lines_change_the_answer(case: str) -> None:
    text, severity, _ = DEP002_CASES[case]
    found = finds("DEP002", text)
    assert [f.severity for f in found] == ([severity] if severity else [])
    if severity is Severity.warning:
        assert "so" in found[0].message and "<IfModule !mod_authz_core.c>" in (
            found[0].hint or "")
    if case in ("shipped", "bothdenyany"):
        assert "both generations deny every request" in found[0].message
        assert "Require alone is still refused" in found[0].message


# -- DEP003 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("line, severity", [
    ("LockFile /var/lock/apache2", Severity.error), ("SSLMutex default", Severity.error),
    ("NameVirtualHost *:80", Severity.warning), ("DefaultType text/plain", Severity.warning),
    ("MaxClients 150", Severity.info), ("RewriteLog /tmp/rw.log", Severity.error),
])
def test_dep003_severity_follows_what_apache_does(line: str, severity: Severity) -> None:
    [f] = finds("DEP003", line + "\n", kind="server")
    assert f.severity is severity


def test_dep003_misses_current_spellings() -> None:
    text = "DefaultType None\nMaxRequestWorkers 150\nMutex file:/var/lock default\n"
    assert not finds("DEP003", text, kind="server")


# -- real Apache ------------------------------------------------------------------------------

CASES = {
    "mixed": "Require all granted\nOrder deny,allow\nDeny from all\n",
    "mixedany": "Require all granted\nOrder deny,allow\nDeny from all\nSatisfy Any\n",
    "mixed2": "Require all denied\nOrder allow,deny\nAllow from all\n",
    "ldap": "AuthzLDAPAuthoritative off\n",
    "defaulttype": "DefaultType text/plain\n",
}


@pytest.fixture(scope="module")
def site(apache_binary: ApacheBinary) -> Iterator[ApacheServer]:
    root = make_docroot(prefix="confmig-dep-")
    try:
        for case, text in CASES.items():
            (root / case).mkdir()
            (root / case / ".htaccess").write_text(text)
            (root / case / "f.txt").write_text("F\n")
            (root / case / "f.zzunknown").write_text("Z\n")
        for directory, _, names in os.walk(root):
            os.chmod(directory, 0o755)
            for name in names:
                os.chmod(os.path.join(directory, name), 0o644)
        with ApacheServer(root, allow_override="All") as server:
            yield server
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.apache
def test_dep002_severities_agree_with_apache() -> None:
    """Each DEP002 case on real Apache (the machine's modules: mod_access_compat loaded as
    Debian does): the answer the severity is based on, and the inheritance the warning
    mentions -- a directory below the shipped block that opens access with Require alone
    is still refused."""
    cases = [HtaccessCase(name, text) for name, (text, _, _) in DEP002_CASES.items()]
    cases.append(HtaccessCase("shipped/sub", "Require all granted\n"))
    with ApacheCases(cases) as apache:
        statuses = {c.name: apache.status(c.name) for c in cases}
    assert statuses.pop("shipped/sub") == 403
    assert statuses == {name: status for name, (_, _, status) in DEP002_CASES.items()}


@pytest.mark.apache
def test_dep002_both_checks_must_pass_unless_satisfy_any(site: ApacheServer) -> None:
    for case in ("mixed", "mixedany", "mixed2"):
        assert finds("DEP002", CASES[case]), case
    assert http_get(site.base_url, "/mixed/f.txt").status == 403
    assert http_get(site.base_url, "/mixed2/f.txt").status == 403
    assert http_get(site.base_url, "/mixedany/f.txt").status == 200


@pytest.mark.apache
def test_dep003_removed_directive_is_a_500_ignored_one_does_nothing(site: ApacheServer) -> None:
    assert finds("DEP003", CASES["ldap"]) and finds("DEP003", CASES["defaulttype"])
    assert http_get(site.base_url, "/ldap/f.txt").status == 500
    resp = http_get(site.base_url, "/defaulttype/f.zzunknown")
    assert resp.status == 200 and "Content-Type" not in resp.headers
    assert "AH00117" in site.error_log_text() or "DefaultType" in site.error_log_text()


@pytest.mark.apache
def test_dep003_server_config_facts(apache_binary: ApacheBinary) -> None:
    ok, message = apache_config_test("NameVirtualHost *:80\n")
    assert ok and "AH00548" in message
    ok, message = apache_config_test("LockFile /tmp/x\n")
    assert not ok and "Invalid command 'LockFile'" in message

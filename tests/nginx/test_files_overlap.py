"""Two <Files> sections that may match one name (issue 12: "never answers 200 where Apache
denies").  Apache merges every section a name matches, in order — a later ``Require``
replaces an earlier one — where nginx gives the name the first section's location.  Before,
``<FilesMatch ^x>`` with a login followed by ``<FilesMatch \\.sql$>`` denying served
``x.sql`` to a user who logged in (Apache: 403), unannounced.  Real Apache against real
nginx."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from passlib.hash import apr_md5_crypt
from typer.testing import CliRunner

from confmig.cli import app
from confmig.model.plan.overlap import anchored_literals, may_overlap
from confmig.model.sections import ConfigSection
from confmig.model.wildcard import fnmatch_regex
from confmig.verify import VerifyRequest, verify
from tests.conftest import SiteMaker
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

LOGIN = {"Authorization": "Basic " + base64.b64encode(b"u:p").decode()}


def _convert(root: Path) -> tuple[int, list[str]]:
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    return result.exit_code, [line for line in result.stderr.splitlines()
                              if "may both match" in line]


def test_a_later_denial_is_never_served_after_an_earlier_login(make_site: SiteMaker,
                                                               apache_binary: object,
                                                               nginx_binary: object) -> None:
    password = apr_md5_crypt.hash("p")  # an apr1 line, as htpasswd -m writes it
    root = make_site({"x.sql": "s\n", "x.txt": "t\n", "y.sql": "y\n",
                      "pw": f"u:{password}\n"})
    (root / ".htaccess").write_text(
        f'<FilesMatch "^x">\nAuthType Basic\nAuthName t\nAuthUserFile {root}/pw\n'
        'Require valid-user\n</FilesMatch>\n<FilesMatch "\\.sql$">\nRequire all denied\n'
        '</FilesMatch>\n')
    code, announced = _convert(root)
    assert code == 1 and len(announced) == 1 and "^x" in announced[0], announced
    assert announced[0].startswith("untranslatable:")
    with both(root) as pair:
        for path in ("/x.sql", "/y.sql"):
            for headers in ({}, LOGIN):
                a, b = pair.ask(path, headers)
                assert a.status == 403, (path, headers, a.status)
                assert b.status == 403, (path, headers, b.status)  # nginx served x.sql before
        a, b = pair.ask("/x.txt", LOGIN)
        assert (a.status, b.status) == (200, 403)  # stricter, announced
        # the denied names spelt otherwise: nginx serves none that Apache does not
        for path in ("/x%2esql", "/%78.sql", "//x.sql", "/./x.sql", "/d/..%2fx.sql",
                     "/x.sql%00", "/X.SQL", "/x.sql/"):
            a, b = pair.ask(path, LOGIN)
            assert not (b.status == 200 and a.status != 200), (path, a.status, b.status)
            assert b.status != 200 or a.body == b.body, path
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0, report.summary()
    assert not [r for r in report.differing if not r.announced], report.summary()


def test_a_later_grant_is_a_note(make_site: SiteMaker, apache_binary: object,
                                 nginx_binary: object) -> None:
    """Debian's ``<FilesMatch ^\\.ht>`` denial, then grav's images granted: Apache serves
    ``/.htx.png``; nginx refuses it — stricter, a note (exit code 0)."""
    root = make_site({".htaccess": '<FilesMatch "(?i)\\.(png|gif)$">\nRequire all granted\n'
                              "</FilesMatch>\n", ".htx.png": "p\n", "a.png": "a\n"})
    code, announced = _convert(root)
    assert code == 0 and len(announced) == 1 and announced[0].startswith("note:"), announced
    with both(root) as pair:
        a, b = pair.ask("/.htx.png")
        assert (a.status, b.status) == (200, 403)
        a, b = pair.ask("/a.png")
        assert a.status == b.status == 200
        a, b = pair.ask("/.htaccess")
        assert a.status == b.status == 403
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0, report.summary()


def test_sections_with_different_endings_stay_exact(make_site: SiteMaker, apache_binary: object,
                                                    nginx_binary: object) -> None:
    """h5bp's font header section and its backup-file denial cannot match one name: no
    announcement, the fonts are served with their header, the backups denied."""
    root = make_site({".htaccess": '<FilesMatch "\\.(eot|otf|tt[cf]|woff2?)$">\n'
                              'Header set Access-Control-Allow-Origin "*"\n</FilesMatch>\n'
                              '<FilesMatch "(^#.*#|\\.(bak|conf|in[ci]|sql|sw[op])|~)$">\n'
                              "Require all denied\n</FilesMatch>\n",
                 "f.woff2": "w\n", "f.sql": "s\n", "f.woff~": "b\n", "f.txt": "t\n"})
    code, announced = _convert(root)
    assert code == 0 and announced == []
    with both(root) as pair:
        a, b = pair.ask("/f.woff2")
        assert a.status == b.status == 200
        assert a.headers.get("Access-Control-Allow-Origin") == "*" \
            == b.headers.get("Access-Control-Allow-Origin")
        for path in ("/f.sql", "/f.woff~"):
            a, b = pair.ask(path)
            assert a.status == b.status == 403, path


def _regex_section(pattern: str) -> ConfigSection:
    from confmig.model.rewrite.regex import Regex

    return ConfigSection("files", f"<FilesMatch {pattern}>", "x", 1, match=pattern,
                         regex=Regex(pattern))


@pytest.mark.parametrize(("one", "other", "overlap"), [
    (r"^\.ht", "^x", False),
    (r"^\.ht", r"(?i)\.(png|gif)$", True),       # .htx.png
    (r"\.(eot|woff2?)$", r"(^#.*#|\.(bak|sql)|~)$", False),
    (r"\.(eot|woff2?)$", r"(^#.*#|\.(bak|sql)|~|2)$", True),  # x.woff2 ends with 2
    (r"\.sql$", r"(?i)\.SQL$", True),
    (r"\.SQL$", r"\.sql$", False),
    (r"\.php$", r"x.*$", True),
    (r"\.ph(p[3-7]?|tml)$", r"\.inc$", True),    # a range: not read, assumed
    (r"(a[)]b)$", r"c$", True),                  # a paren in a class: not read
])
def test_which_sectionsmay_overlap(one: str, other: str, overlap: bool) -> None:
    assert may_overlap(_regex_section(one), _regex_section(other)) is overlap
    assert may_overlap(_regex_section(other), _regex_section(one)) is overlap


def test_wildcards_and_names() -> None:
    star = ConfigSection("files", "<Files *.sql>", "x", 1, match="*.sql",
                         fnmatch=fnmatch_regex("*.sql"))
    assert anchored_literals(fnmatch_regex("*.sql").source) == ("", {".sql"}, False)
    assert not may_overlap(star, _regex_section(r"\.php$"))
    assert may_overlap(star, _regex_section(r"(?i)\.SQL$"))
    a = ConfigSection("files", "<Files a>", "x", 1, match="a")
    b = ConfigSection("files", "<Files b>", "x", 1, match="b")
    assert not may_overlap(a, b) and may_overlap(a, a)


def test_too_many_pairs_deny_rather_than_compare(make_site: SiteMaker) -> None:
    """Pairs are compared up to a bound (each comparison merges a configuration); past it,
    the sections a later access-setting one follows are denied and announced once."""
    text = "".join(f'<Files a{i}>\nRequire all denied\n</Files>\n'
                   f'<FilesMatch "x{i}$">\nRequire all granted\n</FilesMatch>\n'
                   for i in range(1100))
    root = make_site({".htaccess": text, "a1": "a\n"})
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert result.exit_code == 1
    assert "more than 2000 pairs of <Files> sections" in result.stderr
    assert result.stderr.count("may both match") == 0


def test_a_later_plain_denial_after_a_grant_needs_nothing(make_site: SiteMaker,
                                                          apache_binary: object,
                                                          nginx_binary: object) -> None:
    """``<FilesMatch \\.txt$>`` granting, then ``<Files a*>`` denying: Apache denies
    ``a.txt`` (the later ``Require`` wins); nginx tests the denials before a section's own
    location, so nothing is announced for that pair and both answer alike (Debian's
    ``^\\.ht`` before the grant is the note of ``.htx.txt``, which Apache serves)."""
    root = make_site({".htaccess": '<FilesMatch "\\.txt$">\nRequire all granted\n'
                                   '</FilesMatch>\n<Files "a*">\nRequire all denied\n</Files>\n',
                      "a.txt": "a\n", "b.txt": "b\n", "a.css": "c\n"})
    code, announced = _convert(root)
    assert code == 0 and len(announced) == 1, announced
    assert announced[0].startswith("note:") and "<FilesMatch ^\\.ht>:" in announced[0]
    with both(root) as pair:
        for path, status in (("/a.txt", 403), ("/b.txt", 200), ("/a.css", 403)):
            a, b = pair.ask(path)
            assert a.status == b.status == status, (path, a.status, b.status)

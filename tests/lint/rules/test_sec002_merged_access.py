"""SEC002 decides "denied" by the access control Apache merges for the file's path, not by
"some section around it denies":

* a relative ``<Directory site/.git>`` is ``/site/.git/`` (read from ``/``, as Apache does);
* ``<Directory />`` with ``Require all denied`` protects nothing below a more specific
  ``<Directory /var/www/html>`` with ``Require all granted`` (Debian's layout): sections are
  merged shortest path first and a later ``Require`` replaces the earlier one (``AuthMerging
  Off``, the default);
* ``<DirectoryMatch>`` is matched against the whole filename, a ``<Files>`` nested in a
  ``<Directory>`` only counts where that ``<Directory>`` applies, and a deeper ``<Directory>``
  comes after the .htaccess of the levels above it.

A server config alone is asked of the request model over a filesystem holding just the
sample files (``_sent``), and so is one access file alone, its directory taken as the
DocumentRoot, with the access files given (``sent_with``). Both are checked here against the
statuses real Apache 2.4 gives.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from confmig.lint.config import Settings
from confmig.lint.engine import LintResult, lint_paths
from confmig.lint.finding import Finding, Severity
from confmig.lint.rules.sec.exposure import SampleFile
from confmig.lint.rules.sec.sec002_sensitive_files import _sent, sent_with
from confmig.lint.testing import finds
from confmig.lint.testing import write_tree as write
from confmig.load import LoadedConfig, ReadState, load_htaccess
from confmig.servers import ApacheBinary, ApacheServer, http_get, make_docroot
from confmig.syntax import parse_text

DENIED = "<Directory {path}>\n    Require all denied\n</Directory>\n"
GRANTED = "<Directory {path}>\n    Require all granted\n</Directory>\n"

# -- the two cases found in review -------------------------------------------------------------


def test_relative_directory_protects_the_git_directory_of_an_absolute_document_root() -> None:
    # <Directory site/.git> is /site/.git/: .git is denied, the rest is not.
    # Before: the raw "site/.git" never matched /site/.git, so nothing counted as denied and a
    # config denying nothing gets no finding — no finding at all.
    text = "DocumentRoot /site\n" + DENIED.format(path="site/.git")
    [f] = finds("SEC002", text, kind="server")
    assert f.line == 1 and f.severity is Severity.info
    assert f.message == ("this server config denies some sensitive files but not "
                         "/.env, *.bak, *.sql")
    # the same for one access file alone in /site (sent_with: the model over the samples)
    git = SampleFile("/.git/HEAD", "/site/.git/HEAD", "/.git/")
    env = SampleFile("/.env", "/site/.env", "/.env")
    assert sent(text, "/site", [git, env]) == [env]


def test_root_directory_denial_does_not_cover_a_granted_document_root() -> None:
    # Before: <Directory /> Require all denied counted as covering every sample, so all four
    # were "denied" and there was no finding.
    text = ("DocumentRoot /var/www/html\n" + DENIED.format(path="/")
            + GRANTED.format(path="/var/www/html")
            + '<Files ".env">\n    Require all denied\n</Files>\n')
    [f] = finds("SEC002", text, kind="server")
    assert f.message.startswith("this server config denies some sensitive files but not "
                                "/.git/, *.bak, *.sql")
    assert "/.env" not in f.message
    git = SampleFile("/.git/HEAD", "/var/www/html/.git/HEAD", "/.git/")
    env = SampleFile("/.env", "/var/www/html/.env", "/.env")
    assert sent(text, "/var/www/html", [git, env]) == [git]


DEBIAN = (  # apache2.conf's sections, and a DocumentRoot as sites-available/000-default has
    "<Directory />\n    Options FollowSymLinks\n    AllowOverride None\n"
    "    Require all denied\n</Directory>\n"
    "<Directory /usr/share>\n    AllowOverride None\n    Require all granted\n</Directory>\n"
    "<Directory /var/www/>\n    Options Indexes FollowSymLinks\n    AllowOverride None\n"
    "    Require all granted\n</Directory>\n"
    "AccessFileName .htaccess\n"
    '<FilesMatch "^\\.ht">\n    Require all denied\n</FilesMatch>\n'
    "DocumentRoot /var/www/html\n"
)
NO_DUMPS = '<FilesMatch "(^\\.env|\\.(bak|sql))$">\n    Require all denied\n</FilesMatch>\n'


def test_debian_layout_with_no_rule_for_git() -> None:
    # Before: <Directory /> made everything "denied": no finding.
    [f] = finds("SEC002", DEBIAN + NO_DUMPS, kind="server")
    assert f.line == DEBIAN.count("\n") and f.severity is Severity.info
    assert f.message == ("this server config denies some sensitive files but not /.git/ "
                         "(<Files>/<FilesMatch> only see the file name — HEAD, config — "
                         "never the .git directory)")
    # Debian's defaults alone deny none of them: nothing to say (a docroot's .htaccess may)
    assert not finds("SEC002", DEBIAN, kind="server")
    # and once .git is denied too, nothing is left open
    git = '<DirectoryMatch "/\\.git/">\n    Require all denied\n</DirectoryMatch>\n'
    assert not finds("SEC002", DEBIAN + NO_DUMPS + git, kind="server")


def test_a_later_authmerging_and_keeps_the_denial() -> None:
    text = ("DocumentRoot /var/www/html\n" + DENIED.format(path="/var/www/html/.git")
            + "<Directory /var/www/html/.git/>\n    AuthMerging And\n"
              "    Require all granted\n</Directory>\n")
    [f] = finds("SEC002", text, kind="server")
    assert "/.git/" not in f.message and "/.env" in f.message
    # without AuthMerging the later section's Require replaces the denial: nothing denied
    assert not finds("SEC002", text.replace("    AuthMerging And\n", ""), kind="server")


def test_each_virtual_host_serving_the_document_root_is_asked() -> None:
    # The vhost (which inherits the DocumentRoot) refuses /.git; the main server refuses
    # nothing: the vhost's protection has holes.
    vhost = ('<VirtualHost *:80>\n    RewriteEngine On\n    RewriteRule "/\\.git" - [F]\n'
             "</VirtualHost>\n")
    [f] = finds("SEC002", "DocumentRoot /var/www/html\n" + vhost, kind="server")
    assert f.message == ("this server config denies some sensitive files but not "
                         "/.env, *.bak, *.sql")
    # one server denies .git, another everything else: each has holes, both are named
    other = ('<VirtualHost *:8080>\n    RedirectMatch 404 "\\.(env|bak|sql)$"\n'
             "</VirtualHost>\n")
    [f] = finds("SEC002", "DocumentRoot /var/www/html\n" + vhost + other, kind="server")
    assert f.message.startswith("this server config denies some sensitive files but not "
                                "/.git/, /.env, *.bak, *.sql")


def test_docroot_linted_with_its_server_config(tmp_path: Path) -> None:
    # The docroot's files are asked of the request model with the server's sections.
    # Before: <Directory /> denied them all, and no finding.
    write(tmp_path / "www", {".git/HEAD": "ref\n", ".env": "A=1\n", "index.html": "x"})
    config = tmp_path / "httpd.conf"
    config.write_text(f"ServerRoot {tmp_path}\nDocumentRoot {tmp_path}/www\n"
                      + DENIED.format(path="/") + GRANTED.format(path=f"{tmp_path}/www"))
    result = lint_paths([tmp_path / "www"], config=config, use_cache=False)
    [f] = [f for f in result.findings if f.code == "SEC002"]
    assert f.message == "/.git/, /.env can be downloaded: nothing in the configuration denies them"


# -- how sections apply: each verdict is what Apache 2.4 answers (test below) ------------------

# A directory of the docroot per case (its server sections use {root}), the file requested,
# and Apache's status.  ROOT_SECTION comes first: the docroot's own <Directory>.
ROOT_SECTION = ('<Directory "{root}">\n    AllowOverride AuthConfig\n    Require all granted\n'
                "</Directory>\n")
CASES: dict[str, tuple[str, str, int]] = {
    # the server's <Directory /> denies, the docroot's grants
    "root": ("", ".git/HEAD", 200),
    # <DirectoryMatch> sees the whole filename: "\.git$" misses .git/HEAD, "HEAD$" does not
    "dm_dir": ('<DirectoryMatch "/dm_dir/\\.git$">\n    Require all denied\n</DirectoryMatch>\n',
               ".git/HEAD", 200),
    "dm_file": ('<DirectoryMatch "/dm_file/\\.git/HEAD$">\n    Require all denied\n'
                "</DirectoryMatch>\n", ".git/HEAD", 403),
    # a deeper <Directory> granting replaces a shallower one's denial…
    "deeper": (DENIED.format(path='"{root}/deeper"')
               + GRANTED.format(path='"{root}/deeper/.git"'), ".git/HEAD", 200),
    # …unless it says AuthMerging And
    "and": (DENIED.format(path='"{root}/and"') + '<Directory "{root}/and/.git">\n'
            "    AuthMerging And\n    Require all granted\n</Directory>\n", ".git/HEAD", 403),
    # Order/Allow/Deny (no merger, Satisfy All) still refuses under a granting Require
    "compat": ('<Directory "{root}/compat">\n    Order allow,deny\n</Directory>\n'
               + GRANTED.format(path='"{root}/compat/.git"'), ".git/HEAD", 403),
    # a <Files> inside a <Directory> that does not apply
    "nested": ('<Directory "/nonexistent">\n    <Files ".env">\n        Require all denied\n'
               "    </Files>\n</Directory>\n", ".env", 200),
    "nested_here": ('<Directory "{root}/nested_here/.git">\n    <Files "HEAD">\n'
                    "        Require all denied\n    </Files>\n</Directory>\n", ".git/HEAD", 403),
    # <Location> is merged last
    "location": ('<Location "/location/.git">\n    Require all denied\n</Location>\n',
                 ".git/HEAD", 403),
    # a .htaccess denies; a deeper <Directory> (merged after it) grants again
    "htaccess": (GRANTED.format(path='"{root}/htaccess/.git"'), ".git/HEAD", 200),
}
HTACCESS = {"htaccess/.htaccess": "Require all denied\n"}


def server_text(root: str) -> str:
    return (f'DocumentRoot "{root}"\n' + ROOT_SECTION
            + "".join(text for text, _, _ in CASES.values())).replace("{root}", root)


def target(root: str, case: str) -> SampleFile:
    rel = f"{case}/{CASES[case][1]}"
    return SampleFile(f"/{rel}", f"{root}/{rel}", f"/{rel}")


def loaded(text: str) -> LoadedConfig:
    config = parse_text(text, "httpd.conf")
    out = LoadedConfig(main="httpd.conf", nodes=list(config.nodes), state=ReadState())
    out.files["httpd.conf"] = config
    return out


def access_files(root: str, state: ReadState) -> dict[str, LoadedConfig]:
    """The access files of :data:`HTACCESS` below ``root``, read as lint reads them."""
    return {f"{root}/{rel}": load_htaccess(f"{root}/{rel}", state, data=text.encode())
            for rel, text in HTACCESS.items()}


def sent(text: str, root: str, targets: list[SampleFile],
         access: dict[str, LoadedConfig] | None = None) -> list[SampleFile]:
    """sent_with: the server config ``text`` with ``root`` as the DocumentRoot."""
    server = loaded(text)
    return sent_with(root, targets, access or {}, server, server.state)


DOCROOT = "/srv/www"


@pytest.mark.parametrize("case", sorted(CASES))
def test_access_files_given_merge_as_apache(case: str) -> None:
    """sent_with (one access file alone: the model over the samples and the access files
    given; .htaccess files included)."""
    text = DENIED.format(path="/") + server_text(DOCROOT)
    t = target(DOCROOT, case)
    access = access_files(DOCROOT, loaded(text).state)
    assert sent(text, DOCROOT, [t], access) == ([t] if CASES[case][2] == 200 else [])


def test_an_access_file_given_is_read() -> None:
    # htaccess/.htaccess denies what no <Directory> grants again (403 on Apache, below)
    text = DENIED.format(path="/") + server_text(DOCROOT)
    t = SampleFile("/htaccess/notes.txt", f"{DOCROOT}/htaccess/notes.txt", "/htaccess/notes.txt")
    assert sent(text, DOCROOT, [t], access_files(DOCROOT, ReadState())) == []
    assert sent(text, DOCROOT, [t]) == [t]


@pytest.mark.parametrize("case", sorted(set(CASES) - {"htaccess"}))
def test_request_model_over_the_sample_files(case: str) -> None:
    """_sent (a server config alone: no .htaccess), whether or not the files exist here."""
    text = DENIED.format(path="/") + server_text(DOCROOT)
    t = target(DOCROOT, case)
    assert _sent(loaded(text), [t]) == [[t] if CASES[case][2] == 200 else []]  # main server


@pytest.mark.apache
def test_apache_agrees(apache_binary: ApacheBinary) -> None:
    """The statuses above, the finding on the config Apache runs (its template has Debian's
    ``<Directory />`` with ``Require all denied``), and the docroot linted with it."""
    files = {f"{case}/{rel}": "secret\n" for case, (_, rel, _) in CASES.items()}
    files.update({".git/HEAD": "ref\n", ".env": "A=1\n", "x.bak": "dump\n",
                  "htaccess/notes.txt": "x\n", **HTACCESS})
    root = make_docroot(prefix="confmig-sec002-")
    try:
        write(root, files)
        site = server_text(str(root)) + '<Files "*.bak">\n    Require all denied\n</Files>\n'
        with ApacheServer(root, server_config=site, binary=apache_binary) as server:
            statuses = {case: http_get(server.base_url, target("", case).url).status
                        for case in CASES}
            assert statuses == {case: status for case, (_, _, status) in CASES.items()}
            top = {p: http_get(server.base_url, p).status
                   for p in ("/.git/HEAD", "/.env", "/x.bak", "/htaccess/notes.txt")}
            assert top == {"/.git/HEAD": 200, "/.env": 200, "/x.bak": 403,
                           "/htaccess/notes.txt": 403}
            # the server config alone: *.bak denied, .git and .env not — as Apache says
            [f] = sec002(lint_paths([server.conf_path], settings=Settings(cache=False)))
            assert f.message.startswith("this server config denies some sensitive files but "
                                        "not /.git/, /.env, *.sql")
            # the docroot with that config
            [g] = sec002(lint_paths([root], server.conf_path, settings=Settings(cache=False)))
            assert g.message.startswith("/.git/, /.env, ") and "x.bak" not in g.message
    finally:
        shutil.rmtree(root, ignore_errors=True)


def sec002(result: LintResult) -> list[Finding]:
    return [f for f in result.findings if f.code == "SEC002"]

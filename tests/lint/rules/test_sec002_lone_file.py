"""SEC002 on one access file alone (``confmig lint site/.htaccess``, a pre-commit hook's case):
the request model decides which of the usual suspects Apache would send, the file's directory
taken as the DocumentRoot, with the server config lint has (or the one it assumes), over a
filesystem holding just the sample files and that file as lint read it
(:func:`~confmig.lint.rules.sec.sec002_sensitive_files.sent_with`).

Before, a syntactic walk of its own decided (exposure.protected): it credited a refusing
RewriteRule that an earlier ``[L]``/``[END]``/``[S]`` never lets run, or one with no
``RewriteEngine On``, and a file Apache answers 500 for; it never credited ``<If>``,
``Require not env``, a condition on something it did not evaluate, a front controller or a
redirect elsewhere.  Each case's answer is what real Apache 2.4 does (the last test).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from confmig.lint.config import Settings
from confmig.lint.context import make_environment
from confmig.lint.engine import lint_paths
from confmig.lint.finding import Severity
from confmig.lint.rules.sec.exposure import describe, samples
from confmig.lint.rules.sec.sec002_sensitive_files import sent_with
from confmig.lint.testing import finds
from confmig.lint.testing import write_tree as write
from confmig.load import load_config, load_htaccess
from confmig.servers import ApacheBinary, ApacheServer, http_get, make_docroot
from tests.corpus import CORPUS, needs_corpus

GIT, ENV, BAK, SQL = "/.git/HEAD", "/.env", "/wp-config.php.bak", "/backup.sql"
ALL = frozenset({GIT, ENV, BAK, SQL})

# name → (the access file, the samples Apache sends with it as the DocumentRoot's only one)
CASES: dict[str, tuple[str, frozenset[str]]] = {
    # <Files> sees the basename: .env is denied, the rest is not
    "files_env": ('<Files ".env">\n Require all denied\n</Files>\n', ALL - {ENV}),
    "compat": ('<FilesMatch "\\.(bak|sql)$">\n Order allow,deny\n Deny from all\n'
               "</FilesMatch>\n", frozenset({GIT, ENV})),
    "satisfy_any": ('<Files ".env">\n Order deny,allow\n Deny from all\n'
                    " Require all granted\n Satisfy any\n</Files>\n", ALL),
    "later_grant": ('<Files ".env">\n Require all denied\n</Files>\n'
                    '<FilesMatch "env">\n Require all granted\n</FilesMatch>\n', ALL),
    "authmerging": ('<Files ".env">\n Require all denied\n</Files>\n<Files ".env">\n'
                    " AuthMerging And\n Require all granted\n</Files>\n", ALL - {ENV}),
    "redirectmatch": ('RedirectMatch 404 "\\.(bak|sql)$"\n', frozenset({GIT, ENV})),
    "cond_f": ('RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} -f\n'
               'RewriteRule "\\.(bak|sql)$" - [F]\n', frozenset({GIT, ENV})),
    "cond_uri": ('RewriteEngine On\nRewriteCond %{REQUEST_URI} "\\.git/"\n'
                 "RewriteRule ^ - [F]\n", ALL - {GIT}),
    # credited now, not before: <If>/<Else>, an environment variable, a condition on
    # HTTPS/HTTP_HOST/QUERY_STRING (as a plain GET without a query sees it)
    "if_git": ('<If "%{REQUEST_URI} =~ m#/\\.git/#">\n Require all denied\n</If>\n',
               ALL - {GIT}),
    "if_else": ('<If "%{REQUEST_URI} =~ /\\.env$/">\n Require all denied\n</If>\n'
                "<Else>\n Require all granted\n</Else>\n", ALL - {ENV}),
    "setenvif": ('SetEnvIf Request_URI "/\\.git" block\n<RequireAll>\n'
                 " Require all granted\n Require not env block\n</RequireAll>\n", ALL - {GIT}),
    "https_off": ('RewriteEngine On\nRewriteCond %{HTTPS} off\n'
                  'RewriteRule "(^|/)\\.git" - [F]\n', ALL - {GIT}),
    "host_neg": ('RewriteEngine On\nRewriteCond %{HTTP_HOST} !^www\\.\n'
                 'RewriteRule "(^|/)\\.git" - [F]\n', ALL - {GIT}),
    "cond_qs": ('RewriteEngine On\nRewriteCond %{QUERY_STRING} ^$\n'
                'RewriteRule "\\.env$" - [F]\n', ALL - {ENV}),
    # a front controller or a redirect elsewhere: the file's content is not sent
    "frontctl": ('RewriteEngine On\nRewriteRule "(^|/)\\." index.php [L]\n',
                 frozenset({BAK, SQL})),
    "redirect301": ("Redirect 301 /.env http://example.com/\n", ALL - {ENV}),
    # credited before, wrongly: the [F] rule never runs for .env, or not at all
    "l_flag": ('RewriteEngine On\nRewriteRule "\\.env$" - [L]\n'
               'RewriteRule "\\.(env|bak)$" - [F]\n', ALL - {BAK}),
    "end_flag": ('RewriteEngine On\nRewriteRule "\\.env$" - [END]\n'
                 'RewriteRule "\\.(env|bak)$" - [F]\n', ALL - {BAK}),
    "skip": ('RewriteEngine On\nRewriteRule "\\.env$" - [S=1]\n'
             'RewriteRule "\\.(env|bak)$" - [F]\n', ALL - {BAK}),
    "no_engine": ('RewriteRule "(^|/)\\.git" - [F]\n', ALL),
    # a directive .htaccess may not hold: 500 for everything
    "not_allowed": ('<Files ".env">\n Require all denied\n</Files>\nServerName foo\n',
                    frozenset()),
}
KIRBY = CORPUS / "kirby" / ".htaccess"  # dot files go to its front controller
KIRBY_SENT = frozenset({BAK, SQL})


def model_sent(text: str, root: str = "/srv/site") -> frozenset[str]:
    """The samples the request model sends for ``text`` as ``root``'s only access file,
    with the server config lint assumes."""
    state = make_environment(None, set()).state
    path = f"{root}/.htaccess"
    loaded = load_htaccess(path, state, data=text.encode())
    return frozenset(t.url for t in sent_with(root, samples(root), {path: loaded}, None, state))


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_model_decides_for_one_file(case: str) -> None:
    text, sent = CASES[case]
    assert model_sent(text) == sent


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_finding_names_what_is_sent_when_some_are_not(case: str) -> None:
    text, sent = CASES[case]
    open_ = [t for t in samples("/") if t.url in sent]
    found = finds("SEC002", text)
    if 0 < len(sent) < len(ALL):
        [f] = found
        assert f.severity is Severity.info
        assert f.message.startswith(f"this file denies some sensitive files but not "
                                    f"{describe(open_)}")
    else:  # none or all open: a lone file that denies nothing may be protected elsewhere
        assert not found


@needs_corpus
def test_kirby_front_controller() -> None:
    assert model_sent(KIRBY.read_text()) == KIRBY_SENT
    [f] = finds("SEC002", KIRBY.read_text())
    assert f.message == "this file denies some sensitive files but not *.bak, *.sql"


def test_the_server_config_is_asked_with_the_file(tmp_path: Path) -> None:
    """With a server config, its sections and AllowOverride apply to the file's directory."""
    text = CASES["files_env"][0]
    htaccess = "/srv/site/.htaccess"
    config = tmp_path / "httpd.conf"

    def sent(server_text: str) -> frozenset[str]:
        config.write_text(server_text)
        server = load_config(config)
        loaded = load_htaccess(htaccess, server.state, data=text.encode())
        return frozenset(t.url for t in sent_with("/srv/site", samples("/srv/site"),
                                                  {htaccess: loaded}, server, server.state))

    grant = "<Directory /srv/site>\n AllowOverride {}\n Require all granted\n</Directory>\n"
    assert sent(grant.format("All")) == ALL - {ENV}
    # AllowOverride None: Apache never opens the file; the server's <FilesMatch> still counts
    assert sent(grant.format("None")) == ALL
    assert sent(grant.format("None") + '<FilesMatch "\\.(bak|sql)$">\n Require all denied\n'
                "</FilesMatch>\n") == {GIT, ENV}
    # the server's <Directory /> denial, with nothing granting the directory: nothing is sent
    assert sent("<Directory />\n Require all denied\n</Directory>\n") == frozenset()


def test_no_other_file_of_the_tree_is_looked_at(tmp_path: Path) -> None:
    """The samples exist for the model only: a real .git/.htaccess next to the file (which
    lint was not given) changes nothing, and the disk's files are never opened nor stat'ed."""
    site = tmp_path / "site"
    write(site, {".htaccess": CASES["files_env"][0], ".git/HEAD": "ref\n",
                 ".git/.htaccess": "Require all denied\n", ".env": "A=1\n",
                 "wp-config.php.bak": "x", "backup.sql": "x"})
    [f] = [f for f in lint_paths([site / ".htaccess"], settings=Settings(cache=False)).findings
           if f.code == "SEC002"]
    assert f.message.startswith("this file denies some sensitive files but not "
                                "/.git/, *.bak, *.sql")
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed: the system calls cannot be listed")
    trace = tmp_path / "trace.txt"
    run = subprocess.run([strace, "-f", "-qq", "-e", "trace=%file,%desc", "-o", str(trace),
                          sys.executable, "-m", "confmig", "lint", "--no-cache", "--no-config",
                          str(site / ".htaccess")],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[3])})
    if run.returncode != 1 and "ptrace" in run.stderr:
        pytest.skip(f"strace cannot trace here: {run.stderr.strip()[:200]}")
    assert run.returncode == 1 and "SEC002" in run.stdout, run.stderr[-2000:]
    calls = trace.read_text()
    assert f'"{site}/.htaccess"' in calls  # the trace is the run's
    for name in (".git", ".env", "wp-config.php.bak", "backup.sql"):
        assert f'"{site}/{name}' not in calls, name


# -- real Apache: each case's directory is the DocumentRoot of a name-based virtual host ---


def case_texts() -> dict[str, tuple[str, frozenset[str]]]:
    cases = dict(CASES)
    if KIRBY.is_file():
        cases["kirby"] = (KIRBY.read_text(), KIRBY_SENT)
    return cases


@pytest.mark.apache
def test_apache_sends_what_the_model_says(apache_binary: ApacheBinary) -> None:
    cases = case_texts()
    root = make_docroot(prefix="confmig-sec002-lone-")
    try:
        files: dict[str, str] = {}
        for case, (text, _) in cases.items():
            files[f"{case}/.htaccess"] = text
            files.update({f"{case}{url}": f"{case} {url}\n" for url in ALL})
        write(root, files)
        # The server config lint assumes for a docroot alone (confmig.model.target's
        # default_server_text): <Directory /> denied, the docroot's own AllowOverride All.
        site = (f'<Directory "{root}">\n    Options Indexes FollowSymLinks\n'
                "    AllowOverride All\n    Require all granted\n</Directory>\n"
                + "".join(f"<VirtualHost *:${{CONFMIG_PORT}}>\n    ServerName {case}.test\n"
                          f'    DocumentRoot "{root}/{case}"\n</VirtualHost>\n'
                          for case in cases))
        with ApacheServer(root, server_config=site, binary=apache_binary) as server:
            for case, (text, sent) in cases.items():
                got = set()
                for url in ALL:
                    resp = http_get(server.base_url, url, {"Host": f"{case}.test"})
                    if resp.status == 200 and resp.text == f"{case} {url}\n":
                        got.add(url)
                assert (case, got) == (case, set(sent))
                assert model_sent(text, f"{root}/{case}") == sent
    finally:
        shutil.rmtree(root, ignore_errors=True)

"""A ``$N`` with a bad %-escape (``/x/%25``: ``$1`` is ``%``) in a rewrite that does not end
the rules: a ``[C]`` chain, an ``[N]`` round, a rule without ``[L]``.  Apache's per-directory
rules rewrite the path as text and parse it (400 for a bad %-escape) and %-decode it only at
the internal redirect made once the rules are over, so the 400 belongs to the path the last
rewrite made: a chain whose later link fails or a later ``- [L]`` keeps it; a later rewrite
that replaces the path erases it (``/files/ab`` served); a later ``[F]`` answers first; an
``[N]`` round that no longer matches ends with it.  A ``$N`` holding a %-escape (``%2541``)
is decoded again there too: the path the rules end with brings the note's 403 on nginx,
one a later rewrite replaced does not.  nginx answered 404 for each 400 (it looks for a
file named ``%``) and the note's 403 at the rule itself before; real Apache 2.4 and real
nginx, request by request."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import convert_docroot
from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify
from confmig.verify.probes import ProbeSite, generate
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

#: One directory each (x/, y/, z/ exist in it: no PATH_INFO, which the rules' own
#: announced 403 is about).
SITES = {
    "a": "RewriteRule ^x/(.*)$ y/$1 [C]\nRewriteRule ^zzz$ -\n",  # a later link fails
    "c": "RewriteRule ^x/(.*)$ y/$1 [C]\nRewriteRule ^y/(.*)$ z/$1\n",  # it copies $1 on
    "f": "RewriteRule ^x/(.*)$ y/$1\nRewriteRule ^y/ /files/ab [L]\n",  # replaced
    "n": "RewriteRule ^x/a(.*)$ x/$1 [N]\n",  # [N] until it no longer matches
    "m": "RewriteRule ^x/(.*)$ y/$1 [N]\nRewriteRule ^y/ /files/ab [L]\n",  # [N], replaced
    "h": "RewriteRule ^x/(.*)$ y/$1\nRewriteRule ^y/ - [L]\n",  # a later - [L]
    "j": "RewriteRule ^x/(.*)$ y/$1\nRewriteRule ^y/ - [F]\n",  # a later [F]
    "o": "RewriteRule ^x/(.*)$ y/$1 [C]\nRewriteRule ^y/(.*)$ /files/ab\n",  # chain, replaced
    "q": "RewriteRule ^x/(.*)$ y/$1 [S=1]\nRewriteRule ^y/ /files/ab [L]\n",  # [S] past it
    "l": "RewriteRule ^x/(.*)$ y/$1 [C]\nRewriteRule ^y/(.*)$ z/$1 [L]\n",
    "p": ("RewriteRule ^x/(.*)$ y/$1 [C]\nRewriteRule ^nope$ z [L]\n"
          "RewriteRule ^y/ /files/ab [L]\n"),
}
#: Apache's answer to /<site>/x/<tail> for each tail (200: the body is the file's).  With
#: %2541 the path the rules end with holds %41, which Apache decodes again: nginx answers
#: the note's 403 there (True), and must answer as Apache where a later rewrite replaced it.
TAILS = ("%25", "a%25zz", "ok", "%2541")
APACHE = {
    "a": (400, 400, 200, 404), "c": (400, 400, 200, 404), "f": (200, 200, 200, 200),
    "n": (404, 400, 404, 404), "m": (200, 200, 200, 200), "h": (400, 400, 200, 404),
    "j": (403, 403, 403, 403), "o": (200, 200, 200, 200),
    # the internal redirect to /q/y/…: the rules again, ^y/ serves /files/ab
    "q": (400, 400, 200, 200), "l": (400, 400, 200, 404), "p": (200, 200, 200, 200),
}
NOTED = {"a", "c", "h", "l", "q"}  # %2541: the path the rules end with holds %41


def _files() -> dict[str, str]:
    files = {"files/ab": "plain\n"}
    for name, rules in SITES.items():
        files[f"{name}/.htaccess"] = "RewriteEngine On\n" + rules
        for sub in "xyz":
            files[f"{name}/{sub}/keep"] = "k\n"
        files[f"{name}/y/ok"] = "y ok\n"
        files[f"{name}/z/ok"] = "z ok\n"
    return files


@pytest.fixture
def root() -> Iterator[Path]:
    made = make_docroot(prefix="confmig-ngchain-", files=_files())
    yield made
    shutil.rmtree(made, ignore_errors=True)


def test_nginx_answers_apaches_400_where_the_rules_end(root: Path, apache_binary: object,
                                                      nginx_binary: object) -> None:
    with both(root) as pair:
        for name, statuses in APACHE.items():
            for tail, status in zip(TAILS, statuses, strict=True):
                path = f"/{name}/x/{tail}"
                a, b = pair.ask(path)
                where = (path, a.status, a.body[:20], b.status, b.body[:20])
                assert a.status == status, where
                if tail == "%2541" and name in NOTED and b.status == 403:
                    continue  # the note's denial: Apache decodes %41 again
                assert b.status == a.status, where
                if a.status == 200:
                    assert b.body == a.body, where


def test_only_the_rules_end_answers(root: Path) -> None:
    """The 400 is recorded where a rewrite without [L] applies and answered where the rules
    end — after the last rule and before a ``- [L]`` — not at the rewrite itself."""
    text = convert_docroot(root).output.text
    assert text.count("set $confmig_bad 400;") >= len(SITES) - 1, text
    assert "if ($confmig_bad = 400) { return 400; }" in text
    assert '= "1:400") { return 400; }' in text  # h's - [L]


def test_verify_sends_the_bad_escape_to_chains_and_finds_no_difference(
        root: Path, apache_binary: object, nginx_binary: object) -> None:
    paths = {p.path for p in generate([ProbeSite(root, str(root))], [], 600).probes}
    # the first rule of each site: a chain, an [N] round, no [L] (sent to rules that end
    # the rules only, before)
    for name in ("a", "c", "f", "h", "m", "o", "q", "l", "p"):
        assert any(p.startswith(f"/{name}/x/") and p.endswith("/%25") for p in paths), name
    assert any(p.startswith("/n/x/a") and p.endswith("%25") for p in paths), sorted(paths)
    report = verify(VerifyRequest(target="nginx", docroot=root, max_requests=600))
    assert not report.unannounced, report.summary()
    assert not report.truncated, report.summary()
    assert report.statuses[400] >= 5, report.statuses  # (one, with the old probes)

"""RewriteRule flags that change the flow of the rules — ``[C]`` chains, ``[S=n]`` skips and
``[N]`` rounds — translated for nginx (``$confmig_go`` and rounds written out), checked with
``verify --to nginx`` and direct requests on real Apache and real nginx.  Before, each was
denied (403) and announced."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import convert_docroot
from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify
from confmig.verify.nginx import prepare
from tests.nginx.servers import Pair, both
from tests.verify.sites import MODULES

pytestmark = [pytest.mark.apache]

Site = Callable[[dict[str, str]], Path]


@pytest.fixture
def site() -> Iterator[Site]:
    made: list[Path] = []

    def build(files: dict[str, str]) -> Path:
        root = make_docroot(prefix="confmig-nf-", files=files)
        made.append(root)
        return root

    yield build
    for root in made:
        shutil.rmtree(root, ignore_errors=True)


PAGES = {"t1.html": "one\n", "t2.html": "two\n", "t3.html": "three\n"}


def _same(root: Path, requests: list[tuple[str, dict[str, str], int]]) -> None:
    """Apache and nginx answer each request with the status given and the same body."""
    with both(root) as pair:
        for path, headers, status in requests:
            a, b = pair.ask(path, headers)
            assert (a.status, b.status) == (status, status), (path, headers, a.status, b.status)
            if status == 200:
                assert a.body == b.body, (path, a.body, b.body)


#: What a ruleset with a rewrite without [L] followed by more rules announces.
PATH_INFO = "a rewrite without [L] followed by more rules"


def _verified(root: Path, *announced: str) -> None:
    """verify --to nginx passes; a difference is nginx refusing where it announced it would
    (a URL with PATH_INFO after a rewrite without [L]), and nothing else is announced."""
    report = verify(VerifyRequest(target="nginx", docroot=root, max_requests=600))
    assert report.exit_code == 0, report.summary()
    for result in report.differing:
        assert result.announced and result.converted.status in (403, 500), report.summary()
    for note in report.conversion.untranslatable:
        assert note.reason.startswith(announced) if announced else False, note


CHAIN = ("RewriteEngine On\n"
         # a condition on the first rule of a chain decides for the whole chain
         "RewriteCond %{QUERY_STRING} ^v=1$\n"
         "RewriteRule ^a$ - [C]\n"
         "RewriteRule ^a$ t1.html [L]\n"
         "RewriteRule ^a$ t2.html [L]\n"
         # a chain of rewrites: the second sees the first one's result
         "RewriteRule ^c/(.*)$ d/$1 [C]\n"
         "RewriteRule ^d/(\\w+)\\.htm$ t$1.html [L]\n"
         # three links: the middle one fails, the third is skipped with it
         "RewriteRule ^x(\\d)$ - [C]\n"
         "RewriteRule ^x1$ - [C]\n"
         "RewriteRule ^x t3.html [L]\n")


def test_chains(site: Site, apache_binary: object, nginx_binary: object) -> None:
    root = site({".htaccess": CHAIN, "c/k.txt": "", "d/k.txt": "", **PAGES})
    _same(root, [("/a?v=1", {}, 200), ("/a", {}, 200), ("/a?v=2", {}, 200),
                 ("/c/1.htm", {}, 200), ("/c/2.htm", {}, 200), ("/c/3", {}, 404),
                 ("/d/1.htm", {}, 404), ("/x1", {}, 200), ("/x2", {}, 404), ("/x", {}, 404)])
    with both(root) as pair:
        assert pair.ask("/a?v=1")[1].body == b"one\n"
        assert pair.ask("/a")[1].body == b"two\n"
        assert pair.ask("/c/2.htm")[1].body == b"two\n"
        # c/sub is missing: Apache's second rule sees d/sub/1.htm/1.htm and fails (404);
        # nginx cannot know the PATH_INFO and refuses (announced)
        assert [r.status for r in pair.ask("/c/sub/1.htm")] == [404, 403]
    _verified(root, PATH_INFO)


SKIP = ("RewriteEngine On\n"
        # if-then-else: skip the "then" rule when the host starts with www.
        "RewriteCond %{HTTP_HOST} ^www\\.\n"
        "RewriteRule ^e$ - [S=1]\n"
        "RewriteRule ^e$ t1.html [L]\n"
        "RewriteRule ^e$ t2.html [L]\n"
        # a skip over two rules, one of them a rewrite without [L]
        "RewriteRule ^s/(\\d)$ - [S=2]\n"
        "RewriteRule ^s/ t3.html\n"
        "RewriteRule ^s/ t1.html [L]\n"
        "RewriteRule ^s/(\\d)$ t$1.html [L]\n"
        # a skip past the last rule
        "RewriteRule ^z$ - [S=5]\n"
        "RewriteRule ^z$ t1.html [L]\n")


def test_skips(site: Site, apache_binary: object, nginx_binary: object) -> None:
    root = site({".htaccess": SKIP, "s/k.txt": "", **PAGES})
    _same(root, [("/e", {"Host": "www.example.com"}, 200), ("/e", {}, 200),
                 ("/s/2", {}, 200), ("/s/x", {}, 200), ("/z", {}, 404)])
    with both(root) as pair:
        assert pair.ask("/e", {"Host": "www.example.com"})[1].body == b"two\n"
        assert pair.ask("/e")[1].body == b"one\n"
        assert pair.ask("/s/2")[1].body == b"two\n"
        assert pair.ask("/s/x")[1].body == b"three\n"  # ^s/ t1.html sees t3.html
    _verified(root, PATH_INFO)


NEXT = ("RewriteEngine On\n"
        # replace each _ by - (one more round each), then serve the result
        "RewriteRule ^n/(.*)_(.*)$ n/$1-$2 [N]\n"
        # at most 2 rounds: the third answers 500 in Apache
        "RewriteRule ^m/(.*)_(.*)$ m/$1-$2 [N=3]\n"
        # [N=1]: no second round at all
        "RewriteRule ^o/(.*)_(.*)$ o/$1-$2 [N=1]\n")


def test_next_rounds(site: Site, apache_binary: object, nginx_binary: object) -> None:
    root = site({".htaccess": NEXT, "n/a-b-c.html": "abc\n", "n/a.html": "a\n",
                 "m/a-b.html": "ab\n", "m/a-b-c.html": "abc\n", "o/a-b.html": "ab\n"})
    _same(root, [("/n/a_b_c.html", {}, 200), ("/n/a-b_c.html", {}, 200),
                 ("/n/a.html", {}, 200), ("/n/x_y", {}, 404),
                 ("/m/a_b.html", {}, 200), ("/m/a_b_c.html", {}, 500),
                 ("/o/a_b.html", {}, 500), ("/o/a-b.html", {}, 200)])
    _verified(root, PATH_INFO, "[N]: the rules are written out for 10 rounds")
    # [N] without a limit: announced (nginx's rounds are written out: 10 here, not 32000)
    notes = [n for n in convert_docroot(root).result.untranslatable
             if n.reason.startswith("[N]")]
    assert [n.line for n in notes] == [2], notes


def test_next_beyond_the_written_rounds_is_refused_never_served(
        site: Site, apache_binary: object, nginx_binary: object) -> None:
    """Where Apache refuses (500: [N]'s 32000 rounds used up) nginx refuses too; where Apache
    needs more rounds than nginx's output has, nginx refuses (announced), never serves
    something else."""
    root = site({".htaccess": "RewriteEngine On\nRewriteRule ^loop$ loop [N]\n"
                              "RewriteRule ^n/(.*)_(.*)$ n/$1-$2 [N]\n",
                 "n/a-b-c-d-e-f-g-h-i-j-k-l.html": "long\n", "loop": "x\n"})
    with both(root) as pair:
        a, b = pair.ask("/loop")
        assert (a.status, b.status) == (500, 500)
        a, b = pair.ask("/n/a_b_c_d_e_f_g_h_i_j_k_l.html")
        assert (a.status, b.status) == (200, 500)
    assert "[N]: the rules are written out for 10 rounds" in "".join(
        n.reason for n in convert_docroot(root).result.untranslatable)


TYPES = ("RewriteEngine On\n"
         # Drupal's form: a type for precompressed files, the rules go on
         "RewriteRule \\.css\\.gz$ - [T=text/css]\n"
         "RewriteRule \\.js\\.gz$ - [T=text/javascript,L]\n"
         # a later [L] rule of the same pass wins
         "RewriteRule ^two\\.data$ - [T=text/plain]\n"
         "RewriteRule ^two\\.data$ - [T=image/png,L]\n"
         # a rewrite afterwards: Apache's internal redirect drops the type
         "RewriteRule ^lost\\.txt$ - [T=image/png]\n"
         "RewriteRule ^lost\\.txt$ other.txt [L]\n"
         # a directory with its slash
         "RewriteRule ^typed/$ - [T=text/plain]\n")


def test_forced_types(site: Site, apache_binary: object, nginx_binary: object) -> None:
    root = site({".htaccess": TYPES, "a.css.gz": "css\n", "b.js.gz": "js\n",
                 "two.data": "2\n", "lost.txt": "l\n", "other.txt": "o\n", "x.txt": "x\n",
                 "d.css.gz/index.html": "dir\n", "typed/index.html": "typed\n"})
    with both(root) as pair:
        for path, status, ctype in [("/a.css.gz", 200, "text/css"),
                                    ("/b.js.gz", 200, "text/javascript"),
                                    ("/two.data", 200, "image/png"),
                                    ("/lost.txt", 200, "text/plain"),
                                    ("/x.txt", 200, "text/plain"),
                                    ("/d.css.gz/", 200, "text/html"),
                                    ("/missing.css.gz", 404, None), ("/d.css.gz", 301, None),
                                    ("/typed", 301, None)]:
            a, b = pair.ask(path)
            assert (a.status, b.status) == (status, status), (path, a.status, b.status)
            if ctype:
                assert a.headers.get("Content-Type", "").split(";")[0] == ctype, path
                assert a.headers.get("Content-Type") == b.headers.get("Content-Type"), path
                assert a.body == b.body, path
        # a directory asked for with its slash: denied where Apache types its index (announced)
        a, b = pair.ask("/typed/")
        assert (a.status, a.headers.get("Content-Type", "").split(";")[0], b.status) == \
            (200, "text/plain", 403)
    _verified(root, TYPE_DIRECTORY)


TYPE_DIRECTORY = "[T] on a directory asked for with its slash"


def test_internal_redirect_loops_end_in_500_on_both(site: Site, apache_binary: object,
                                                    nginx_binary: object) -> None:
    """[L] restarts the rules after Apache's internal redirect; nginx's ``rewrite … last``
    searches the locations again.  A loop ends with 500 on both: Apache after
    LimitInternalRecursion (10) redirects, nginx after its 10 URI changes ("rewrite or
    internal redirection cycle"); a loop that ends before the limit is served by both."""
    root = site({".htaccess": "RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
                              "RewriteRule ^a(.*)$ aa$1 [L]\n"
                              "RewriteRule ^ping$ sub/pong [L]\n",
                 "sub/.htaccess": "RewriteEngine On\nRewriteRule ^pong$ /ping [L]\n",
                 "aaaaaaaaa.html": "nine\n"})
    _same(root, [("/a", {}, 500), ("/ping", {}, 500), ("/aaaaaaa.html", {}, 200)])
    with both(root) as pair:
        assert pair.ask("/aaaaaaa.html")[1].body == b"nine\n"


MAP_LINES = ("# pages: key value (the first line of a key wins)\n"
             "home home.html\nabout about.html\nabout dup.html\na.b dot.html\n")
MAP_RULES = ("RewriteEngine On\n"
             "RewriteRule ^p/(.+)$ /${pages:$1|missing.html} [L]\n"
             "RewriteRule ^r/(.+)$ /${pages:$1}?from=$1 [R=302,L]\n"
             "RewriteCond %{QUERY_STRING} ^k=(\\w+)$\n"
             "RewriteRule ^q$ /${pages:%1|missing.html}? [L]\n"
             "RewriteRule ^u/(.+)$ /${undefined:$1|home.html} [L]\n")


@contextlib.contextmanager
def _config_pair(config: Path) -> Iterator[Pair]:
    setup = prepare(VerifyRequest(target="nginx", config=config))
    with contextlib.ExitStack() as stack:
        for target in (setup.original, setup.converted):
            stack.callback(target.stop)
            target.start()
        yield Pair(setup)


def test_rewrite_maps(apache_binary: object, nginx_binary: object) -> None:
    """txt: RewriteMaps (server configuration) looked up by .htaccess rules become http-level
    maps; int:, prg:, dbm: and rnd: stay announced (denied)."""
    parent = make_docroot(prefix="confmig-nm-", files={
        "site/.htaccess": MAP_RULES, "site/home.html": "home\n", "site/about.html": "about\n",
        "site/dup.html": "dup\n", "site/missing.html": "missing\n", "site/dot.html": "dot\n",
        "site/lower/.htaccess": "RewriteEngine On\nRewriteRule ^(.+)$ ${low:$1} [L]\n",
        "site/lower/x.txt": "x\n", "pages.map": MAP_LINES})
    root = parent / "site"
    config = parent / "httpd.conf"
    config.write_text(f"{MODULES}ServerName maps.test\n"
                      "<Directory />\n    AllowOverride None\n    Require all denied\n"
                      "</Directory>\n<VirtualHost *:80>\n    ServerName maps.test\n"
                      f"    DocumentRoot {root}\n    RewriteMap pages txt:{parent}/pages.map\n"
                      "    RewriteMap low int:tolower\n"
                      f"    <Directory {root}>\n        AllowOverride All\n"
                      "        Require all granted\n    </Directory>\n</VirtualHost>\n")
    try:
        with _config_pair(config) as pair:
            for path, status, body in [
                    ("/p/home", 200, b"home\n"), ("/p/about", 200, b"about\n"),
                    ("/p/nokey", 200, b"missing\n"), ("/p/a.b", 200, b"dot\n"),
                    ("/p/aXb", 200, b"missing\n"), ("/q?k=about", 200, b"about\n"),
                    ("/q?k=none", 200, b"missing\n"), ("/u/x", 200, b"home\n"),
                    ("/r/home", 302, None), ("/r/zzz", 302, None)]:
                a, b = pair.ask(path, {"Host": "maps.test"})
                assert (a.status, b.status) == (status, status), (path, a.status, b.status)
                if body is not None:
                    assert a.body == b.body == body, (path, a.body, b.body)
                else:
                    ports = [str(t.port) for t in (pair.setup.original, pair.setup.converted)]
                    assert a.headers["Location"].replace(ports[0], "P") == \
                        b.headers["Location"].replace(ports[1], "P"), path
            a, b = pair.ask("/lower/X.TXT", {"Host": "maps.test"})
            assert (a.status, b.status) == (200, 403)  # int:tolower: no nginx form
        report = verify(VerifyRequest(target="nginx", config=config, max_requests=600))
        assert report.exit_code == 0, report.summary()
        # (and /r/'s ?from=$1: a '+' nginx escapes there, Apache not, is denied: 403)
        notes = [n for n in report.conversion.untranslatable
                 if not n.reason.startswith("an [R] target's query")]
        assert [n.scope.endswith("/lower") for n in notes] == [True], notes
        assert "RewriteMap low (int:) has no nginx form" in notes[0].reason
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def test_a_rewrite_to_the_file_itself_as_apache_compares_it(
        site: Site, apache_binary: object, nginx_binary: object) -> None:
    """Apache makes no internal redirect when the rewritten *filesystem path* is the one the
    request maps to: a relative substitution is the directory's path plus it (RewriteBase
    only makes the redirect's URL), and a URL-path is never that file — Apache redirects to
    it and, when the rule matches again, loops until its 500."""
    root = site({".htaccess": "RewriteEngine On\nRewriteRule ^x$ /x [L]\n"
                              "RewriteRule ^u$ %{REQUEST_URI} [L]\n",
                 "x": "x\n", "u": "u\n", "y": "root y\n", "sub/y": "sub y\n",
                 "sub/.htaccess": "RewriteEngine On\nRewriteBase /\nRewriteRule ^(y)$ $1 [L]\n"})
    _same(root, [("/x", {}, 500), ("/u", {}, 500), ("/sub/y", {}, 200)])
    with both(root) as pair:
        assert pair.ask("/sub/y")[1].body == b"sub y\n"

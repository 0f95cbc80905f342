"""A front controller's fallback walks a path as Apache's directory walk does (issue 12).

What nginx finds neither as a file nor as a directory goes to the front controller, but
Apache's walk stops at the first component that is not a directory: a regular file followed
by more path is the default handler's 404 (the rule's ``!-f`` holds for it), a missing name a
``<Files>`` denial matches is 403.  The converted fallback walks the path a component at a
time from the directory the rules are in, one level past the deepest directory of the tree
(at least :data:`~confmig.convert.nginx.render.FRONT_LEVELS`); a path of directories deeper
than that, created after the conversion, is denied — stricter than Apache, never wider.

Real Apache and real nginx, a tree deeper than the minimum and a front controller in a
subdirectory of its own.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import convert_docroot
from confmig.convert.nginx.render import FRONT_LEVELS
from confmig.servers import make_docroot
from tests.nginx.servers import Pair, both

pytestmark = [pytest.mark.apache]

FRONT = ("RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
         "RewriteCond %{REQUEST_FILENAME} !-d\nRewriteRule . {front} [L]\n")
DENIAL = '<FilesMatch "\\.sql$">\nRequire all denied\n</FilesMatch>\n'
DEEP = "/".join(f"l{n}" for n in range(1, FRONT_LEVELS + 4))  # deeper than the minimum
FILES = {
    ".htaccess": DENIAL + FRONT.replace("{front}", "/index.html"),
    "index.html": "front\n", f"{DEEP}/f.txt": "deep\n",
    "blog/.htaccess": "RewriteEngine On\nRewriteBase /blog/\n"
                      + FRONT.replace("{front}", "index.html"),
    "blog/index.html": "blog front\n", "blog/c.txt": "c\n", "blog/d/e.txt": "e\n",
}
#: path → (status, body) Apache answers (asserted), nginx the same
ANSWERS = {
    f"/{DEEP}/missing/x": (200, b"front\n"),
    f"/{DEEP}/f.txt/x": (404, None),
    f"/{DEEP}/missing.sql/x": (403, None),
    f"/{DEEP}/f.txt": (200, b"deep\n"),
    "/blog/missing/x/y": (200, b"blog front\n"),
    "/blog/x": (200, b"blog front\n"),
    "/blog/c.txt/x": (404, None),
    "/blog/d/e.txt/": (404, None),
    "/blog/d/missing/": (200, b"blog front\n"),
    "/blog/d/missing.sql/x": (403, None),
    "/blog/missing.sql/x": (403, None),
    "/l1/l2/x.sql/y": (403, None),
}


@pytest.fixture
def pair(apache_binary: object, nginx_binary: object) -> Iterator[tuple[Path, Pair]]:
    root = make_docroot(prefix="confmig-fcwalk-", files=FILES)
    try:
        with both(root) as started:
            yield root, started
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_the_walk_answers_as_apache(pair: tuple[Path, Pair]) -> None:
    _root, servers = pair
    seen = {path: servers.ask(path) for path in ANSWERS}
    apache = {p: (a.status, a.body if a.status == 200 else None) for p, (a, _) in seen.items()}
    assert apache == ANSWERS, apache
    nginx = {p: (b.status, b.body if b.status == 200 else None) for p, (_, b) in seen.items()}
    assert nginx == ANSWERS, nginx


def test_deeper_than_the_tree_was_is_denied(pair: tuple[Path, Pair]) -> None:
    """Directories made after the conversion, deeper than the walk goes: nginx refuses
    (403) what Apache sends to the front controller."""
    root, servers = pair
    deeper = root / DEEP / "/".join(f"m{n}" for n in range(1, 4))
    deeper.mkdir(parents=True)
    deeper.parent.chmod(0o755)
    for up in deeper.relative_to(root / DEEP).parents:
        (root / DEEP / up).chmod(0o755)
    deeper.chmod(0o755)
    a, b = servers.ask(f"/{DEEP}/m1/m2/m3/missing/x")
    assert (a.status, a.body) == (200, b"front\n")
    assert b.status == 403


def test_only_the_fallback_walks(pair: tuple[Path, Pair]) -> None:
    """The directory's own locations test nothing new: the walk is in named locations
    that try_files reaches for what is neither a file nor a directory."""
    root, _servers = pair
    text = convert_docroot(root).result.text
    server = text[text.index("\nserver {"):]
    outside = re.sub(r"\n    location @confmig_fc\d+d? \{.*?\n    \}", "", server, flags=re.S)
    assert "rewrite ^" not in outside and "!-e" not in outside, outside
    assert len(re.findall(r"try_files \$uri \$uri/ \$confmig_map\d+;", outside)) >= 2

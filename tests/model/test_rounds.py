"""A request through its internal-redirect rounds, asked of the model's one request loop
(:func:`confmig.model.evaluate.evaluate`).  These cases ran on the rewrite engine's own rounds
loop (``run_per_directory_rounds``, deleted: it omitted REDIRECT_URL); what the loop reported
as rounds, query and environment is read from the answer: ``internal redirect #N`` steps, and
(their URL-path and query), and a response header mod_headers fills from the environment."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from confmig.load import ReadState
from confmig.model.evaluate import Answer, default_state, evaluate, site_from_text
from confmig.model.request import Request, RequestHeaders
from tests.corpus import CORPUS

# The environment the old loop's result carried, as a response header of the final round.
ECHO = ('Header always set X-Env "%{REDIRECT_REDIRECT_X}e|%{REDIRECT_STATUS}e|'
        '%{REDIRECT_URL}e"\n')


def run(tmp_path: Path, tree: dict[str, str], target: str, limit: int | None = None
        ) -> tuple[Answer, int, Path]:
    """(the answer, its number of rounds, the DocumentRoot) for *tree* (paths under /www)."""
    root = tmp_path / "www"
    root.mkdir(parents=True, exist_ok=True)
    for path, content in tree.items():
        file = root / path.removeprefix("/www/")
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(content)
    text = (f"ServerName example.com\nDocumentRoot {root}\n"
            f"<Directory {root}>\n    AllowOverride All\n    Require all granted\n"
            f"</Directory>\n{ECHO}"
            + (f"LimitInternalRecursion {limit}\n" if limit is not None else ""))
    site = site_from_text(text, "t.conf", default_state(ReadState(server_root=root)))
    answer = evaluate(site, Request(target, "GET", RequestHeaders([("Host", "example.com")]),
                                    80))
    redirects = [s for s in answer.steps
                 if s.phase == "redirect" and s.message.startswith("internal redirect #")]
    return answer, 1 + len(redirects), root


def uris(answer: Answer) -> list[tuple[str, str | None]]:
    """(URL-path, query) of each round after the first."""
    found = [m.group(1) for s in answer.steps
             if (m := re.fullmatch(r"internal redirect #\d+ to (\S+)", s.message))]
    return [(path, query if sep else None) for path, sep, query in
            (target.partition("?") for target in found)]


def test_rounds_front_controller(tmp_path: Path) -> None:
    if not (CORPUS / "wordpress" / "generated" / ".htaccess").is_file():
        pytest.skip("corpus not present")
    tree = {"/www/.htaccess": (CORPUS / "wordpress" / "generated" / ".htaccess").read_text(),
            "/www/index.php": "x", "/www/wp-login.php": "x"}
    res, rounds, root = run(tmp_path, tree, "/hello/world?x=1")
    assert (res.status, res.filename, uris(res)[-1][1], rounds) == (
        200, str(root / "index.php"), "x=1", 2)
    assert uris(res)[0][0] == "/index.php"
    assert run(tmp_path, tree, "/wp-login.php")[0].filename == str(root / "wp-login.php")


def test_rounds_loops_end_and_env(tmp_path: Path) -> None:
    loop = {"/www/.htaccess": "RewriteEngine On\nRewriteRule ^(.+)$ x/$1 [L]"}
    res, rounds, _ = run(tmp_path / "loop", loop, "/a")
    assert (res.status, rounds) == (500, 11)
    assert run(tmp_path / "loop", loop, "/a", limit=20)[0].status == 500
    end = {"/www/.htaccess": "RewriteEngine On\nRewriteRule ^a$ b [END]\nRewriteRule ^b$ c",
           "/www/b": "b", "/www/c": "c"}
    _, _, root = run(tmp_path / "end", end, "/a")
    assert run(tmp_path / "end", end, "/a")[0].filename == str(root / "b")
    env = {"/www/.htaccess": "RewriteEngine On\nRewriteRule ^a$ b [E=X:1]\n"
                             "RewriteCond %{ENV:REDIRECT_X} =1\nRewriteRule ^b$ c",
           "/www/c": "c"}
    res, rounds, root = run(tmp_path / "env", env, "/a")  # a -> b (no [L]) -> c in round 2
    assert res.filename == str(root / "c") and rounds == 3
    redirect_x, redirect_status, redirect_url = res.headers["X-Env"].split("|")
    assert redirect_x == "1"  # renamed again by the second redirect
    assert redirect_status == "200"
    assert redirect_url == "/b"  # the previous round's URL (the old loop left it out)
    slash = {"/www/.htaccess": "RewriteEngine On\nRewriteRule ^d$ x", "/www/d/i": "i"}
    res, _, _ = run(tmp_path / "slash", slash, "/d?q=1")
    assert (res.status, res.location) == (301, "http://example.com/d/?q=1")
    status = {"/www/.htaccess": "RewriteEngine On\nRewriteRule ^a$ b [R]\nRewriteRule ^(.*)$ c",
              "/www/c": "c"}
    res, _, root = run(tmp_path / "status", status, "/a")
    assert (res.status, res.filename) == (302, str(root / "c"))

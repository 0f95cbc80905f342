"""The request model under hostile configs, URLs and headers: no traceback, no hang, bounded
memory, and Apache's answer (checked against real Apache by ``tests/differential`` —
``sites_limits`` — and ``tests/model/test_hostile_apache.py``)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.load import load_path
from confmig.model.answer import Answer
from confmig.model.evaluate import evaluate
from confmig.model.explain import REASONS
from confmig.model.request import Request
from tests.differential.sites_limits import P4_HIGH, P4_LOW, P5_HIGH, P5_LOW, p5, s4, s5

runner = CliRunner()


def _site(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def _explain(root: Path, url: str, *extra: str) -> tuple[int, dict]:
    result = runner.invoke(app, ["explain", url, "--root", str(root), "-f", "json", *extra])
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    data = json.loads(result.output) if result.exit_code == 0 else {}
    return result.exit_code, data


# -- 1. PCRE's match limit ---------------------------------------------------------------

CATASTROPHIC = "/" + "a" * 30 + "b"

LIMIT_SITES = {
    "RewriteRule": ("RewriteEngine On\nRewriteRule ^/?(a+)+$ - [F]\n", 404),
    "negated RewriteRule": ("RewriteEngine On\nRewriteRule !^/?(a+)+$ - [F]\n", 403),
    "RewriteCond": ("RewriteEngine On\nRewriteCond %{REQUEST_URI} ^/(a+)+$\n"
                    "RewriteRule ^ - [F]\n", 404),
    "FilesMatch": ('<FilesMatch "^(a+)+$">\nRequire all denied\n</FilesMatch>\n', 404),
    "RedirectMatch": ('RedirectMatch 302 "^/(a+)+$" /x\n', 404),
    "SetEnvIf": ('SetEnvIf Request_URI "^/(a+)+$" bad\n<RequireAll>\nRequire all granted\n'
                 "Require not env bad\n</RequireAll>\n", 404),
    "<If> =~": ('<If "%{REQUEST_URI} =~ m#^/(a+)+$#">\nRequire all denied\n</If>\n', 404),
    "<If> !~": ('<If "%{REQUEST_URI} !~ m#^/(a+)+$#">\nRequire all denied\n</If>\n', 403),
}


@pytest.mark.parametrize("where", sorted(LIMIT_SITES))
def test_match_limit_is_no_match_with_a_note(tmp_path: Path, where: str) -> None:
    """``^(a+)+$`` on ``aaa…ab``: PCRE gives up (match limit); Apache's callers take that as
    no match (a negated pattern holds) — no traceback, and explain says which limit."""
    text, status = LIMIT_SITES[where]
    root = _site(tmp_path, {".htaccess": text})
    code, data = _explain(root, CATASTROPHIC)
    assert code == 0
    assert data["status"] == status
    assert any("match limit" in item for item in data["limits"]), data["limits"]


def test_match_limit_boundary_is_pcres_default(tmp_path: Path) -> None:
    """The limit is PCRE2's default (10,000,000, no JIT) as in Apache: ``P4_LOW`` completes
    (and matches), one more ``a`` gives up (the differential suite shows Apache agrees)."""
    root = _site(tmp_path, {".htaccess": 'RewriteEngine On\nRewriteCond %{QUERY_STRING} '
                                         '"^a*a*a*a*c|E"\nRewriteRule ^ - [F]\n',
                            f"{s5('R', 'S', P5_LOW)}": "x",
                            "p5/.htaccess": f'RewriteEngine On\nRewriteRule "{p5("R", "S")}"'
                                            " - [F]\n"})
    low = evaluate_url(root, f"/x?{s4(P4_LOW)}")
    high = evaluate_url(root, f"/x?{s4(P4_HIGH)}")
    assert (low.status, low.limits) == (403, [])
    assert high.status == 404 and "match limit" in high.limits[0]
    assert evaluate_url(root, f"/p5/{s5('R', 'S', P5_LOW)}").status == 403
    assert evaluate_url(root, f"/p5/{s5('R', 'S', P5_HIGH)}").status == 404


def evaluate_url(root: Path, url: str, trace: bool = False) -> Answer:
    return evaluate(load_path(root, None, set()), Request.from_url(url), trace=trace)


# -- 2. [N] loops, URL length, the explanation's size --------------------------------------

def test_endless_next_loop_is_bounded_in_time_and_output(tmp_path: Path) -> None:
    """``[N=1000000000]`` growing the URL: Apache answers 500 once ``r->filename`` passes
    2 × LimitRequestLine; explain says so, in bounded time and output."""
    root = _site(tmp_path, {".htaccess": "RewriteEngine On\n"
                                         "RewriteRule ^(.*)$ $1x [N=1000000000]\n"})
    start = time.process_time()  # CPU time: the loop is work; a busy machine is not
    result = runner.invoke(app, ["explain", "/a", "--root", str(root)])
    elapsed = time.process_time() - start
    assert result.exit_code == 0, result.output
    assert "500" in result.output.splitlines()[0]
    assert "2 × LimitRequestLine" in result.output
    assert "not shown" in result.output
    assert len(result.output.splitlines()) < 2000
    assert len(result.output) < 200_000
    assert elapsed < 20


def test_url_length_limit_counts_bytes(tmp_path: Path) -> None:
    """``strlen(r->filename) > 16380``: a two-byte character counts twice."""
    rule = "RewriteEngine On\nRewriteRule ^(.*)$ /t/$1$1$1$1$1$1$1$1 [L]\n"
    root = _site(tmp_path, {"wide/.htaccess": rule})
    wide = evaluate_url(root, "/wide/" + "/".join(["%C3%A9" * 100] * 11))
    narrow = evaluate_url(root, "/wide/" + "/".join(["e" * 100] * 11))
    assert wide.status == 500 and "2 × LimitRequestLine" in wide.limits[0]
    assert narrow.status == 403  # /t/… is longer than PATH_MAX: apr_filepath_merge refuses


def test_long_path_segment_and_path_are_403(tmp_path: Path) -> None:
    """A segment over NAME_MAX (ENAMETOOLONG from lstat) or a path over PATH_MAX
    (apr_filepath_merge): Apache answers 403 before any rewriting."""
    root = _site(tmp_path, {"index.html": "x"})
    assert evaluate_url(root, "/" + "e" * 256).status == 403
    assert evaluate_url(root, "/" + "e" * 255).status == 404
    assert evaluate_url(root, "/" + "/".join(["e" * 200] * 25)).status == 403


# -- 3. URLs -------------------------------------------------------------------------------

def _one_line_error(result: object) -> str:
    assert result.exit_code == 2, result.output  # type: ignore[attr-defined]
    assert result.exception is None or isinstance(  # type: ignore[attr-defined]
        result.exception, SystemExit), result.exception  # type: ignore[attr-defined]
    text = result.output.strip()  # type: ignore[attr-defined]
    assert text.startswith("error:") and "\n" not in text and len(text) < 300, text
    return text


@pytest.mark.parametrize("url", ["http://[::1/x", "http://[zz]/", "http://h:99999/",
                                 "http://h:-1/", "http://", "http:///x", "", "ftp://x/",
                                 "/a b", "/a\r\nHost: evil"])
def test_malformed_urls_are_one_line_errors(tmp_path: Path, url: str) -> None:
    result = runner.invoke(app, ["explain", url, "--root", str(tmp_path)])
    text = _one_line_error(result)
    assert "[zz]" in text or "zz" not in url  # printed as given, not read as markup


@pytest.mark.parametrize(("url", "status"), [
    ("/%zz", 400), ("/%00", 404), ("/a%2fb", 404), ("/a\x01b", 400), ("/a\x7fb", 400),
    ("/a\udcff\udcfe", 404), ("/?" + "q" * 8176, 200), ("/?" + "q" * 8177, 414),
    ("/?" + "q" * 1_000_000, 414), ("x", 400), ("*", 400),
])
def test_hostile_urls_get_apaches_answer(tmp_path: Path, url: str, status: int) -> None:
    """Answers checked on Apache in test_hostile_apache.py (control characters, the
    request-line limit) and by the differential suite (%-decoding)."""
    root = _site(tmp_path, {"index.html": "x"})
    result = runner.invoke(app, ["explain", url, "--root", str(root)])
    assert result.exit_code == 0, result.output
    words = " ".join(result.output.split())
    assert f"→ {status} {REASONS.get(status, '')}".rstrip() in words, result.output[:300]
    assert not any(ch in result.output for ch in "\x00\x01\x7f\r\udcff")
    assert len(result.output) < 20_000
    code, data = _explain(root, url)
    assert (code, data["status"]) == (0, status)


def test_a_path_is_a_path_even_with_a_scheme_inside(tmp_path: Path) -> None:
    """Only ``http(s)://host/…`` is the absolute form: ``/go/http://x`` is a path."""
    root = _site(tmp_path, {".htaccess": "RewriteEngine On\nRewriteRule ^go/ - [F]\n"})
    assert _explain(root, "/go/http://example.com/")[1]["status"] == 403
    assert _explain(root, "/a://b")[1]["status"] == 404
    assert _explain(root, "/x?u=ftp://h/")[1]["status"] == 404


# -- 4. and 5. Host and other headers ----------------------------------------------------

REDIRECT_TO_HOST = "RewriteEngine On\nRewriteRule ^r$ http://%{HTTP_HOST}/there [R=302,L]\n"


@pytest.mark.parametrize("option", [["-H", "Host: evil\r\nX-Injected: 1"],
                                    ["-H", "Host: evil\rx"], ["-H", "Host: evil\nx"],
                                    ["--host", "evil\r\nSet-Cookie: a=b"],
                                    ["-H", "Host: a b"], ["-H", "Host: evil\x01"]])
def test_a_host_with_control_characters_is_400_and_never_echoed(tmp_path: Path,
                                                                 option: list[str]) -> None:
    """Apache refuses such a Host (a control character in a header value, or a host name
    with characters outside letters, digits, '-', '_', '.') with 400 before any rewriting:
    no Location is built from it; nothing raw is printed."""
    root = _site(tmp_path, {".htaccess": REDIRECT_TO_HOST})
    result = runner.invoke(app, ["explain", "/r", "--root", str(root), *option])
    assert result.exit_code == 0, result.output
    assert "400 Bad Request" in result.output.splitlines()[0]
    assert "Location" not in result.output
    assert not any(ch in result.output for ch in "\r\x01")
    data = _explain(root, "/r", *option)[1]
    assert (data["status"], data["location"]) == (400, None)
    good = _explain(root, "/r", "-H", "Host: example.com")[1]
    assert good["location"] == "http://example.com/there"


@pytest.mark.parametrize(("header", "status"), [
    ("X-A: " + "v" * 8186, 200), ("X-A: " + "v" * 8187, 400), ("X-A: " + "v" * 1_000_000, 400),
    ("X-A: a\x01b", 400), ("X(A: v", 400), ("X-A: caf\udce9", 200), ("X-A: a\tb", 200),
])
def test_hostile_headers_get_apaches_answer(tmp_path: Path, header: str, status: int) -> None:
    root = _site(tmp_path, {"index.html": "x"})
    code, data = _explain(root, "/index.html", "-H", header)
    assert (code, data["status"]) == (0, status)


@pytest.mark.parametrize("header", ["nonsense", "no colon " + "x" * 1_000_000, ": v",
                                    "Bad Name: v"])
def test_headers_that_are_not_header_lines_are_one_line_errors(tmp_path: Path,
                                                               header: str) -> None:
    result = runner.invoke(app, ["explain", "/", "--root", str(tmp_path), "-H", header])
    _one_line_error(result)


def test_too_many_headers_is_400(tmp_path: Path) -> None:
    root = _site(tmp_path, {"index.html": "x"})
    args = ["--host", "example.com", *[a for i in range(100) for a in ("-H", f"X-{i}: v")]]
    assert _explain(root, "/index.html", *args[:-2])[1]["status"] == 200  # 99 + Host
    assert _explain(root, "/index.html", *args)[1]["status"] == 400  # 100 + Host


def test_a_huge_internal_redirect_limit_does_not_hang(tmp_path: Path) -> None:
    """``LimitInternalRecursion 100000`` and a rewrite loop: Apache needs 21 s for 1,000
    redirects (each copies the environment under one more ``REDIRECT_`` prefix) and minutes
    beyond; the model stops at 1,000, answers 500 and says it did not follow them all."""
    root = _site(tmp_path, {"www/.htaccess": "RewriteEngine On\nRewriteRule ^x$ /y [L]\n"
                                             "RewriteRule ^y$ /x [L]\n"})
    conf = tmp_path / "httpd.conf"
    conf.write_text(f'LoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so\n'
                    f'DocumentRoot "{root / "www"}"\nLimitInternalRecursion 100000\n'
                    f'<Directory "{root / "www"}">\n    AllowOverride All\n'
                    "    Require all granted\n</Directory>\n")
    start = time.process_time()  # CPU time: the redirects are work; a busy machine is not
    code, data = _explain_config(conf, "/x")
    assert code == 0
    assert data["status"] == 500
    assert any("internal redirects" in u for u in data["unsupported"])
    assert time.process_time() - start < 60


def _explain_config(conf: Path, url: str) -> tuple[int, dict]:
    result = runner.invoke(app, ["explain", url, "--config", str(conf), "-f", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    return result.exit_code, json.loads(result.output) if result.exit_code == 0 else {}

"""AddCharset per extension (issue 12): nginx types a file by its last extension, so the
charset goes into the type itself (``"text/plain; charset=utf-8" bar;``) — exact per
extension, with AddDefaultCharset (nginx's ``charset``) still applying to the other text/plain
and text/html files.  Real Apache against real nginx."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.bench.check import checked_paths, compare, fetch_answers
from confmig.bench.targets import ApacheHtaccessTarget, TargetContext
from confmig.bench.targets.nginx import NginxTarget
from confmig.bench.tree import TreeSpec, generate_tree
from confmig.cli import app
from confmig.verify import VerifyRequest, verify
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

FILES = {"a.css": "a{}\n", "b.js": "1;\n", "c.txt": "c\n", "d.html": "<p>\n",
         "e.png": "png\n", "f.json": "{}\n", "g.bar": "g\n", "sub/h.txt": "h\n",
         "sub/i.css": "i{}\n"}


@pytest.fixture
def site() -> Iterator[object]:
    from confmig.servers import make_docroot

    made: list[Path] = []

    def build(files: dict[str, str]) -> Path:
        root = make_docroot(prefix="confmig-ngcs-", files=files)
        made.append(root)
        return root

    yield build
    for root in made:
        shutil.rmtree(root, ignore_errors=True)


CASES = {
    # one extension, no AddDefaultCharset: nginx must not add it to text/html
    "alone": "AddCharset utf-8 .css\n",
    # AddDefaultCharset for text/plain and text/html, another charset for .txt and .css
    "with-default": "AddDefaultCharset iso-8859-1\nAddCharset utf-8 .txt .css\n",
    # two charsets, a type of its own with a charset, and a subdirectory that changes one
    "mixed": "AddCharset utf-8 .css\nAddCharset iso-8859-2 .js .json\n"
             "AddType text/x-bar .bar\nAddCharset windows-1252 .bar\n",
}


@pytest.mark.parametrize("case", list(CASES))
def test_addcharset_per_extension_is_exact(case: str, site: object, apache_binary: object,
                                           nginx_binary: object) -> None:
    files = {**FILES, ".htaccess": CASES[case]}
    if case == "mixed":
        files["sub/.htaccess"] = "AddCharset koi8-r .css\n"
    root = site(files)  # type: ignore[operator]
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert result.exit_code == 0, result.stderr
    assert "AddCharset" not in result.stderr
    with both(root) as pair:
        seen = set()
        for path in ["/" + name for name in FILES]:
            a, b = pair.ask(path)
            assert a.status == b.status == 200, path
            assert a.headers.get("Content-Type") == b.headers.get("Content-Type"), path
            seen.add(a.headers.get("Content-Type"))
        assert any("charset=" in (t or "") for t in seen)
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0 and not report.differing, report.summary()


def test_a_charset_from_an_earlier_extension_is_announced(site: object,
                                                          apache_binary: object,
                                                          nginx_binary: object) -> None:
    """mod_mime reads every extension: ``x.css.gz``'s charset comes from ``.css`` (and its
    type from ``.gz``); by the last extension nginx differs — announced, not silent."""
    root = site({".htaccess": "AddCharset utf-8 .css\n", "a.css": "a{}\n",  # type: ignore[operator]
                 "x.css.txt": "x\n"})
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert result.exit_code == 1
    assert "AddCharset" in result.stderr and "x.css.txt" in result.stderr
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0, report.summary()
    assert {r.probe.path for r in report.differing if not r.announced} == set()


def test_the_standard_bench_tree_verifies_for_nginx(tmp_path: Path, apache_binary: object,
                                                    nginx_binary: object) -> None:
    """The tree ``confmig bench`` generates (depth 10, AddType + AddCharset + a header per
    level): the nginx target answers every checked URL like the baseline, as the bench
    compares them (before, every ``.bar`` lacked its charset and nginx was not measured)."""
    tree = generate_tree(TreeSpec(10, 4, "every"))
    # nothing of it is left untranslated (AddHandler default-handler sends the file, as nginx)
    converted = CliRunner().invoke(app, ["convert", "--to", "nginx", str(tree.docroot)])
    assert converted.exit_code == 0, converted.stderr
    ctx = TargetContext(tree.docroot, "event", None, tmp_path, wsgi_workers=1, wsgi_threads=1)
    baseline, target = ApacheHtaccessTarget(ctx), NginxTarget(ctx)
    try:
        for t in (baseline, target):
            t.prepare()
            t.start()
        paths = checked_paths([u for urls in tree.by_level.values() for u in urls])
        want = fetch_answers(baseline.base_url, baseline.port, paths)
        assert "charset=utf-8" in want["/0/1/2/3/4/5/6/7/8/9/1.bar"].headers["content-type"]
        got = fetch_answers(target.base_url, target.port, paths)
        result = compare(target.name, want, got, target.differences)
        assert result.ok, result.summary()
    finally:
        target.stop()
        baseline.stop()
        shutil.rmtree(tree.docroot, ignore_errors=True)


def test_a_type_from_an_earlier_extension_is_announced(site: object, apache_binary: object,
                                                       nginx_binary: object) -> None:
    """mod_mime reads every extension, the last with a type winning: ``x.sql.php`` is
    ``.sql``'s type where ``.php`` has none (no PHP handler without ``--php-fpm``), and
    ``r.txt.zzz`` ``text/plain``; nginx types a file by its last extension only.  Each such
    file is announced with the type Apache sends (before, verify found them unannounced);
    ``a.min.js`` and ``t.tar.gz``, whose last extension decides on both, are not."""
    root = site({"x.sql.php": "s\n", "r.txt.zzz": "r\n",  # type: ignore[operator]
                 "a.min.js": "1;\n", "t.tar.gz": "t\n", "sub/y.sql.php": "y\n"})
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert result.exit_code == 1, result.stderr
    announced = [line for line in result.stderr.splitlines() if "every extension" in line]
    assert len(announced) == 3, result.stderr
    with both(root) as pair:
        for path in ("/x.sql.php", "/r.txt.zzz", "/sub/y.sql.php"):
            a, b = pair.ask(path)
            assert a.status == b.status == 200, path
            assert a.headers.get("Content-Type") != b.headers.get("Content-Type"), path
            line = next(n for n in announced if n.split(":")[1].endswith(path))
            assert f"Apache sends {a.headers.get('Content-Type')} " in line, line
        for path in ("/a.min.js", "/t.tar.gz"):
            a, b = pair.ask(path)
            assert a.headers.get("Content-Type") == b.headers.get("Content-Type"), path
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0, report.summary()
    assert {r.probe.path for r in report.differing if not r.announced} == set()
    php = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root),
                                   "--php-fpm", "127.0.0.1:9000"])
    assert "x.sql.php" not in php.stderr, php.stderr  # a script: its type is PHP's
    assert "r.txt.zzz" in php.stderr

"""confmig verify --to httpd on real Apache: the converted configuration answers like the
.htaccess tree, on the fixtures, the corpus, nested and deep trees — and verify notices when
it does not."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import confmig.verify.session as session
from confmig.cli import app
from confmig.convert.result import ConversionResult
from confmig.verify import VerifyRequest, verify
from tests.corpus import needs_corpus
from tests.verify.sites import (
    corpus_site,
    corpus_vhosts,
    deep_site,
    gated_site,
    nested_rewrite_site,
)

pytestmark = pytest.mark.apache
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def run_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["verify", "--to", "httpd", *args])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def cleanup() -> Iterator[list[Path]]:
    paths: list[Path] = []
    yield paths
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def test_demo_site(apache_binary: object) -> None:
    code, out, _err = run_cli(str(FIXTURES / "demo-site"))
    assert code == 0, out
    assert out.startswith("OK: ") and "0 unexpected difference(s)" in out


def test_demo_config(apache_binary: object) -> None:
    code, out, _err = run_cli("--config", str(FIXTURES / "demo-httpd.conf"), "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["ok"], report["summary"]
    assert report["sent"] > 20


@needs_corpus
@pytest.mark.corpus
def test_every_corpus_htaccess(apache_binary: object, cleanup: list[Path]) -> None:
    root, used = corpus_site()
    cleanup.append(root)
    assert len(used) >= 30
    report = verify(VerifyRequest(docroot=root, max_requests=3000))
    assert report.exit_code == 0, report.summary()
    assert report.sent > 1000
    statuses = set(report.statuses)
    assert {200, 301, 403, 404} <= statuses  # the rules really were exercised


@needs_corpus
@pytest.mark.corpus
def test_every_corpus_htaccess_at_the_root_of_a_site(apache_binary: object,
                                                    cleanup: list[Path]) -> None:
    """Config mode with one name-based <VirtualHost> per corpus file."""
    parent, config, used = corpus_vhosts()
    cleanup.append(parent)
    report = verify(VerifyRequest(config=config, max_requests=3000))
    assert report.exit_code == 0, report.summary()
    hosts = {v for r in report.differing for n, v in r.probe.headers if n == "Host"}
    assert not report.unannounced, hosts
    assert report.sent > 2000 and len(used) >= 30


def test_nested_rewrite_trees(apache_binary: object, cleanup: list[Path]) -> None:
    root = nested_rewrite_site()
    cleanup.append(root)
    report = verify(VerifyRequest(docroot=root))
    assert report.exit_code == 0, report.summary()
    assert report.differing == []
    assert {200, 301, 302, 404} <= set(report.statuses)


def test_a_depth_10_tree(apache_binary: object, cleanup: list[Path]) -> None:
    root = deep_site(10)
    cleanup.append(root)
    report = verify(VerifyRequest(docroot=root))
    assert report.exit_code == 0, report.summary()
    assert report.differing == []


def test_allowoverride_gated_directives(apache_binary: object, cleanup: list[Path]) -> None:
    """Each directory under another AllowOverride: by default (the 500 kept) there is no
    difference at all, which checks every verdict (honoured, ignored, 500) against the real
    server; with --serve-500 the difference where Apache answered 500 is announced."""
    root, config = gated_site()
    cleanup += [root, config]
    kept = verify(VerifyRequest(config=config))
    assert kept.differing == [], kept.summary()
    assert kept.statuses[500] > 0
    report = verify(VerifyRequest(config=config, keep_500=False))
    assert report.exit_code == 0, report.summary()
    assert report.announced and not report.unannounced
    announced_dirs = {Path(r.probe.directory or "/").relative_to(root).parts[0]
                      for r in report.announced}
    assert announced_dirs == {"fileinfo", "opts", "listed", "unknown", "order"}


def with_server_section(config: Path, root: Path) -> None:
    """Give sub/ a .htaccess and a <Directory> of the server's own for the same path."""
    (root / "sub" / ".htaccess").write_text("Header set X-Sub htaccess\n"
                                             "RewriteEngine On\nRewriteRule ^x$ page.html\n")
    anchor = f"    <Directory {root}/fileinfo>\n"
    config.write_text(config.read_text().replace(
        anchor, f"    <Directory {root}/sub>\n        Header set X-Sub server\n"
        f"        Header set X-Server sub\n        RewriteEngine On\n"
        f"        RewriteRule ^y$ page.html\n    </Directory>\n" + anchor))


def test_pre_existing_directory_for_the_same_path(apache_binary: object,
                                                   cleanup: list[Path]) -> None:
    root, config = gated_site()
    cleanup += [root, config]
    with_server_section(config, root)
    report = verify(VerifyRequest(config=config, keep_500=True,
                                  requests=None, max_requests=2000))
    assert report.differing == [], report.summary()


def test_verify_notices_blocks_placed_before_the_existing_directory(
        apache_binary: object, cleanup: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The converter places the block after the server's <Directory> for the same path; the
    same block placed before it changes the answers, and verify says so (exit 1)."""
    root, config = gated_site()
    cleanup += [root, config]
    with_server_section(config, root)
    real = session.convert_config

    def misplaced(*args: object, **kwargs: object) -> ConversionResult:
        result = real(*args, **kwargs)
        start = result.text.index(f'    <Directory "{root}/sub">\n')
        end = result.text.index("    </Directory>\n", start) + len("    </Directory>\n")
        block = result.text[start:end]
        text = result.text[:start] + result.text[end:]
        result.text = text.replace(f"    <Directory {root}/sub>\n",
                                   block + f"    <Directory {root}/sub>\n")
        return result

    monkeypatch.setattr(session, "convert_config", misplaced)
    report = verify(VerifyRequest(config=config))
    assert report.exit_code == 1
    fields = {(d.field, d.original, d.converted) for r in report.unannounced for d in r.diffs}
    assert ("x-sub", "htaccess", "server") in fields


def test_verify_notices_a_child_block_that_resets_the_parents_rewrite_rules(
        apache_binary: object, cleanup: list[Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """The classic trap: a <Directory> below with any rewrite directive stops the parent's
    rules, one without none does not.  Adding one must show up as a difference."""
    root = nested_rewrite_site()
    cleanup.append(root)
    real = session.convert_docroot

    def trapped(*args: object, **kwargs: object) -> ConversionResult:
        result = real(*args, **kwargs)
        result.text = result.text.replace("    Header set X-Level b\n",
                                          "    Header set X-Level b\n    RewriteEngine On\n")
        return result

    monkeypatch.setattr(session, "convert_docroot", trapped)
    report = verify(VerifyRequest(docroot=root))
    assert report.exit_code == 1
    assert "/a/b/x" in {r.probe.path for r in report.unannounced}


def test_requests_file_and_json(apache_binary: object, tmp_path: Path) -> None:
    requests = tmp_path / "requests.txt"
    requests.write_text("# my own\n/blog/some-post\nHEAD /shop/cart\n"
                        "/ | Host: www.example.com\n")
    code, out, _err = run_cli(str(FIXTURES / "demo-site"), "--requests", str(requests),
                              "--max-requests", "5", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["sent"] == 5 and report["truncated"] > 0
    bad = tmp_path / "bad.txt"
    bad.write_text("GET /a /b /c\n")
    code, _out, err = run_cli(str(FIXTURES / "demo-site"), "--requests", str(bad))
    assert code == 2 and f"{bad}:1:" in err


def test_every_registered_target_is_available() -> None:
    from confmig.convert import registry

    assert registry.planned() == []
    assert set(registry.verifiable()) >= {"httpd", "nginx", "flask"}


def test_a_missing_apache_says_what_to_install() -> None:
    code, _out, err = run_cli(str(FIXTURES / "demo-site"), "--apache", "/nonexistent/apache2")
    assert code == 2
    assert "apt-get install -y apache2" in err


def test_ctrl_c_stops_both_servers(apache_binary: object,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[int] = []
    real_start = session.ApacheTarget.start
    calls = 0

    def start(self: session.ApacheTarget) -> None:
        real_start(self)
        started.append(self.server.pid)

    def interrupted(*args: object, **kwargs: object) -> None:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise KeyboardInterrupt
        return real_http_get(*args, **kwargs)

    real_http_get = session.http_get
    monkeypatch.setattr(session.ApacheTarget, "start", start)
    monkeypatch.setattr(session, "http_get", interrupted)
    with pytest.raises(KeyboardInterrupt):
        verify(VerifyRequest(docroot=FIXTURES / "demo-site"))
    assert len(started) == 2
    for pid in started:
        with pytest.raises(ProcessLookupError):
            os.killpg(pid, 0)

"""The nginx and flask-gunicorn targets on real servers: each converts the site, starts, answers
the benchmark URLs like the baseline (compared as the bench compares them), and stops by PID;
a target this machine cannot run is reported as not measured, with the reason."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from confmig.bench import BenchOptions, run_bench
from confmig.bench.check import checked_paths, compare, fetch_answers
from confmig.bench.targets import (
    BASELINE,
    TARGETS,
    ApacheHtaccessTarget,
    Target,
    TargetContext,
)
from confmig.bench.targets.flask import (
    FlaskGunicornTarget,
    FlaskModWsgiTarget,
    FlaskWaitressTarget,
)
from confmig.bench.targets.nginx import NginxHandwrittenTarget, NginxTarget
from confmig.convert import registry
from confmig.servers import ServerNotFound, make_docroot, port_open

pytestmark = [pytest.mark.apache, pytest.mark.usefixtures("apache")]

HTACCESS = """AddType text/plain .bar
Header set X-Confmig-Bench "sub"
RewriteEngine On
RewriteRule ^legacy/(.+)\\.html$ $1.foo [L]
"""
PATHS = ["/sub/1.bar", "/sub/2.foo", "/sub/legacy/2.html", "/0.foo"]


def small_site(root: Path) -> Path:
    (root / "sub").mkdir()
    (root / "sub" / ".htaccess").write_text(HTACCESS)
    for path in ("sub/1.bar", "sub/2.foo", "0.foo"):
        (root / path).write_text(f"content of {path}\n")
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


def gunicorn_missing() -> str | None:
    return FlaskGunicornTarget.unavailable_reason()


def test_the_registry_names_every_bench_target() -> None:
    named = [cls.name for c in registry.CONVERTERS for cls in c.bench_targets()]
    assert named == ["apache-httpd", "nginx", "nginx-handwritten", "flask-gunicorn",
                     "flask-mod_wsgi", "flask-waitress"]
    assert list(TARGETS) == [BASELINE, *named]
    assert all(issubclass(cls, Target) for cls in TARGETS.values())


#: A hand-written nginx configuration for small_site (http text with one server).
HANDWRITTEN = """map $uri $bench_level { ~^/sub/ sub; }
server {
    listen 80;
    server_name example.test;
    root /var/www/elsewhere;
    types { text/plain bar; text/html foo; }
    location /sub/ {
        add_header X-Confmig-Bench $bench_level;
        rewrite "^/sub/legacy/(.+)\\.html$" /sub/$1.foo last;
    }
}
"""


@pytest.mark.parametrize("cls", [NginxTarget, NginxHandwrittenTarget, FlaskGunicornTarget,
                                 FlaskModWsgiTarget, FlaskWaitressTarget],
                         ids=lambda c: c.name)
def test_start_verify_stop(cls: type[Target], docroot: Path, tmp_path: Path) -> None:
    reason = cls.unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    site = small_site(docroot)
    config = tmp_path / "handwritten.conf"
    config.write_text(HANDWRITTEN)
    workdir = make_docroot(prefix="confmig-bench-work-")  # the workers read files there
    ctx = TargetContext(site, "event", None, workdir, wsgi_workers=2, wsgi_threads=2,
                        nginx_config=config)
    baseline, target = ApacheHtaccessTarget(ctx), cls(ctx)
    try:
        for t in (baseline, target):
            t.prepare()
            t.start()
        want = fetch_answers(baseline.base_url, baseline.port, checked_paths(PATHS))
        assert want["/sub/1.bar"].headers.get("x-confmig-bench") == "sub"
        got = fetch_answers(target.base_url, target.port, PATHS)
        result = compare(target.name, want, got, target.differences)
        assert result.ok, result.summary()
        # the comparison is the target's own and can fail: a changed body is a difference
        assert not compare(target.name, want, {**got, "/0.foo": got["/sub/2.foo"]},
                           target.differences).ok
        pids = target.process_ids()
        port = target.port
        if cls is FlaskGunicornTarget:
            assert len(pids) >= 3  # the master and the two workers asked for
            assert target.prepared.details["workers"] == 2
        if cls is FlaskModWsgiTarget:  # Apache's children and the daemon processes asked for
            assert target.server is not None
            extra = (target.server.root / "extra.conf").read_text()
            assert "WSGIDaemonProcess confmig processes=2 threads=2 " in extra
            assert len(pids) >= 4  # the master, a child, and the two daemon processes
        if cls is FlaskWaitressTarget:
            assert target.prepared.details["workers"] == 1 and "1p×2t" in target.label
        if cls is NginxHandwrittenTarget:
            # its own listen/server_name/root are replaced; the rest is served as written
            assert got["/sub/1.bar"].headers["content-type"] == "text/plain"
            assert any("root left out" in note for note in target.prepared.notes)
        assert all(_alive(pid) for pid in pids)
    finally:
        target.stop()
        baseline.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    assert not port_open("127.0.0.1", port)
    assert not any(_alive(pid) for pid in pids)


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def test_a_target_the_machine_cannot_run_is_reported(monkeypatch: pytest.MonkeyPatch,
                                                      docroot: Path) -> None:
    def missing(cls: type[Target]) -> str:
        return "nginx is not installed (test)"

    monkeypatch.setattr(NginxTarget, "unavailable_reason", classmethod(missing))
    options = BenchOptions(depth=1, files=2, targets=(BASELINE, "nginx"), mpms=("event",),
                           duration_s=1.0, repeat=1, warmup_s=0, strace=False)
    report = run_bench(options)
    (group,) = report.groups
    nginx = group.target("nginx")
    assert nginx is not None and not nginx.started and not nginx.verified
    assert nginx.error == "nginx is not installed (test)"
    assert report.failed_targets == [nginx]
    assert {r.target for r in report.runs} == {BASELINE}


def test_wsgi_workers_default_to_one_per_server_core(monkeypatch: pytest.MonkeyPatch) -> None:
    if gunicorn_missing():
        pytest.skip(gunicorn_missing() or "")
    seen: list[TargetContext] = []

    def unavailable(cls: type[Target]) -> str:
        return "not started in this test"

    monkeypatch.setattr(FlaskGunicornTarget, "unavailable_reason", classmethod(unavailable))
    original_init = FlaskGunicornTarget.__init__

    def spy(self: FlaskGunicornTarget, ctx: TargetContext) -> None:
        seen.append(ctx)
        original_init(self, ctx)

    monkeypatch.setattr(FlaskGunicornTarget, "__init__", spy)
    options = BenchOptions(depth=1, files=2, targets=(BASELINE, "flask-gunicorn"),
                           mpms=("event",), duration_s=1.0, repeat=1, warmup_s=0,
                           strace=False, wsgi_threads=3)
    run_bench(options)
    (ctx,) = seen
    cores = ctx.cpus if ctx.cpus is not None else os.sched_getaffinity(0)
    assert (ctx.wsgi_workers, ctx.wsgi_threads) == (len(cores), 3)


def test_unavailable_reason_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import confmig.bench.targets.nginx as nginx_module

    def no_nginx(*args: object) -> None:
        raise ServerNotFound("nginx not found on PATH")

    monkeypatch.setattr(nginx_module, "find_nginx", no_nginx)
    assert NginxTarget.unavailable_reason() == "nginx not found on PATH"


def test_the_handwritten_target_needs_its_configuration(tmp_path: Path) -> None:
    ctx = TargetContext(tmp_path, "event", None, tmp_path)
    assert NginxHandwrittenTarget(ctx).missing() == (
        "needs --nginx-config FILE (the hand-written nginx configuration)")
    config = tmp_path / "site.conf"
    config.write_text(HANDWRITTEN)
    ctx = TargetContext(tmp_path, "event", None, tmp_path, nginx_config=config)
    assert NginxHandwrittenTarget(ctx).missing() == NginxTarget.unavailable_reason()


def test_a_handwritten_header_is_not_held_against_it_a_body_is() -> None:
    from confmig.verify.compare import Observed

    want = Observed(200, body_sha256="a", headers={"x-frame-options": "DENY"})
    assert NginxHandwrittenTarget.differences(want, Observed(200, body_sha256="a")) == []
    assert NginxTarget.differences(want, Observed(200, body_sha256="a")) != []
    assert [d.field for d in NginxHandwrittenTarget.differences(
        want, Observed(403, body_sha256="b"))] == ["status", "body"]


def test_waitress_is_reported_unavailable_when_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "waitress" else real(name, *a))
    assert FlaskWaitressTarget.unavailable_reason() == (
        "waitress and flask are needed: pip install 'confmig[bench]'")

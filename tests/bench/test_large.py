"""``confmig bench --size large``: media-sized files (20-150 MB) that cost no disk, bodies
verified without being held in memory, throughput in MB/s and the requests that failed or
timed out — in the summary, the HTML and the JSON."""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from confmig.bench import BenchOptions, run_bench
from confmig.bench.check import STREAM_ABOVE_BYTES, fetch_streamed
from confmig.bench.clients import LoadResult
from confmig.bench.records import Condition, RunRecord, summarize_runs
from confmig.bench.report_html import render_html
from confmig.bench.runner import BenchReport
from confmig.bench.summary import failed_requests, large_table
from confmig.bench.tree import LARGE_SIZES_MB, MB, TreeSpec, generate_tree
from confmig.servers import NginxServer, ServerNotFound, find_nginx, http_get, make_docroot
from confmig.verify.compare import observe
from tests.bench.test_report import META


def test_large_files_are_media_sized_sparse_and_shared(tmp_path: Path) -> None:
    spec = TreeSpec(depth=2, files=6, size="large")
    site = generate_tree(spec, parent=tmp_path)
    deepest = site.docroot / "0" / "1"
    sizes = [(deepest / f"{i}.{'foo' if i % 2 == 0 else 'bar'}").stat().st_size
             for i in range(6)]
    assert sizes == [mb * MB for mb in (*LARGE_SIZES_MB, *LARGE_SIZES_MB[:2])]
    assert min(LARGE_SIZES_MB) == 20 and max(LARGE_SIZES_MB) == 150
    stats = [p.stat() for p in site.docroot.rglob("*.*") if p.name != ".htaccess"]
    # one inode per size, hard-linked into every level; holes only (no data blocks)
    assert len({s.st_ino for s in stats}) == len(LARGE_SIZES_MB)
    assert sum(s.st_blocks for s in {s.st_ino: s for s in stats}.values()) * 512 < MB
    # nothing left beside the docroot
    assert [p.name for p in tmp_path.iterdir()] == [site.docroot.name]


def test_small_files_are_unchanged(tmp_path: Path) -> None:
    site = generate_tree(TreeSpec(depth=1, files=3), parent=tmp_path)
    assert {p.stat().st_size for p in site.docroot.rglob("*.foo")} == {128}


@pytest.fixture
def nginx_files() -> Iterator[NginxServer]:
    try:
        find_nginx()
    except ServerNotFound as exc:
        pytest.skip(str(exc))
    docroot = make_docroot(prefix="confmig-large-")
    try:  # the docroot is removed too: 3 MB left in the temp dir by every run before
        (docroot / "big.bin").write_bytes(os.urandom(3 * STREAM_ABOVE_BYTES + 17))
        (docroot / "small.txt").write_text("small body\n")
        for path in docroot.iterdir():
            path.chmod(0o644)
        with NginxServer("", docroot) as server:
            yield server
    finally:
        shutil.rmtree(docroot, ignore_errors=True)


def test_a_large_body_is_hashed_as_it_arrives(nginx_files: NginxServer) -> None:
    assert nginx_files.docroot is not None
    data = (nginx_files.docroot / "big.bin").read_bytes()
    streamed = fetch_streamed(nginx_files.port, "/big.bin")
    assert streamed.status == 200
    assert streamed.body_sha256 == hashlib.sha256(data).hexdigest()
    whole = observe(http_get(nginx_files.base_url, "/big.bin"), nginx_files.port)
    assert streamed.headers == whole.headers
    # a small body is observed exactly as verify observes it
    small = fetch_streamed(nginx_files.port, "/small.txt")
    assert small == observe(http_get(nginx_files.base_url, "/small.txt"), nginx_files.port)


def _run(target: str, rep: int, mb: float, errors: dict[str, int]) -> RunRecord:
    cond = Condition(10, "event", True, 200, "deepest", "large")
    record = RunRecord(rep, cond, target, target, rep, "t")
    record.result = LoadResult(requests=20, duration_s=2.0, latency_ms={"mean": 900.0},
                               errors=errors, bytes=int(mb * 2e6))
    return record


def test_throughput_and_failures_are_summarized_and_rendered() -> None:
    runs = [_run("apache-htaccess", 0, 900, {}), _run("apache-htaccess", 1, 1100, {}),
            _run("flask-gunicorn", 0, 300, {"read": 4, "timeout": 7}),
            _run("flask-gunicorn", 1, 500, {"connect": 1, "status": 2})]
    summaries = summarize_runs(runs, "apache-htaccess")
    flask = next(s for s in summaries if s.target == "flask-gunicorn")
    assert flask.mb_per_s is not None and flask.mb_per_s.median == pytest.approx(400)
    assert (flask.mb_per_s.min, flask.mb_per_s.max) == (pytest.approx(300), pytest.approx(500))
    assert failed_requests(flask) == 5 and flask.error_kinds["timeout"] == 7
    options = BenchOptions(size="large", concurrency=(200,), mpms=("event",))
    report = BenchReport(options, dict(META))
    report.runs, report.summaries = runs, summaries
    out = io.StringIO()
    Console(file=out, width=200).print(large_table(report))
    text = out.getvalue()
    assert "20, 50, 100, 150 MB" in text
    row = next(line for line in text.splitlines() if "flask-gunicorn" in line)
    assert [cell.strip() for cell in row.split("│")[3:9]] == ["400 (300–500)", "10.0", "5",
                                                              "2", "7", "0 of 2"]
    html = render_html(report)
    assert "Large files: throughput and failed requests" in html and "400 (300–500)" in html
    data = report.to_json()
    assert data["options"]["large_sizes_mb"] == list(LARGE_SIZES_MB)
    assert next(s for s in data["summaries"] if s["target"] == "flask-gunicorn")[
        "error_kinds"] == {"read": 4, "timeout": 7, "connect": 1, "status": 2}


@pytest.mark.apache
def test_quick_large_bench_measures_megabytes_per_second(wrk: None, apache: None) -> None:
    try:
        find_nginx()
    except ServerNotFound as exc:
        pytest.skip(str(exc))
    options = BenchOptions(depth=2, files=2, size="large", quick=True, mpms=("event",),
                           targets=("apache-htaccess", "nginx"), duration_s=1.0, repeat=1,
                           warmup_s=0)
    report = run_bench(options)
    assert all(t.verified for t in report.groups[0].targets), report.failed_targets
    assert report.ceilings == []  # a small-answer ceiling means nothing here
    assert all(t.syscalls is None for t in report.groups[0].targets)
    for s in report.summaries:
        assert s.condition.size == "large"
        assert s.mb_per_s is not None and s.mb_per_s.median > 1, s
        # every completed response is one of the 20 MB files (headers on top, and a
        # response cut off at the end of the run adds its bytes)
        assert s.bytes_per_request >= 20 * MB
    assert json.loads(json.dumps(report.to_json()))["options"]["large_sizes_mb"] == [20]


class _Bytes:
    """A load client that reports what it is told (the runner's judgement is under test)."""

    name = "fake"

    def __init__(self, requests: int, nbytes: int) -> None:
        self.requests, self.nbytes = requests, nbytes

    def run(self, spec: object, workdir: Path, tick: object = None) -> LoadResult:
        return LoadResult(requests=self.requests, duration_s=5.0,
                          latency_ms={"mean": 0.0, "p50": 0.0}, bytes=self.nbytes)


@pytest.mark.parametrize(("size", "requests", "nbytes", "error"), [
    ("large", 0, 300 * MB, None),  # a 150 MB file at c=200 may outlast the run: bytes count
    ("large", 0, 0, "no byte arrived during the run"),  # a stalled server
    ("small", 0, 4096, "no request completed during the run"),
    ("large", 3, 60 * MB, None),
])
def test_a_large_run_counts_its_bytes_a_stalled_one_fails(
        tmp_path: Path, size: str, requests: int, nbytes: int, error: str | None) -> None:
    import contextlib

    from confmig.bench.pinning import plan_cpus
    from confmig.bench.runner import _Runner
    from confmig.bench.ui import SilentUI

    options = BenchOptions(size=size, mpms=("event",))
    with contextlib.ExitStack() as stack:
        runner = _Runner(options, SilentUI(), _Bytes(requests, nbytes),  # type: ignore[arg-type]
                         plan_cpus(), tmp_path, stack)
        cond = Condition(10, "event", True, 200, "deepest", size)
        record = runner.measure("nginx", "nginx", "http://127.0.0.1:1", ["/0.foo"], cond, 0)
    assert record.error == error
    summary, = summarize_runs([record], "apache-htaccess")
    if error is None:
        assert summary.mb_per_s is not None
        assert summary.mb_per_s.median == pytest.approx(nbytes / 5.0 / 1e6)
        # no latency from a run in which no request completed
        assert ("mean" in summary.latency_ms) == (requests > 0)
    else:
        assert summary.failed_runs == 1 and summary.mb_per_s is None

"""A tiny benchmark end to end on real servers: depth 2, one-second runs, one repetition."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.bench import BenchOptions, run_bench
from confmig.bench.targets import TARGETS, ApacheHttpdTarget
from confmig.bench.tree import expected_htaccess_opens
from confmig.cli import app
from confmig.servers import ApacheServer, ManagedServer

pytestmark = [pytest.mark.apache, pytest.mark.usefixtures("apache")]


def test_tiny_bench_via_the_command_line(tmp_path: Path) -> None:
    json_path, html_path = tmp_path / "bench.json", tmp_path / "bench.html"
    result = CliRunner().invoke(app, [
        "bench", "--depth", "2", "--files", "6", "--duration", "1s", "--repeat", "1",
        "--mpm", "event", "--json", str(json_path), "--html", str(html_path)])
    assert result.exit_code == 0, result.output
    assert "AllowOverride None / All" in result.output
    data = json.loads(json_path.read_text())

    assert data["schema"] == "confmig-bench/1"
    assert data["options"]["depths"] == [2] and data["options"]["repeat"] == 1
    assert data["meta"]["client"]["name"] in ("wrk", "ab", "builtin")
    assert data["meta"]["apache"]
    (group,) = data["groups"]
    assert (group["depth"], group["mpm"]) == (2, "event")
    assert group["url_count"] == 6
    targets = {t["name"]: t for t in group["targets"]}
    assert list(targets) == ["apache-htaccess", "apache-httpd"]

    runs = [r for r in data["runs"] if r["kind"] == "measure"]
    assert {r["target"] for r in runs} == set(targets)
    for name, target in targets.items():
        # every target was verified against the baseline before any of its runs
        assert target["started"] and target["verified"], target
        assert target["check"]["ok"] and target["check"]["checked"] == 6
        first_run = min(r["seq"] for r in runs if r["target"] == name)
        assert target["check"]["seq"] < first_run
    for run in runs:
        assert run["rps"] > 0 and run["requests"] > 0 and run["errors"] == {}
        assert {"p50", "p90", "p99"} <= set(run["latency_ms"])
        assert run["depth"] == 2 and run["concurrency"] == 10 and run["keepalive"] is True
    assert len(data["ceilings"]) == 1 and data["ceilings"][0]["rps"] > 0

    summaries = {s["target"]: s for s in data["summaries"]}
    assert summaries["apache-htaccess"]["ratio_to_baseline"] is None
    ratio = summaries["apache-httpd"]["ratio_to_baseline"]
    assert ratio["n"] == 1 and ratio["median"] > 0

    base_sc, conv_sc = targets["apache-htaccess"]["syscalls"], targets["apache-httpd"]["syscalls"]
    if base_sc["available"]:
        assert base_sc["htaccess_opens_per_request"] == expected_htaccess_opens(2)
        assert conv_sc["htaccess_opens_per_request"] == 0
    else:
        assert base_sc["reason"]

    html = html_path.read_text()
    assert "<svg" in html and not re.search(r"https?://", html)


class _ForgetfulTarget(ApacheHttpdTarget):
    """AllowOverride None without the converted fragment: fast, and wrong."""

    name = "apache-forgetful"
    description = "AllowOverride None, .htaccess content dropped"

    def prepare(self) -> None:
        self.fragment = ""

    def make_server(self) -> ManagedServer:
        return ApacheServer(self.ctx.docroot, allow_override="None", mpm=self.ctx.mpm,
                            cpus=self.ctx.cpus)


def test_a_target_answering_differently_is_not_measured(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setitem(TARGETS, _ForgetfulTarget.name, _ForgetfulTarget)
    options = BenchOptions(depth=1, files=2, targets=("apache-htaccess", "apache-forgetful"),
                           mpms=("event",), duration_s=1.0, repeat=1, warmup_s=0,
                           strace=False)
    report = run_bench(options)
    (wrong,) = report.mismatched_targets
    assert wrong.name == "apache-forgetful" and not wrong.verified
    assert wrong.check is not None
    assert any("x-confmig-bench" in str(d["what"]) for d in wrong.check.differences)
    assert {r.target for r in report.runs} == {"apache-htaccess"}

"""``confmig bench --quick``: every target available on this machine, measured (or reported as
not measured, with the reason) — the CI-sized bench.

Its 20-second budget is checked on what the run plans (runs × seconds per run), which does not
depend on how busy the machine is; the wall time is printed, and only a hang fails on it (speed
targets are figures printed by bench/, not timed assertions)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.bench.options import QUICK
from confmig.bench.targets import BASELINE, TARGETS
from confmig.cli import app

pytestmark = [pytest.mark.apache, pytest.mark.usefixtures("apache")]
QUICK_LIMIT_S = 20.0
HANG_LIMIT_S = 300.0


def test_quick_bench_with_every_target(tmp_path: Path) -> None:
    json_path, html_path = tmp_path / "quick.json", tmp_path / "quick.html"
    started = time.monotonic()
    result = CliRunner().invoke(app, ["bench", "--quick", "--json", str(json_path),
                                      "--html", str(html_path)])
    elapsed = time.monotonic() - started
    assert "Traceback" not in result.output, result.output
    data = json.loads(json_path.read_text())
    (group,) = data["groups"]
    targets = {t["name"]: t for t in group["targets"]}
    assert list(targets) == list(TARGETS)  # --quick asks for all of them
    measured = {r["target"] for r in data["runs"] if r["kind"] == "measure" and r["rps"] > 0}
    mismatched = []
    for name, target in targets.items():
        unavailable = TARGETS[name].unavailable_reason()
        if name == "nginx-handwritten" and unavailable is None:  # no --nginx-config given
            unavailable = "needs --nginx-config FILE (the hand-written nginx configuration)"
        if unavailable is not None:  # reported, not skipped silently
            assert target["error"] == unavailable and name not in measured
        elif target["verified"]:
            assert name in measured, name
            assert {"mean", "p50", "p90", "p99"} <= set(
                next(s for s in data["summaries"] if s["target"] == name)["latency_ms"])
        else:
            # only where its converter announced what it does not reproduce
            assert target["check"] and not target["check"]["ok"], target
            assert target["details"].get("untranslatable", 0) > 0, target
            assert "answers differently" in target["error"] and name not in measured
            mismatched.append(name)
    assert BASELINE in measured
    assert result.exit_code == (1 if mismatched else 0), result.output
    assert "capacity at the measured response size" in result.output
    assert "Capacity in operators" in html_path.read_text()
    planned = len(data["runs"]) * (QUICK.duration_s + QUICK.warmup_s)
    print(f"--quick: {len(data['runs'])} runs planned {planned:.1f} s, took {elapsed:.1f} s")
    assert planned < QUICK_LIMIT_S, f"--quick plans {planned:.1f} s of measuring"
    assert elapsed < HANG_LIMIT_S, f"--quick took {elapsed:.1f} s"

"""The speed scripts in bench/ run and print their figures (what they measure is not asserted:
speed targets are benchmarks, not tests)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus import CORPUS

ROOT = Path(__file__).resolve().parents[2]


def test_explain_speed_prints_both_workloads_and_the_yardstick() -> None:
    if not (CORPUS / "h5bp-server-configs-apache" / "dist" / ".htaccess").is_file():
        pytest.skip(f"the shared corpus is not at {CORPUS}")
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "explain_speed.py"),
                          "--seconds", "0.6"], capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), run.stderr  # 1: below the target on a busy machine
    for name in ("h5bp", "depth-10"):
        line = next(line for line in run.stdout.splitlines() if line.startswith(name))
        rate = int(re.search(r"([\d,]+) requests per CPU-second", line)[1].replace(",", ""))
        assert rate > 0 and "median of" in line and "without explanation" in line
    assert "yardstick: sum(range(1000)) takes" in run.stdout


def test_replay_speed_prints_its_figure() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "replay_speed.py"),
                          "--lines", "3000", "--distinct", "300"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    line = run.stdout.splitlines()[0]
    rate = int(re.search(r"([\d,]+) requests per CPU-second", line)[1].replace(",", ""))
    assert rate > 0 and "3000 lines" in line and "distinct requests" in line

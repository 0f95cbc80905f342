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


def test_startup_speed_prints_wall_times_imports_and_the_targets() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "startup_speed.py"),
                          "--runs", "1", "--top", "3"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("load average ")
    for name in ("lint --no-cache --no-config FILE", "lint FILE", "explain", "parse", "--help"):
        at = next(i for i, line in enumerate(lines) if line.startswith(f"confmig {name}"))
        wall = int(re.search(r"wall median +(\d+) ms", lines[at])[1])
        assert wall > 0 and "1 runs" in lines[at]
        imports = re.search(r"imports (\d+) ms, (\d+) modules \((\d+) of confmig's; rich "
                            r"(in|not) among them\); largest \(ms, cumulative\): (.+)",
                            lines[at + 1])
        assert int(imports[1]) > 0 and int(imports[2]) > int(imports[3]) > 0
        assert imports[5].count(",") == 2  # --top 3
    # the floors under a lint: Python, the standard library, lint's modules imported alone
    split = next(line for line in lines if line.startswith("lint of one file, "))
    assert re.fullmatch(r"lint of one file, \d+ ms of CPU \(medians\) = Python \d+ \+ the "
                        r"standard library confmig uses -?\d+ \+ the rest of lint's imports "
                        r"-?\d+ \+ the lint itself -?\d+", split), split
    # the commands really ran: lint finished (0 clean, 1 findings; never 2), --help exits 0
    assert any(line.startswith("confmig lint FILE") and re.search(r"exit [01]$", line)
               for line in lines)
    assert any(line.startswith("confmig --help") and line.endswith("exit 0") for line in lines)
    assert any(line.startswith(("gixy-next on one nginx config / confmig lint of one file:",
                                "gixy-next: not measured"))
               for line in lines)
    assert any(re.match(r"pre-commit on 50 \.htaccess files: [\d.]+ s", line)
               or line.startswith("pre-commit: not measured") for line in lines)

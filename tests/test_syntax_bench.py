"""bench/parse_big_file.py runs and prints its figures (a smoke test: the speed and memory
targets are benchmarks, not assertions; see bench/README.md)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_parse_big_file_prints_time_and_memory_per_shape() -> None:
    run = subprocess.run([sys.executable, str(ROOT / "bench" / "parse_big_file.py"),
                          "--size-mb", "0.05", "--shapes", "directives,sections"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("fixed cost: confmig parse --format json on a one-line file:")
    for shape in ("directives", "sections"):
        line = next(x for x in lines if x.startswith(f"{shape}: "))
        figures = re.search(r"= ([\d.]+) s in process, peak allocated ([\d.]+) MB = ([\d.]+)x "
                            r"the file .*command ([\d.]+) s wall", line)
        assert figures is not None, line
        assert all(float(x) > 0 for x in figures.groups())


def test_parse_json_of_a_1_mb_file_is_bounded(tmp_path: Path) -> None:
    """Issue 10: ``parse --format json`` on 1 MB took 25-45 s and 0.8-1.8 GB.  Bounds far
    above today's figures (about 2 s and 100 MB) that the old code missed by far."""
    big = tmp_path / ".htaccess"
    big.write_bytes(b"<Files a>\nHeader set A b\n</Files>\n" * 30_000)
    probe = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
             "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
             "print(r.returncode, time.perf_counter() - t, "
             "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    run = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "confmig",
                          "parse", "--format", "json", str(big)],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    code, seconds, max_rss_kib = run.stdout.split()
    assert code == "0", run.stderr
    assert int(max_rss_kib) < 400 * 1024
    assert float(seconds) < 20

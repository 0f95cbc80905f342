"""Parse speed and memory on one large ``.htaccess`` file (issue 10: a 1 MB file took 25 s
and 844 MB with ``confmig parse --format json``; the target is under 1 s and under 10x the
file size).

Usage: python bench/parse_big_file.py [--size-mb 1] [--shapes directives,sections,h5bp]

For each shape it writes a file of about ``--size-mb`` MB and prints:

* in process: the time to load it (read, parse, loader) and to build and serialise the JSON
  document ``confmig parse --format json`` prints, and the peak of memory allocated during
  that (tracemalloc, on a second run), as a multiple of the file size;
* the command itself: wall time and the peak resident size of
  ``python -m confmig parse --format json FILE`` (interpreter start-up included), and the
  same for a one-line file, the fixed cost.

Shapes: ``directives`` — one short quoted directive per line (the densest tree: one node per
21 bytes); ``sections`` — small ``<Files>`` blocks; ``h5bp`` — the h5bp ``.htaccess`` from the
shared corpus, repeated (mostly comments, as real files are).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from confmig.load import load_path
from confmig.load.report import workspace_json_chunks

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
H5BP = CORPUS / "h5bp-server-configs-apache" / "dist" / ".htaccess"


def make_text(shape: str, size: int) -> bytes | None:
    if shape == "directives":
        unit = b'Header set X-A "b c"\n'
    elif shape == "sections":
        unit = b"<Files a>\nHeader set A b\n</Files>\n"
    elif shape == "h5bp":
        if not H5BP.is_file():
            return None
        unit = H5BP.read_bytes()
    else:
        raise SystemExit(f"unknown shape {shape!r}")
    return unit * max(1, size // len(unit))


def in_process(path: Path) -> tuple[float, float, int, int]:
    """(load seconds, JSON seconds, peak bytes allocated, JSON length): timed on a plain run
    (tracemalloc slows allocation down several times), memory on a second, traced run."""
    start = time.perf_counter()
    workspace = load_path(path)
    loaded = time.perf_counter()
    length = sum(map(len, workspace_json_chunks(workspace)))  # as the command writes it
    done = time.perf_counter()
    del workspace
    tracemalloc.start()
    workspace = load_path(path)
    sum(map(len, workspace_json_chunks(workspace)))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return loaded - start, done - loaded, peak, length


def command(path: Path) -> tuple[float, int]:
    """(wall seconds, peak RSS in KiB) of ``confmig parse --format json`` in a fresh child."""
    argv = [sys.executable, "-c",
            "import resource, subprocess, sys, time; t = time.perf_counter(); "
            "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=False); "
            "print(time.perf_counter() - t, "
            "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)",
            sys.executable, "-m", "confmig", "parse", "--format", "json", str(path)]
    out = subprocess.run(argv, capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[1]).stdout.split()
    return float(out[0]), int(out[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=1.0)
    parser.add_argument("--shapes", default="directives,sections,h5bp")
    args = parser.parse_args(argv)
    size = int(args.size_mb * 1_000_000)
    with tempfile.TemporaryDirectory(prefix="confmig-bench-") as tmp:
        tiny = Path(tmp) / "tiny.htaccess"
        tiny.write_bytes(b"Options -Indexes\n")
        base_wall, base_rss = command(tiny)
        print(f"fixed cost: confmig parse --format json on a one-line file: {base_wall:.2f} s, "
              f"peak RSS {base_rss / 1024:.0f} MiB")
        for shape in args.shapes.split(","):
            data = make_text(shape, size)
            if data is None:
                print(f"{shape}: skipped (no shared corpus at {CORPUS})")
                continue
            path = Path(tmp) / f"{shape}.htaccess"
            path.write_bytes(data)
            load_s, json_s, peak, out_len = in_process(path)
            wall, rss = command(path)
            lines = data.count(b"\n")
            print(f"{shape}: {len(data):,} bytes, {lines:,} lines: "
                  f"load {load_s:.2f} s + JSON {json_s:.2f} s = {load_s + json_s:.2f} s in "
                  f"process, peak allocated {peak / 1e6:.1f} MB = {peak / len(data):.1f}x the "
                  f"file (JSON {out_len / 1e6:.1f} MB); command {wall:.2f} s wall, peak RSS "
                  f"{rss / 1024:.0f} MiB (+{(rss - base_rss) / 1024:.0f} MiB over the fixed "
                  f"cost)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Log replay speed: requests of an access log evaluated per CPU-second.

Usage: python bench/replay_speed.py [--lines 50000] [--distinct 2000]

The depth-10 tree of ``bench/explain_speed.py`` (an ``.htaccess`` at every level) and a
generated Combined Log Format file whose lines draw from *distinct* different requests (files
at every depth, misses, query strings, two user agents), as real logs repeat themselves.
``confmig explain --requests`` evaluates each distinct request once, with its explanation (the
summary needs to know which directives fired), and shares the answer with the lines that repeat
it; the figure is lines per CPU-second of this process, reading and summary included.
Target (issue 17): at least 20,000 requests per CPU-second.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.explain_speed import deep_site
from confmig.model.explain import load_workspace
from confmig.replay.command import run_replay

TARGET = 20_000


def write_log(path: Path, urls: list[str], lines: int, distinct: int, seed: int = 1) -> None:
    rng = random.Random(seed)
    agents = ("Mozilla/5.0", "curl/8.5")
    pool = [f"{urls[n % len(urls)]}?id={n}" if n >= len(urls) else urls[n]
            for n in range(distinct)]
    with path.open("w") as handle:
        for n in range(lines):
            url = pool[rng.randrange(len(pool))]
            handle.write(f'127.0.0.1 - - [26/Nov/2026:07:{n // 60 % 60:02d}:{n % 60:02d} '
                         f'+0000] "GET {url} HTTP/1.1" 200 512 "-" "{agents[n % 2]}"\n')


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=50_000)
    parser.add_argument("--distinct", type=int, default=2_000)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="confmig-replay-"))
    try:
        urls = deep_site(root / "site")
        log = root / "access.log"
        write_log(log, urls, args.lines, args.distinct)
        workspace = load_workspace(root / "site", None)
        start = time.process_time()
        summary = run_replay(workspace, log, json_lines=None)
        spent = time.process_time() - start
    finally:
        shutil.rmtree(root, ignore_errors=True)
    rate = summary.total / spent if spent else float("inf")
    print(f"replay: {summary.total} lines ({summary.distinct} distinct requests) in "
          f"{spent:.2f} CPU-s: {rate:,.0f} requests per CPU-second "
          f"({'meets' if rate >= TARGET else 'below'} the {TARGET:,} target)")
    print("statuses: " + ", ".join(f"{k}×{v}" for k, v in sorted(summary.statuses.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

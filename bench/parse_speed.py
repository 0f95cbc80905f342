"""Parse speed: confmig vs apacheconfig vs merely reading the files (one core).

Usage: python bench/parse_speed.py [--files 10000] [--repeat 3]

Prints lines/s for the shared corpus and for a generated tree of `.htaccess`
files.  The target (issue 2) is at least 2x apacheconfig's parse on one core.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.trees import make_htaccess_tree
from confmig.syntax import parse_text
from confmig.syntax.parser import decode

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "MANIFEST.tsv"
                  and "h5bp-server-configs-nginx" not in p.parts)


def best_of(repeat: int, fn) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def read_all(paths: list[Path]) -> list[str]:
    return [decode(p.read_bytes()) for p in paths]


def confmig_parse(paths: list[Path]) -> None:
    for p in paths:
        parse_text(decode(p.read_bytes()), str(p))


def apacheconfig_parse(texts: list[str]) -> int:
    try:
        import apacheconfig
    except ImportError:
        return -1
    failures = 0
    with apacheconfig.make_loader() as loader:
        for text in texts:
            try:
                loader.loads(text)
            except Exception:  # apacheconfig rejects some valid Apache syntax; count it
                failures += 1
    return failures


def measure(label: str, paths: list[Path], repeat: int) -> None:
    texts = read_all(paths)
    lines = sum(t.count("\n") + 1 for t in texts)
    t_read = best_of(repeat, lambda: read_all(paths))
    t_confmig = best_of(repeat, lambda: confmig_parse(paths))
    failures = apacheconfig_parse(texts)
    t_apacheconfig = best_of(max(1, repeat // 2), lambda: apacheconfig_parse(texts))
    print(f"\n{label}: {len(paths)} files, {lines} lines")
    print(f"  read only         {lines / t_read:>12,.0f} lines/s")
    print(f"  confmig parse     {lines / t_confmig:>12,.0f} lines/s")
    if failures >= 0:
        print(f"  apacheconfig      {lines / t_apacheconfig:>12,.0f} lines/s"
              f"   ({failures} files it could not parse)")
        print(f"  confmig / apacheconfig: {t_apacheconfig / t_confmig:.2f}x  (target >= 2x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})  # one core, as the target says
    corpus = corpus_files()
    if corpus:
        measure("shared corpus (Apache files)", corpus, args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        tree = make_htaccess_tree(Path(tmp), args.files)
        measure(f"generated tree ({args.files} .htaccess files)", tree, args.repeat)


if __name__ == "__main__":
    main()

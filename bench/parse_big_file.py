"""Time and memory of parse, lint and ``parse --format json`` on one large ``.htaccess``
(issue 10: a 1 MB file took 25-31 s and 844 MB; the target is under 1 s and under 10x the
file size, linear in the size).

Usage: python bench/parse_big_file.py [--size-mb 1] [--shapes all|NAME,...] [--no-command]
       python bench/parse_big_file.py --traced {parse,lint,json} FILE [--memory-only]

For each shape it writes a file of about ``--size-mb`` MB and prints, for each of the three
commands:

* ``traced``: the peak of Python's allocations while the command's work runs in a fresh
  process (``tracemalloc``, started after a warm-up on the file's first 4 KB, so that imports
  are not counted), as a multiple of the file size — deterministic, what
  ``tests/test_syntax_bench.py`` bounds — and the time of the same work untraced;
* ``command``: wall time and peak resident size of the command itself
  (``python -m confmig parse|lint --format json --no-config FILE``, interpreter start-up
  included), and that peak minus the same command's on a one-line file (the fixed cost), as
  a multiple of the file size.

``lint`` is ``lint --no-cache --format json`` (the text reporter prints five lines per
finding; its cost is the console's, not the linter's).  ``--traced`` measures one command on
one file and prints ``seconds peak_bytes file_bytes`` (what the test runs).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPUS = ROOT.parent / "shared" / "corpus"
H5BP = CORPUS / "h5bp-server-configs-apache" / "dist" / ".htaccess"

# name -> (what it is, one unit of text; {i} is the unit's number)
SHAPES: dict[str, tuple[str, str]] = {
    "directives": ("one short quoted directive per line, the same line repeated",
                   'Header set X-A "b c"\n'),
    "distinct": ("one short directive per line, every line different",
                 'Header set X-{i} "b c"\n'),
    "sections": ("three-line <Files> blocks (a node per 11 bytes)",
                 "<Files a>\nHeader set A b\n</Files>\n"),
    "templates": ("the bench tree's three templates, numbered (IfModule, rewrite, headers, "
                  "expiry, 2.2 access control)", ""),
    "rewrite": ("distinct RewriteRule lines", "RewriteRule ^p{i}/(.*)$ /x{i}.php?q=$1 [L,QSA]\n"),
    "rewrite-on": ("the rewrite shape after a RewriteEngine On line (SEC002's requests run "
                   "every rule)", ""),
    "comments": ("comment lines", "# comment {i} lorem ipsum dolor sit amet\n"),
    "h5bp": ("the h5bp .htaccess of the shared corpus, repeated (mostly comments, as real "
             "files are)", ""),
    "blank": ("blank lines (a byte a line)", "\n"),
    "hashes": ("empty comment lines (two bytes a line)", "#\n"),
    "if": ("three-line <If> blocks, a regex expression and a Header line each, numbered",
           '<If "%{{QUERY_STRING}} =~ /q{i}/">\nHeader set Y {i}\n</If>\n'),
    "setenvif": ("distinct SetEnvIfNoCase lines with a regex",
                 'SetEnvIfNoCase User-Agent "^Bot{i}[0-9]+" bot{i}\n'),
    "quoted-headers": ("distinct Header always set lines with quoted distinct values",
                       'Header always set X-{i} "a {i} c"\n'),
    "require-ip": ("distinct Require ip lines ({a}.{b}: the unit's number as two bytes)",
                   "Require ip 10.{a}.{b}.0/24\n"),
    "redirect": ("distinct Redirect lines", "Redirect 301 /a{i} /b{i}\n"),
    "requireall": ("four-line <RequireAll> blocks, numbered",
                   "<RequireAll>\nRequire all granted\nRequire not ip 10.{a}.{b}.1\n"
                   "</RequireAll>\n"),
    "allow": ("distinct Allow from lines (mod_access_compat)", "Allow from 10.{a}.{b}.0/24\n"),
    "rewritecond": ("RewriteEngine On, distinct RewriteCond [OR] lines, one RewriteRule at the end",
                    "RewriteCond %{{HTTP:X-{i}}} ^v{i}$ [OR]\n"),
}
COMMANDS = ("parse", "lint", "json")


def make_text(shape: str, size: int) -> bytes | None:
    """About ``size`` bytes of ``shape`` (None: its source is not on this machine)."""
    if shape == "h5bp":
        if not H5BP.is_file():
            return None
        unit = H5BP.read_bytes()
        return unit * max(1, size // len(unit))
    if shape == "rewrite-on":
        rules = make_text("rewrite", size)
        return None if rules is None else b"RewriteEngine On\n" + rules
    if shape == "rewritecond":
        rule = b"RewriteRule ^ - [F]\n"
        conds = _units([SHAPES[shape][1]], size - len(rule) - 17)
        return b"RewriteEngine On\n" + conds + rule
    if shape == "templates":
        from bench.trees import TEMPLATES

        units = TEMPLATES
    elif shape in SHAPES:
        units = [SHAPES[shape][1]]
    else:
        raise SystemExit(f"unknown shape {shape!r}; known: {', '.join(SHAPES)}")
    return _units(units, size)


def _units(units: list[str], size: int) -> bytes:
    """The ``units`` in turn, numbered, until about ``size`` bytes."""
    out: list[str] = []
    total = i = 0
    while total < size:
        unit = units[i % len(units)]
        text = (unit.format(i=i, a=i // 256 % 256, b=i % 256)
                if "{i}" in unit or "{a}" in unit or "{{" in unit else unit)
        out.append(text)
        total += len(text)
        i += 1
    return "".join(out).encode()


def _work(command: str, path: Path, ignore: tuple[str, ...] = ()) -> Callable[[], object]:
    """What ``confmig parse|lint|parse --format json`` does with ``path``, in process
    (lint without the rules of ``ignore``)."""
    if command == "lint":
        from confmig.lint.config import Settings
        from confmig.lint.engine import lint_paths

        settings = Settings(cache=False, ignore=ignore)
        return lambda: lint_paths([path], settings=settings, jobs=1).findings
    from confmig.load import load_path

    if command == "json":
        from confmig.load.report import workspace_json_chunks

        return lambda: sum(map(len, workspace_json_chunks(load_path(path))))
    return lambda: load_path(path)


def _import_what_the_work_may_use() -> None:
    """Import every module of the packages a parse or lint may load.  confmig imports the
    rewrite engine, the expression model and a rule's module only when a file needs them
    (issue 17), so the 4 KB warm-up no longer loads them all; an import is a fixed cost, not
    memory the file's size makes, and is not counted."""
    import importlib
    import pkgutil

    for name in ("confmig.syntax", "confmig.load", "confmig.model", "confmig.lint"):
        package = importlib.import_module(name)
        for module in pkgutil.walk_packages(package.__path__, prefix=f"{name}."):
            importlib.import_module(module.name)


def traced(command: str, path: Path, timed: bool = True, ignore: tuple[str, ...] = ()
           ) -> tuple[float, int, int]:
    """(seconds untraced, peak bytes traced, file bytes) of ``command`` on ``path``; a warm-up
    on the file's first 4 KB first, so that imports and first-use caches are not counted.
    Not ``timed``: no untraced run (seconds 0)."""
    data = path.read_bytes()
    _import_what_the_work_may_use()
    with tempfile.TemporaryDirectory(prefix="confmig-warm-") as tmp:
        small = Path(tmp) / path.name
        cut = data.rfind(b"\n", 0, 4096) + 1
        small.write_bytes(data[:cut] or data[:4096])
        _work(command, small, ignore)()
    work = _work(command, path, ignore)
    seconds = 0.0
    if timed:
        start = time.perf_counter()
        work()
        seconds = time.perf_counter() - start
    tracemalloc.start()
    work()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return seconds, peak, len(data)


def traced_in_child(command: str, path: Path) -> tuple[float, int, int]:
    """:func:`traced` in a fresh interpreter (nothing of this process's heap counted)."""
    run = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--traced", command,
                          str(path)], capture_output=True, text=True, check=True, cwd=ROOT)
    seconds, peak, size = run.stdout.split()
    return float(seconds), int(peak), int(size)


def command_run(command: str, path: Path) -> tuple[float, int]:
    """(wall seconds, peak RSS in KiB) of the confmig command in a fresh child."""
    argv = {"parse": ["parse", "--no-config"],
            "json": ["parse", "--format", "json", "--no-config"],
            "lint": ["lint", "--no-cache", "--no-config", "--format", "json"]}[command]
    probe = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
             "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=False); "
             "print(time.perf_counter() - t, "
             "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, sys.executable, "-m", "confmig", *argv,
                          str(path)], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout.split()
    return float(out[0]), int(out[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=float, default=1.0)
    parser.add_argument("--shapes", default="all")
    parser.add_argument("--no-command", action="store_true",
                        help="only the in-process figures (no confmig command run)")
    parser.add_argument("--traced", nargs=2, metavar=("COMMAND", "FILE"),
                        help="measure one command on one file; print seconds, peak, size")
    parser.add_argument("--memory-only", action="store_true",
                        help="with --traced: no untraced run (seconds printed as 0)")
    parser.add_argument("--ignore", default="",
                        help="with --traced lint: rule codes left out (comma-separated)")
    args = parser.parse_args(argv)
    if args.traced:
        command, file = args.traced
        if command not in COMMANDS:
            parser.error(f"--traced: one of {', '.join(COMMANDS)}")
        ignore = tuple(c for c in args.ignore.split(",") if c)
        seconds, peak, size = traced(command, Path(file), timed=not args.memory_only,
                                     ignore=ignore)
        print(f"{seconds:.4f} {peak} {size}")
        return 0
    size = int(args.size_mb * 1_000_000)
    shapes = list(SHAPES) if args.shapes == "all" else args.shapes.split(",")
    with tempfile.TemporaryDirectory(prefix="confmig-bench-") as tmp:
        base: dict[str, int] = {}
        if not args.no_command:
            tiny = Path(tmp) / "tiny" / ".htaccess"
            tiny.parent.mkdir()
            tiny.write_bytes(b"Options -Indexes\n")
            for command in COMMANDS:
                wall, base[command] = command_run(command, tiny)
                print(f"fixed cost of {command} on a one-line file: {wall:.2f} s, "
                      f"peak RSS {base[command] / 1024:.0f} MiB")
        for shape in shapes:
            data = make_text(shape, size)
            if data is None:
                print(f"{shape}: skipped (no shared corpus at {CORPUS})")
                continue
            path = Path(tmp) / shape / ".htaccess"
            path.parent.mkdir()
            path.write_bytes(data)
            lines = data.count(b"\n")
            print(f"{shape}: {len(data):,} bytes, {lines:,} lines "
                  f"({SHAPES[shape][0]})")
            for command in COMMANDS:
                seconds, peak, _ = traced_in_child(command, path)
                line = (f"  {command:5}  traced: {seconds:5.2f} s, peak {peak / 1e6:6.1f} MB = "
                        f"{peak / len(data):4.1f}x the file")
                if not args.no_command:
                    wall, rss = command_run(command, path)
                    extra = (rss - base[command]) * 1024
                    line += (f"   command: {wall:5.2f} s wall, peak RSS {rss / 1024:4.0f} MiB "
                             f"(+{extra / 1e6:5.1f} MB = {extra / len(data):4.1f}x the file)")
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

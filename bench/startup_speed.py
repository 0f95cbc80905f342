"""Startup speed: wall time of one ``confmig`` command, and what its imports cost (issue 17).

Usage: python bench/startup_speed.py [--runs 7] [--gixy PATH] [--no-pre-commit]

As a pre-commit hook, in an editor and in shell loops the whole run of one command is the
product, so this measures processes, not functions:

* ``lint FILE`` (``--no-cache --no-config``: the parse and every rule, nothing cached, and
  ``lint FILE`` as a user types it: the cache and the server's own configuration consulted),
  ``explain``, ``parse`` and ``--help``, each run ``--runs`` times: median and fastest wall
  time, and the median CPU time (user + system) of the process;
* for each, one run under ``python -X importtime``: the time spent importing and the largest
  top-level imports, so a regression names its module;
* Gixy-Next on one nginx configuration in the same run, when it is installed (``--gixy`` or
  ``gixy`` on ``PATH``; install it into a throwaway venv, it is no dependency of confmig):
  the target is lint of one file at least 3x faster;
* ``pre-commit run --all-files`` on a git repository with 50 ``.htaccess`` files, the hook
  being the one ``.pre-commit-hooks.yaml`` publishes (its entry and ``require_serial``) run
  from this checkout as a local ``language: system`` hook (so pre-commit installs nothing):
  the target is under 1 s;
* the floors under those figures, measured the same way: Python's own start (``-c pass``,
  ``-S``, ``-I``), the standard library modules confmig's code is written with (dataclasses,
  enum, typing, re, pathlib, json…), rich on top of them (which lint off a terminal no
  longer imports), and every module the lint of one file imports, imported and nothing run
  — what no change inside confmig's functions can take off a lint run, against the
  3x-Gixy-Next budget;
* the dataclasses the lint of one file makes, and the time ``@dataclass`` takes to make
  them (it writes and compiles ``__init__``, ``__repr__``, ``__eq__`` and, for a frozen
  class, ``__setattr__``, ``__delattr__`` and ``__hash__`` at import): most of what
  importing confmig's own modules costs.

The commands run with byte-compiled modules, as an installed package has them: a private
``PYTHONPYCACHEPREFIX`` under the temp dir, filled by a warm-up run (``PYTHONDONTWRITEBYTECODE``
is removed for the children only).  Wall time on a shared machine depends on its load, which is
printed beside the figures.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GIXY_FACTOR = 3.0
PRE_COMMIT_TARGET = 1.0  # seconds, 50 files
PRE_COMMIT_FILES = 50

HTACCESS = """\
Options -Indexes +FollowSymLinks
DirectoryIndex index.php index.html
ErrorDocument 404 /index.php
<IfModule mod_rewrite.c>
    RewriteEngine On
    RewriteBase /
    RewriteRule ^index\\.php$ - [L]
    RewriteCond %{REQUEST_FILENAME} !-f
    RewriteCond %{REQUEST_FILENAME} !-d
    RewriteRule . /index.php [L]
</IfModule>
<IfModule mod_headers.c>
    Header always set X-Content-Type-Options nosniff
</IfModule>
<FilesMatch "\\.(bak|sql|swp)$">
    Require all denied
</FilesMatch>
"""

NGINX_CONF = """\
events {}
http {
    server {
        listen 80;
        server_name example.com;
        root /var/www;
        index index.php index.html;
        location / { try_files $uri $uri/ /index.php?$args; }
        location ~ \\.(bak|sql|swp)$ { deny all; }
        add_header X-Content-Type-Options nosniff always;
    }
}
"""

IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")

# The standard library modules every lint run imports for confmig's own code (its modules are
# dataclasses with enums and type hints, paths and regexes), and rich on top (the output).
STDLIB = "import dataclasses, inspect, enum, typing, re, pathlib, json, collections, functools"
FLOORS = {
    "python -S -c pass (no site)": ["-S", "-c", "pass"],
    "python -I -c pass (isolated)": ["-I", "-c", "pass"],
    "python -c pass": ["-c", "pass"],
    "python -c 'import <stdlib confmig uses>'": ["-c", STDLIB],
    "  … and rich.console, rich.table": ["-c", STDLIB + "; import rich.console, rich.table, "
                                                      "rich.markup"],
}
STDLIB_FLOOR = "python -c 'import <stdlib confmig uses>'"
IMPORTS_FLOOR = "python: lint's modules imported, nothing run"


@dataclass
class Timing:
    name: str
    walls: list[float]
    cpus: list[float]
    codes: set[int]

    def line(self) -> str:
        return (f"{self.name:<34} wall median {statistics.median(self.walls) * 1000:6.0f} ms "
                f"(fastest {min(self.walls) * 1000:.0f}), CPU median "
                f"{statistics.median(self.cpus) * 1000:.0f} ms, {len(self.walls)} runs, "
                f"exit {','.join(map(str, sorted(self.codes)))}")


def timed_runs(name: str, argv: list[str], runs: int, env: dict[str, str], cwd: Path) -> Timing:
    """*runs* runs of *argv*, each waited for with a blocking ``wait4`` (``subprocess.run``
    with a timeout polls, every 50 ms at most, which would round the wall times up; every
    command ran once with a timeout in the warm-up, so none hangs here)."""
    timing = Timing(name, [], [], set())
    for _ in range(runs):
        start = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        _pid, status, usage = os.wait4(proc.pid, 0)
        timing.walls.append(time.perf_counter() - start)
        proc.returncode = os.waitstatus_to_exitcode(status)
        timing.cpus.append(usage.ru_utime + usage.ru_stime)
        timing.codes.add(proc.returncode)
    return timing


def import_profile(argv: list[str], env: dict[str, str], cwd: Path, top: int
                   ) -> tuple[str, list[str]]:
    """One run under ``-X importtime``: the total of every module's own time and the *top*
    largest imports made at the top level (by the program or inside a function), as a line,
    and the modules the run imported, in the order their imports finished."""
    done = subprocess.run([sys.executable, "-X", "importtime", *argv], env=env, cwd=cwd,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          timeout=120)
    total = 0
    roots: list[tuple[int, str]] = []
    modules: list[str] = []
    for line in done.stderr.splitlines():
        match = IMPORT_LINE.match(line)
        if match is None:
            continue
        total += int(match[1])
        modules.append(match[4])
        if len(match[3]) == 1:  # nesting depth 0: one space before the name
            roots.append((int(match[2]), match[4]))
    roots.sort(reverse=True)
    largest = ", ".join(f"{name} {us / 1000:.0f}" for us, name in roots[:top])
    confmig = sum(1 for m in modules if m == "confmig" or m.startswith("confmig."))
    return (f"    imports {total / 1000:.0f} ms, {len(modules)} modules ({confmig} of "
            f"confmig's; rich {'in' if 'rich' in modules else 'not'} among them); largest "
            f"(ms, cumulative): {largest}", modules)


# Run in a child: the command, then every module it imported (sys.modules at exit, in the
# order the imports began) written to the file named by argv[1], one a line.  ``-X
# importtime`` does not list what ``importlib.import_module`` imports -- the rule modules a
# file needs (confmig.lint.rule.rule_class) -- so the floor is imported from this list.
MODULES_PROBE = """\
import sys
out, sys.argv = sys.argv[1], ["confmig", *sys.argv[2:]]
from confmig.__main__ import main
try:
    main()
except SystemExit:
    pass
with open(out, "w") as f:
    f.write("\\n".join(name for name in sys.modules if name != "__main__"))
"""


def run_modules(argv: list[str], env: dict[str, str], cwd: Path) -> list[str]:
    """Every module ``confmig ARGV`` imports, those ``importlib.import_module`` imports
    included."""
    result = cwd / "modules.txt"
    subprocess.run([sys.executable, "-c", MODULES_PROBE, str(result), *argv], env=env,
                   cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    return result.read_text().splitlines()


def import_only(modules: list[str]) -> list[str]:
    """``python -c`` code importing *modules* and running nothing else (the few names
    ``-X importtime`` lists that are no importable module, e.g. Cython's, are passed
    over)."""
    return ["-c", f"import importlib\nfor name in {modules!r}:\n    try:\n"
                  "        importlib.import_module(name)\n"
                  "    except ImportError:\n        pass\n"]


# Run in a child: every ``@dataclass`` the lint makes, timed in CPU time of the process (wall
# time would count the waits for a CPU of a loaded machine; the decorator is wrapped before any
# confmig module is imported), written to the file named by argv[1] as
# "count frozen slots seconds".
DATACLASS_PROBE = """\
import dataclasses, sys, time
made = []
plain = dataclasses.dataclass
def timed(cls=None, /, **options):
    def wrap(c):
        start = time.process_time()
        out = plain(**options)(c)
        made.append((time.process_time() - start, options))
        return out
    return wrap if cls is None else wrap(cls)
dataclasses.dataclass = timed
out, sys.argv = sys.argv[1], ["confmig", *sys.argv[2:]]
from confmig.__main__ import main
try:
    main()
except SystemExit:
    pass
with open(out, "w") as f:
    f.write(f"{len(made)} {sum(1 for _, o in made if o.get('frozen'))} "
            f"{sum(1 for _, o in made if o.get('slots'))} {sum(t for t, _ in made)}")
"""


def dataclass_cost(argv: list[str], env: dict[str, str], cwd: Path, runs: int) -> str:
    """A line: how many dataclasses the command *argv* makes and how long making them takes
    (the median of *runs* processes)."""
    seconds: list[float] = []
    counts = ""
    for _ in range(runs):
        result = cwd / "dataclasses.txt"
        subprocess.run([sys.executable, "-c", DATACLASS_PROBE, str(result), *argv], env=env,
                       cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=120)
        count, frozen, slots, took = result.read_text().split()
        counts = f"{count} dataclasses ({frozen} frozen, {slots} with slots)"
        seconds.append(float(took))
    return (f"    @dataclass: {counts} made in {statistics.median(seconds) * 1000:.0f} ms "
            f"(median of {runs} runs)")


def write_tree(base: Path) -> dict[str, Path]:
    site = base / "site"
    (site / "one").mkdir(parents=True)
    (site / "one" / ".htaccess").write_text(HTACCESS)
    (site / "one" / "index.php").write_text("<?php\n")
    nginx = base / "nginx.conf"
    nginx.write_text(NGINX_CONF)
    return {"site": site, "file": site / "one" / ".htaccess", "nginx": nginx}


def find_gixy(given: str | None) -> str | None:
    if given:
        return given if Path(given).is_file() else None
    return shutil.which("gixy-next") or shutil.which("gixy")


def pre_commit_run(base: Path, runs: int, env: dict[str, str]) -> Timing | str:
    """``pre-commit run --all-files`` on a fresh repository of 50 ``.htaccess`` files."""
    pre_commit = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) \
        or shutil.which("pre-commit")
    if pre_commit is None or shutil.which("git") is None:
        return "pre-commit: not measured (pre-commit or git is not installed)"
    repo = base / "repo"
    for n in range(PRE_COMMIT_FILES):
        (repo / f"d{n:02d}").mkdir(parents=True)
        (repo / f"d{n:02d}" / ".htaccess").write_text(HTACCESS)
    hook = (ROOT / ".pre-commit-hooks.yaml").read_text()
    entry = re.search(r"^  entry: confmig (.+)$", hook, re.MULTILINE)
    serial = re.search(r"^  require_serial: (\w+)$", hook, re.MULTILINE)
    if entry is None:
        return "pre-commit: not measured (no confmig entry in .pre-commit-hooks.yaml)"
    (repo / ".pre-commit-config.yaml").write_text(  # the published hook, run from here
        "repos:\n  - repo: local\n    hooks:\n      - id: confmig-lint\n"
        "        name: confmig lint\n        language: system\n"
        f"        entry: {sys.executable} -m confmig {entry[1]}\n"
        f"        require_serial: {serial[1] if serial else 'false'}\n"
        "        files: (^|/)\\.htaccess$\n")
    # (no GIT_INDEX_FILE, GIT_DIR… of a caller's git: this repository is its own)
    git_env = {**{k: v for k, v in env.items() if not k.startswith("GIT_")},
               "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com",
               "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.com",
               "PRE_COMMIT_HOME": str(base / "pre-commit-home")}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "tree"]):
        subprocess.run(["git", *args], cwd=repo, env=git_env, check=True, capture_output=True)
    argv = [pre_commit, "run", "--all-files"]
    subprocess.run(argv, cwd=repo, env=git_env, capture_output=True, timeout=300)  # warm-up
    return timed_runs(f"pre-commit run --all-files ({PRE_COMMIT_FILES} files)", argv, runs,
                      git_env, repo)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per command (default 7)")
    parser.add_argument("--gixy", help="the gixy executable (default: gixy-next or gixy on "
                                       "PATH)")
    parser.add_argument("--top", type=int, default=6, help="largest imports shown")
    parser.add_argument("--no-pre-commit", action="store_true",
                        help="skip the pre-commit measurement")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="confmig-startup-") as tmp:
        base = Path(tmp)
        paths = write_tree(base)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = str(base / "pycache")
        env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
        confmig = [sys.executable, "-m", "confmig"]
        file, site = str(paths["file"]), str(paths["site"])
        commands = {
            "lint --no-cache --no-config FILE": ["lint", "--no-cache", "--no-config", file],
            "lint FILE": ["lint", file],
            "explain --no-config --root DIR /": ["explain", "--no-config", "--root", site,
                                                 "http://localhost/one/x"],
            "parse --no-config FILE": ["parse", "--no-config", file],
            "--help": ["--help"],
        }
        for argv in commands.values():  # warm-up: byte-compile, fill the lint cache
            subprocess.run([*confmig, *argv], env=env, cwd=base, capture_output=True,
                           timeout=120)
        load = os.getloadavg()
        print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} "
              f"CPU(s); Python {sys.version.split()[0]}")
        floors: dict[str, Timing] = {}
        for name, argv in FLOORS.items():
            subprocess.run([sys.executable, *argv], env=env, cwd=base, timeout=60)  # warm-up
            floors[name] = timed_runs(name, [sys.executable, *argv], args.runs, env, base)
            print(floors[name].line())
        timings: dict[str, Timing] = {}
        lint_modules: list[str] = []
        for name, argv in commands.items():
            timings[name] = timed_runs(f"confmig {name}", [*confmig, *argv], args.runs, env,
                                       base)
            print(timings[name].line())
            profile, modules = import_profile(["-m", "confmig", *argv], env, base, args.top)
            print(profile)
            if name == "lint --no-cache --no-config FILE":
                lint_modules = run_modules(argv, env, base)
                ours = [m for m in lint_modules if m.split(".")[0] == "confmig"]
                print(f"    all modules at exit: {len(lint_modules)} ({len(ours)} of "
                      f"confmig's, {sum(m.startswith('confmig.lint.rules.') for m in ours)} "
                      f"of them rules'; -X importtime lists {len(modules)}: not what "
                      "importlib.import_module imports)")
                print(dataclass_cost(argv, env, base, args.runs))
        # The floor of this code base: the same modules imported, none of lint's work done.
        floors[IMPORTS_FLOOR] = timed_runs(IMPORTS_FLOOR,
                                           [sys.executable, *import_only(lint_modules)],
                                           args.runs, env, base)
        print(floors[IMPORTS_FLOOR].line())
        steps = [statistics.median(t.cpus) * 1000 for t in (
            floors["python -c pass"], floors[STDLIB_FLOOR], floors[IMPORTS_FLOOR],
            timings["lint --no-cache --no-config FILE"])]
        print(f"lint of one file, {steps[3]:.0f} ms of CPU (medians) = Python {steps[0]:.0f} + "
              f"the standard library confmig uses {steps[1] - steps[0]:.0f} + the rest of "
              f"lint's imports {steps[2] - steps[1]:.0f} + the lint itself "
              f"{steps[3] - steps[2]:.0f}")
        gixy = find_gixy(args.gixy)
        lint = statistics.median(timings["lint --no-cache --no-config FILE"].walls)
        if gixy is None:
            print("gixy-next: not measured (not installed: pip install gixy-next into a "
                  "throwaway venv and pass --gixy VENV/bin/gixy)")
        else:
            subprocess.run([gixy, str(paths["nginx"])], env=env, cwd=base,  # warm-up
                           capture_output=True, timeout=120)
            theirs = timed_runs("gixy-next nginx.conf", [gixy, str(paths["nginx"])],
                                args.runs, env, base)
            print(theirs.line())
            ratio = statistics.median(theirs.walls) / lint
            cpu = (statistics.median(theirs.cpus)
                   / statistics.median(timings["lint --no-cache --no-config FILE"].cpus))
            verdict = "meets" if ratio >= GIXY_FACTOR else "misses"
            print(f"gixy-next on one nginx config / confmig lint of one file: {ratio:.1f}x "
                  f"the wall time ({cpu:.1f}x the CPU time); target >= {GIXY_FACTOR:.0f}x: "
                  f"{verdict} it")
            budget = statistics.median(theirs.walls) / GIXY_FACTOR
            cpu_budget = statistics.median(theirs.cpus) / GIXY_FACTOR
            floor = statistics.median(floors[STDLIB_FLOOR].cpus)
            imports = statistics.median(floors[IMPORTS_FLOOR].cpus)
            print(f"3x budget {budget * 1000:.0f} ms of wall time, {cpu_budget * 1000:.0f} ms "
                  f"of CPU; Python with the standard library confmig uses takes "
                  f"{floor * 1000:.0f} ms of CPU before any confmig module is imported, and "
                  f"{imports * 1000:.0f} ms with every module lint imports")
        if not args.no_pre_commit:
            hook = pre_commit_run(base, args.runs, env)
            if isinstance(hook, str):
                print(hook)
            else:
                print(hook.line())
                median = statistics.median(hook.walls)
                print(f"pre-commit on {PRE_COMMIT_FILES} .htaccess files: {median:.2f} s "
                      f"(target < {PRE_COMMIT_TARGET:.0f} s: "
                      f"{'meets' if median < PRE_COMMIT_TARGET else 'misses'} it)")
        load = os.getloadavg()
        print(f"load average at the end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

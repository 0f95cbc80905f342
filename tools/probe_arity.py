#!/usr/bin/env python3
"""Measure how many arguments every directive takes, by asking a real Apache.

    python tools/probe_arity.py [--apache BINARY] [--out PATH] [--log FILE] [--only NAME ...]

Apache checks a directive's argument count in ``server/config.c`` (``invoke_cmd``) from the
``args_how`` of its ``command_rec``, with fixed messages (``X takes one argument, <help>``,
``X takes 1-2 arguments, <help>``, ``X requires at least two arguments, <help>``, ``X must be
On or Off``, ``X takes no arguments`` ...).  ``RAW_ARGS`` and ``TAKE_ARGV`` directives get
their arguments unchecked and their handler judges them.  So three probes per directive reveal
the type:

``none``
    the directive without arguments: every TAKE*/ITERATE*/FLAG type answers with its fixed
    message (which carries the directive's help text); NO_ARGS and most RAW_ARGS accept it.
``many``
    nine arguments: NO_ARGS answers "takes no arguments"; every TAKE* type repeats its message
    (a consistency check); FLAG says "must be On or Off".
``on_extra``
    ``On x``: a FLAG reads one word and ignores the rest (accepted: extra words "ignored").

(httpd's ``AP_INIT_NO_ARGS`` macro declares RAW_ARGS, so "no arguments" directives such as
SSLRequireSSL accept any words and come out RAW_ARGS: that is what Apache does.)

Every directive of ``confmig/apache/data/directives.json`` whose module Debian ships
(``modules.json``: ``available``) is probed with every shipped module loaded:

* directives allowed in ``.htaccess``: each probe in its own directory's ``.htaccess`` under
  ``AllowOverride All`` of one private Apache on 127.0.0.1, one request each; a failing
  ``.htaccess`` is a 500 with the message in the error log (one server start per MPM needed);
* the others: ``apache2 -t`` on a private config holding only that directive (Apache stops at
  the first error), in the context the registry names (server config, then ``<Directory>``,
  ``<VirtualHost>``, ``<Location>``, ``<Proxy>`` when Apache says "not allowed here"), under
  the MPMs that define it.

Writes ``confmig/apache/data/arity.json`` (``--out``): lower-case name -> ``type`` (one of
:data:`TYPES`, ``RAW_ARGS`` also for TAKE_ARGV, or ``unknown``), ``min``, ``max`` (null:
unbounded), ``message`` (Apache's own error text for a wrong count), ``extra`` (``error`` or
``ignored``: what Apache does with words past ``max``), ``via`` (htaccess / config-test) and,
for RAW_ARGS and unknown, what Apache said to each probe (``seen``).  About 40 s.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from confmig.servers import (  # noqa: E402  (needs the sys.path line above)
    ApacheBinary,
    ApacheServer,
    find_apache,
    http_get,
    make_docroot,
)

DATA = ROOT / "confmig" / "model" / "data"
DEFAULT_OUT = ROOT / "confmig" / "model" / "data" / "arity.json"
MPMS = ("event", "prefork", "worker")

PROBES: dict[str, list[str]] = {
    "none": [],
    "many": ["x"] * 9,
    "on_extra": ["On", "x"],
}

# config.c's fixed messages: type -> (text after the command name, min, max).  The text is
# followed by ", <help>" when the command_rec has help (FLAG and NO_ARGS never print it).
TYPES: dict[str, tuple[str, int, int | None]] = {
    "NO_ARGS": (" takes no arguments", 0, 0),
    "TAKE1": (" takes one argument", 1, 1),
    "TAKE2": (" takes two arguments", 2, 2),
    "TAKE3": (" takes three arguments", 3, 3),
    "TAKE12": (" takes 1-2 arguments", 1, 2),
    "TAKE23": (" takes two or three arguments", 2, 3),
    "TAKE123": (" takes one, two or three arguments", 1, 3),
    "TAKE13": (" takes one or three arguments", 1, 3),
    "ITERATE": (" requires at least one argument", 1, None),
    "ITERATE2": (" requires at least two arguments", 2, None),
    "FLAG": (" must be On or Off", 1, 1),
}

UNKNOWN = re.compile(r"^Invalid command '")
NOT_HERE = re.compile(r" not allowed here$| not allowed in <\S+> context$")

# Where a directive that is not allowed in .htaccess is put for ``apache2 -t``.
CONTEXTS: dict[str, tuple[str, str]] = {
    "server config": ("", ""),
    "directory": ("<Directory /tmp>", "</Directory>"),
    "virtual host": ("<VirtualHost *:80>", "</VirtualHost>"),
    "location": ("<Location /x>", "</Location>"),
    "proxy section": ("<Proxy *>", "</Proxy>"),
}


_TEMP_PATH = re.compile(r"(?:/private)?/tmp/confmig-[\w-]+")


def scrub(message: str) -> str:
    """*message* without this run's temp paths (so a rerun writes the same file)."""
    return _TEMP_PATH.sub("<tmp>", message)


def fixed_type(name: str, message: str) -> str | None:
    """The ``args_how`` whose config.c message *message* is (for directive *name*)."""
    if message[:len(name)].lower() != name.lower():
        return None
    rest = message[len(name):]
    for kind, (text, _, _) in TYPES.items():
        if rest == text or rest.startswith(text + ", "):
            return kind
    return None


def classify(name: str, seen: dict[str, str | None]) -> dict:
    """An arity entry from what Apache said to each probe ('' = accepted, None = not run).

    Only a fixed config.c message counts as evidence of a type; a handler's own words
    (RAW_ARGS, TAKE_ARGV) leave the count to the handler.
    """
    none, many = seen.get("none") or "", seen.get("many") or ""
    kind = fixed_type(name, none)
    if kind is None and fixed_type(name, many) == "NO_ARGS":
        kind = "NO_ARGS"
    if kind is None:
        return {"type": "RAW_ARGS", "min": None, "max": None, "message": None, "extra": None,
                "seen": seen}
    _, low, high = TYPES[kind]
    entry: dict = {"type": kind, "min": low, "max": high,
                   "message": many if kind == "NO_ARGS" else none,
                   "extra": "ignored" if kind == "FLAG" else "error"}
    problems = []
    if kind.startswith("TAKE") and many != none:
        problems.append(f"nine arguments gave {many!r}")
    if kind == "FLAG" and fixed_type(name, many) != "FLAG":
        problems.append(f"nine arguments gave {many!r}")
    if kind == "FLAG" and seen.get("on_extra"):
        # config.c reads one word and drops the rest; a handler's own error (a context check,
        # say) hides that, so keep what config.c does but record what was seen.
        entry["on_extra_seen"] = seen["on_extra"]
    if problems:
        return {"type": "unknown", "min": None, "max": None, "message": None, "extra": None,
                "seen": seen, "why": f"{kind} by its message without arguments, but "
                                     + "; ".join(problems)}
    return entry


def probe_text(entry: dict, args: list[str]) -> str:
    """The directive (or an empty section of it) with *args*."""
    name = entry["name"]
    if entry["section"]:
        bare = name.strip("<>")
        return f"<{' '.join([bare, *args])}>\n</{bare}>\n"
    return " ".join([name, *args]) + "\n"


def loadable_modules(identities: list[dict]) -> list[str]:
    """Short names of every shipped shared module except the MPMs (one per server)."""
    return [r["shared_object"].removesuffix(".so").removeprefix("mod_") for r in identities
            if r["available"] and r["shared_object"] and r["name"] not in MPMS]


def mpms_for(entry: dict, available: set[str]) -> list[str]:
    """The MPMs to try *entry* under: those defining it, else event first."""
    own = [m for m in entry["modules"] if m in MPMS and m in available]
    return own or list(MPMS)


# --- .htaccess: one server, one directory per (directive, probe) ----------------------------

def probe_htaccess(apache: ApacheBinary, entries: list[dict], modules: list[str], mpm: str,
                   log: list[str]) -> dict[str, dict[str, str]]:
    """What Apache logs for each probe of each entry in .htaccess: {name: {probe: message}}."""
    docroot = make_docroot(prefix="confmig-arity-", files={"f.txt": "ok\n"})
    try:
        blocks = [f"DocumentRoot {docroot}",
                  f"<Directory {docroot}>\n  Require all granted\n  AllowOverride None\n"
                  "</Directory>"]
        for probe, args in PROBES.items():
            blocks.append(f"<Directory {docroot}/{probe}>\n  AllowOverride All\n</Directory>")
            for i, entry in enumerate(entries):
                where = docroot / probe / str(i)
                where.mkdir(parents=True)
                where.chmod(0o755)
                (where / ".htaccess").write_text(probe_text(entry, args))
                (where / "f.txt").write_text("ok\n")
        for path in docroot.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        server = ApacheServer(docroot, server_config="\n".join(blocks), modules=modules,
                              mpm=mpm, binary=apache, log_level="warn")
        statuses: dict[tuple[str, int], int] = {}
        with server:
            for probe in PROBES:
                for i in range(len(entries)):
                    statuses[probe, i] = _get(server, f"/{probe}/{i}/f.txt")
        text = server.error_log_text()
    finally:
        shutil.rmtree(docroot)
    pattern = re.compile(re.escape(str(docroot)) + r"/(\w+)/(\d+)/\.htaccess: (.*)$", re.M)
    messages = {(probe, int(i)): scrub(message) for probe, i, message in pattern.findall(text)}
    out: dict[str, dict[str, str]] = {}
    for i, entry in enumerate(entries):
        seen = {}
        for probe in PROBES:
            message = messages.get((probe, i), "")
            status = statuses[probe, i]
            if status == 0:
                message = f"(no response: the worker died) {message}".strip()
            elif status == 500 and not message:
                message = "(500 without a message about the .htaccess)"
            seen[probe] = message
            log.append(f"{entry['name']}\thtaccess/{mpm}\t{probe}\t{status}\t{message}")
        out[entry["name"]] = seen
    return out


def _get(server: ApacheServer, path: str) -> int:
    """Status of GET *path*, 0 when the connection drops twice: some handlers crash the worker
    on some arguments (SessionCookieName without any reads an uninitialised pointer), and
    Apache's parent replaces it, so the next probe still gets an answer."""
    for _ in range(2):
        try:
            return http_get(server.base_url, path, timeout=10).status
        except OSError:
            continue
    return 0


# --- server config: apache2 -t, one directive per run -----------------------------------------

# "Syntax error on line N of FILE:" then the message; EXEC_ON_READ directives (Include,
# Define, LoadModule ...) are run while httpd.conf's Include of the site is read, so their
# message comes after two such prefixes on one line.
_SYNTAX_ERROR = re.compile(r"Syntax error on line \d+ of (\S+?):\s*")


def config_test(apache: ApacheBinary, text: str, modules: list[str], mpm: str) -> str:
    """'' when ``apache2 -t`` accepts *text*, else Apache's message about *text* (prefixed
    with "(elsewhere)" when the error is not in *text*)."""
    result = ApacheServer(None, server_config=text, modules=modules, mpm=mpm,
                          binary=apache).config_test()
    if result.ok:
        return ""
    found = list(_SYNTAX_ERROR.finditer(result.message))
    if not found or not found[-1].group(1).endswith("/site.conf"):
        return scrub(f"(elsewhere) {result.message.strip()}")
    rest = result.message[found[-1].end():].strip()
    return scrub(rest.splitlines()[0]) if rest else ""


def probe_config(apache: ApacheBinary, entry: dict, modules: list[str], available: set[str],
                 log: list[str]) -> tuple[dict[str, str], str]:
    """What ``apache2 -t`` says to each probe of *entry*, and in which context/MPM."""
    contexts = [c for c in CONTEXTS if c in entry["contexts"]]
    contexts += [c for c in CONTEXTS if c not in contexts]
    last: dict[str, str] = {}
    for mpm in mpms_for(entry, available):
        for context in contexts:
            open_, close = CONTEXTS[context]
            seen = {}
            for probe, args in PROBES.items():
                if probe == "on_extra" and fixed_type(entry["name"], seen["none"]) != "FLAG":
                    continue
                text = "\n".join(filter(None, (open_, probe_text(entry, args).rstrip(), close)))
                seen[probe] = config_test(apache, text + "\n", modules, mpm)
                log.append(f"{entry['name']}\tconfig-test/{mpm}/{context}\t{probe}\t"
                           f"{seen[probe]}")
            last = seen
            if any(UNKNOWN.search(m) for m in seen.values()):
                break  # not this MPM
            if any(NOT_HERE.search(m) for m in seen.values()):
                continue  # the override check comes before the count: another context
            return seen, f"config-test ({context}, mpm_{mpm})"
    return last, "config-test"


# --- putting it together ------------------------------------------------------------------------

def build(apache: ApacheBinary, only: Iterable[str] = (), jobs: int = 2,
          log: list[str] | None = None, progress: Callable[[str], None] = print) -> dict:
    directives = json.loads((DATA / "directives.json").read_text())["directives"]
    identities = json.loads((DATA / "modules.json").read_text())["modules"]
    available = {r["name"] for r in identities if r["available"]}
    modules = loadable_modules(identities)
    wanted = {n.lower() for n in only}
    todo = [e for e in directives if set(e["modules"]) & available
            and (not wanted or e["name"].lower() in wanted)]
    skipped = {e["name"]: f"module {', '.join(e['modules'])} not shipped by Debian"
               for e in directives if not set(e["modules"]) & available}
    log = [] if log is None else log
    results: dict[str, dict] = {}

    in_htaccess = [e for e in todo if ".htaccess" in e["contexts"]]
    left = in_htaccess
    for mpm in MPMS:
        if not left:
            break
        seen_all = probe_htaccess(apache, left, modules, mpm, log)
        later = []
        for entry in left:
            seen = seen_all[entry["name"]]
            if any(UNKNOWN.search(m) for m in seen.values()):
                later.append(entry)
                continue
            results[entry["name"]] = {**classify(entry["name"], seen),
                                      "via": f".htaccess (AllowOverride All, mpm_{mpm})"}
        progress(f".htaccess under mpm_{mpm}: {len(left) - len(later)} directives probed, "
                 f"{len(later)} left")
        left = later
    for entry in left:
        results[entry["name"]] = {"type": "unknown", "min": None, "max": None, "message": None,
                                  "extra": None, "why": "Invalid command under every MPM"}

    in_server = [e for e in todo if ".htaccess" not in e["contexts"]]
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        outcomes = list(pool.map(lambda e: probe_config(apache, e, modules, available, log),
                                 in_server))
    for entry, (seen, via) in zip(in_server, outcomes, strict=True):
        if any(UNKNOWN.search(m) for m in seen.values()):
            results[entry["name"]] = {"type": "unknown", "min": None, "max": None,
                                      "message": None, "extra": None, "seen": seen,
                                      "why": "Invalid command under every MPM"}
        elif any(NOT_HERE.search(m) or m.startswith("(elsewhere)") for m in seen.values()):
            results[entry["name"]] = {"type": "unknown", "min": None, "max": None,
                                      "message": None, "extra": None, "seen": seen,
                                      "why": "no context let the probe reach the count check"}
        else:
            results[entry["name"]] = {**classify(entry["name"], seen), "via": via}
    progress(f"apache2 -t: {len(in_server)} directives probed")

    table = {}
    by_name = {e["name"]: e for e in directives}
    for name in sorted(results, key=str.lower):
        entry = by_name[name]
        table[name.lower()] = {"name": name, "module": entry["module"], **results[name]}
    counts: dict[str, int] = {}
    for row in table.values():
        counts[row["type"]] = counts.get(row["type"], 0) + 1
    return {
        "_meta": {
            "what": "Argument counts of Apache httpd directives as config.c checks them "
                    "(invoke_cmd, by the command_rec's args_how), measured on a real server. "
                    "type: args_how (RAW_ARGS also stands for TAKE_ARGV: the handler checks "
                    "its own arguments; unknown: not measurable); min/max: the counts "
                    "config.c lets through (max null: unbounded; TAKE13: 1 or 3); message: "
                    "Apache's error for a wrong count; extra: what Apache does with words "
                    "past max (error, or ignored for FLAG).",
            "apache": f"Apache/{apache.version}",
            "binary": str(apache.path),
            "generated_by": "tools/probe_arity.py",
            "method": "each directive with no arguments, nine arguments and 'On x', every "
                      "shipped module loaded: in .htaccess (AllowOverride All, one request "
                      "per probe, message from the error log) when the registry allows it "
                      "there, else apache2 -t on a private config holding just that line",
            "counts": dict(sorted(counts.items())),
            "not_probed": skipped if not wanted else {},
        },
        "directives": table,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apache", default=None, help="apache2/httpd binary (default: found)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--log", type=Path, default=None,
                        help="write every probe (directive, where, probe, status, message)")
    parser.add_argument("--only", nargs="*", default=(),
                        help="probe just these directives and print the result")
    parser.add_argument("--jobs", type=int, default=2, help="parallel apache2 -t runs")
    args = parser.parse_args(argv)
    apache = find_apache(args.apache)
    log: list[str] = []
    table = build(apache, args.only, args.jobs, log,
                  progress=lambda text: print(text, file=sys.stderr))
    if args.log:
        args.log.write_text("\n".join(log) + "\n")
    if args.only:
        print(json.dumps(table["directives"], indent=1, ensure_ascii=False))
        return 0
    args.out.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}: {table['_meta']['counts']}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

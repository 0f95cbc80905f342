#!/usr/bin/env python3
"""Regenerate ``confmig/apache/data/`` from the manual's facts and from a real Apache.

    python tools/gen_registry.py [--manual PATH] [--apache BINARY] [--skip-probe]

Writes three files (``third_party.json`` is curated by hand; it is only checked here):

``directives.json``
    Every directive of the Apache 2.4.71 manual (``--manual``, default
    ``../shared/apache/directives.json``), normalised: ``modules`` is a list (the manual
    writes ``"event, worker, prefork"``), contexts are sorted.  Then each directive whose
    module this machine has is put, alone, in a ``.htaccess`` under a private Apache (every
    shipped module loaded) once per ``AllowOverride`` value -- AuthConfig, FileInfo,
    Indexes, Limit, Options, All and None -- and once under ``AllowOverride None`` +
    ``AllowOverrideList <it>``, and a file below each is requested.  Apache logs
    ``<name> not allowed here`` for a class that does not grant it (or ``cannot occur within
    htaccess files`` when the directive's handler refuses .htaccess itself); an error about
    the arguments, which Apache checks only after the override check, or none at all means
    the class grants it.  Arguments are placeholders in the number the syntax line asks for,
    or real ones (``VALID_ARGS``) where placeholders would stop the handler before its own
    context checks.  What Apache says replaces the manual's ``override_classes``, decides
    whether ``.htaccess`` is among the contexts and sets ``listable``; ``verified`` names
    the server that said it, and ``manual_*`` fields keep the manual's word where it differs.
``modules.json``
    Module identities: manual name, the source file name and the identifier that
    ``<IfModule>`` accepts, the shared object, whether it is compiled in.  Read from the
    shared objects themselves (the ``module`` struct's ``name`` is what ``<IfModule x.c>``
    matches) and from ``apache2 -l``, then checked with ``<IfModule>`` under real Apache.
``debian_modules.json``
    Debian's default module set: the compiled-in modules plus what the apache2 package's
    postinst enables on a fresh install (with the ``# Depends:`` of their ``.load`` files),
    checked against ``apache2 -M`` of a private config loading them.

The probe starts one server per MPM it needs (about 20 s in all); ``--log FILE`` keeps
every request's outcome.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import struct
import subprocess
import sys
from collections.abc import Iterable
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
DEFAULT_MANUAL = ROOT.parent / "shared" / "apache" / "directives.json"
POSTINST = Path("/var/lib/dpkg/info/apache2.postinst")
CLASSES = ("AuthConfig", "FileInfo", "Indexes", "Limit", "Options")
PROBES = (*CLASSES, "All", "None", "List")
MPMS = ("event", "prefork", "worker")

# Modules the manual documents that Debian's apache2-bin does not ship, with the identifier
# and source file their manual pages give (docs/manual/mod/*.xml of httpd 2.4).
NOT_SHIPPED = {
    "mod_example_hooks": ("example_hooks_module", "mod_example_hooks.c", "example module"),
    "mod_isapi": ("isapi_module", "mod_isapi.c", "Windows only"),
    "mod_nw_ssl": ("nwssl_module", "mod_nw_ssl.c", "NetWare only"),
    "mod_privileges": ("privileges_module", "mod_privileges.c", "Solaris only"),
    "mod_socache_dc": ("socache_dc_module", "mod_socache_dc.c", "not built by Debian"),
    "mod_systemd": ("systemd_module", "mod_systemd.c", "not built by Debian"),
    "mod_tls": ("tls_module", "mod_tls.c", "not built by Debian"),
    "mpm_netware": ("mpm_netware_module", "mpm_netware.c", "NetWare only"),
    "mpm_winnt": ("mpm_winnt_module", "mpm_winnt.c", "Windows only"),
    "mpmt_os2": ("mpm_mpmt_os2_module", "mpmt_os2.c", "OS/2 only"),
}

# Placeholder arguments for sections; Apache checks the override before the arguments.
SECTION_ARGS = {
    "<authnprovideralias>": "file x", "<authzprovideralias>": "user x x",
    "<directory>": "/x", "<directorymatch>": "x", "<else>": "", "<elseif>": '"true"',
    "<files>": "x", "<filesmatch>": "x", "<if>": '"true"', "<ifdefine>": "X",
    "<ifdirective>": "X", "<iffile>": "/x", "<ifmodule>": "mod_x.c", "<ifsection>": "X",
    "<ifversion>": ">= 2.4", "<limit>": "GET", "<limitexcept>": "GET", "<location>": "/x",
    "<locationmatch>": "x", "<macro>": "x", "<mdomainset>": "example.com", "<proxy>": "*",
    "<proxymatch>": "x", "<requireall>": "", "<requireany>": "", "<requirenone>": "",
    "<virtualhost>": "*:80",
}

# Valid arguments for directives whose placeholder arguments fail the handler's own checks,
# so that a context check the handler makes afterwards is reached too.
# ``{probe}`` stands for the probe's document root (an existing directory with f.txt in it).
VALID_ARGS = {
    "addoutputfilterbytype": "DEFLATE text/html", "allow": "from all", "deny": "from all",
    "order": "deny,allow", "authbasicprovider": "file", "authdigestprovider": "file",
    "authformprovider": "file", "authdigestnoncelifetime": "300", "authdigestqop": "auth",
    "authldapurl": "ldap://localhost/dc=example", "authmerging": "Off",
    "authncachetimeout": "300", "authnzfcgicheckauthnprovider": "None",
    "cgivar": "REQUEST_URI current-uri", "charsetoptions": "NoImplicitAdd",
    "cookiedomain": ".example.com", "cookieexpires": "3600",
    "deflateinflatelimitrequestbody": "1000", "deflateinflateratioburst": "3",
    "deflateinflateratiolimit": "200", "directoryindexredirect": "off",
    "errordocument": "404 /x", "expiresbytype": "text/html A3600", "expiresdefault": "A3600",
    "fallbackresource": "/index.php", "fileetag": "MTime",
    "filterprovider": 'x DEFLATE "true"', "header": "set X-A b", "requestheader": "set X-A b",
    "indexheadinsert": '"<meta>"', "indexoptions": "FancyIndexing",
    "ldapreferralhoplimit": "5", "ldaptrustedclientcert": "CA_BASE64 {probe}/f.txt",
    "limitrequestbody": "1000", "luapackagepath": "/x", "luapackagecpath": "/x",
    "options": "Indexes", "proxyfcgisetenvif": '"true" X', "redirect": "/a http://e.com/",
    "redirectpermanent": "/a http://e.com/", "redirecttemp": "/a http://e.com/",
    "redirectmatch": "^/a http://e.com/", "require": "all granted", "rewritebase": "/",
    "rewriteoptions": "Inherit", "setenvifexpr": '"true" X',
    "sslcacertificatefile": "{probe}/f.txt", "sslcacertificatepath": "{probe}",
    "ssloptions": "+StdEnvVars", "sslrequire": "true", "sslverifyclient": "none",
    "substitute": '"s/a/b/"', "substitutemaxlinelength": "1m", "xml2encdefault": "utf-8",
}
SECTION_BODY = {"<requireall>": "Require all granted", "<requireany>": "Require all granted",
                "<requirenone>": "Require all denied"}

DENIED = re.compile(r"not allowed here|not allowed in .* context|cannot occur within")
UNKNOWN = re.compile(r"Invalid command")
# A handler's own refusal of every directory context, in words of its own.
REFUSED = re.compile(r"does not have support for per-directory")


# --- module identities ---------------------------------------------------------------------

def elf_modules(path: Path) -> list[tuple[str, str]]:
    """``(identifier, source file)`` of each Apache module struct a shared object exports.

    The identifier is the exported symbol ``LoadModule`` names; the source file is the
    struct's ``name`` field (``__FILE__`` of the module; Apache keeps its basename), which
    ``<IfModule x.c>`` compares with.  ELF64 little-endian only (x86-64, aarch64).
    """
    data = path.read_bytes()
    if data[:6] != b"\x7fELF\x02\x01":
        raise ValueError(f"{path}: not a little-endian ELF64 file")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]

    def file_offset(vaddr: int) -> int:
        for _, kind, _, addr, offset, size, *_ in sections:
            if kind != 8 and addr and addr <= vaddr < addr + size:  # 8: SHT_NOBITS
                return offset + vaddr - addr
        raise ValueError(f"{path}: address {vaddr:#x} is in no section")

    def c_string(offset: int) -> str:
        return data[offset:data.index(b"\0", offset)].decode()

    relative = {}  # R_*_RELATIVE relocations: where the loader writes base + addend
    for _, kind, _, _, offset, size, *_ in sections:
        if kind == 4:  # SHT_RELA
            for at in range(offset, offset + size, 24):
                r_offset, r_info, r_addend = struct.unpack_from("<QQq", data, at)
                if r_info & 0xFFFFFFFF in (8, 1027):  # x86-64 / aarch64 RELATIVE
                    relative[r_offset] = r_addend
    found = []
    for _, kind, _, _, offset, size, link, *_ in sections:
        if kind != 11:  # SHT_DYNSYM
            continue
        strtab = sections[link][4]
        for at in range(offset, offset + size, 24):
            st_name, st_info, _, st_shndx, st_value, _ = struct.unpack_from("<IBBHQQ", data, at)
            symbol = c_string(strtab + st_name)
            if st_shndx and st_info & 0xF == 1 and symbol.endswith("_module"):  # STT_OBJECT
                name_field = st_value + 16  # after int version, minor_version, module_index
                pointer = relative.get(name_field)
                if pointer is None:
                    pointer = struct.unpack_from("<Q", data, file_offset(name_field))[0]
                found.append((symbol, c_string(file_offset(pointer)).rsplit("/", 1)[-1]))
    return found


def static_modules(apache: ApacheBinary) -> list[tuple[str, str]]:
    """``(identifier, source file)`` of the compiled-in modules.

    ``apache2 -l`` lists their source files and ``-M`` their identifiers, both in the order of
    the build's generated modules.c, so the two lists pair up (:func:`verify_identities`
    then checks each pair with ``<IfModule>``).
    """
    listed = subprocess.run([str(apache.path), "-l"], capture_output=True, text=True,
                            check=True).stdout
    sources = re.findall(r"^\s+(\S+\.c)\s*$", listed, flags=re.M)
    dumped = ApacheServer(None, server_config="", modules=[], binary=apache,
                          defines=["DUMP_MODULES"]).config_test()
    identifiers = re.findall(r"^\s*(\w+) \(static\)", dumped.message, flags=re.M)
    if len(sources) != len(identifiers):
        raise RuntimeError(f"apache2 -l and -M disagree: {sources} vs {identifiers}")
    return list(zip(identifiers, sources, strict=True))


def manual_name(shared_object: str) -> str:
    """The manual's module name for a shared object: ``mod_mpm_event.so`` -> ``event``."""
    stem = shared_object.removesuffix(".so")
    return stem.removeprefix("mod_mpm_") if stem.startswith("mod_mpm_") else stem


def module_identities(apache: ApacheBinary) -> list[dict]:
    rows = []
    for identifier, source in static_modules(apache):
        rows.append({"name": source.removesuffix(".c"), "identifier": identifier,
                     "source": source, "shared_object": None, "static": True,
                     "available": True})
    for so in sorted(apache.modules_dir.glob("mod_*.so")):
        structs = elf_modules(so)
        if len(structs) != 1:
            raise RuntimeError(f"{so}: expected one module struct, found {structs}")
        identifier, source = structs[0]
        rows.append({"name": manual_name(so.name), "identifier": identifier, "source": source,
                     "shared_object": so.name, "static": False, "available": True})
    for name, (identifier, source, why) in NOT_SHIPPED.items():
        rows.append({"name": name, "identifier": identifier, "source": source,
                     "shared_object": None, "static": False, "available": False,
                     "note": f"not shipped by Debian's apache2 ({why})"})
    return sorted(rows, key=lambda row: row["name"])


def short(row: dict) -> str:
    """The short name confmig.servers loads a shared module by (``rewrite``, ``mpm_event``)."""
    return row["shared_object"].removesuffix(".so").removeprefix("mod_")


def verify_identities(apache: ApacheBinary, rows: list[dict]) -> None:
    """Load every shipped module and ask ``<IfModule>`` about each spelling of each one.

    Both the source file and the identifier must match; the manual name without ``.c`` and a
    case-changed source file must not (Apache compares with strcmp).  Marks ``verified``.
    """
    checks = []
    for i, row in enumerate(rows):
        if not row["available"]:
            continue
        spellings = {"S": row["source"], "I": row["identifier"], "N": row["name"],
                     "C": row["source"].upper()}
        for tag, spelling in spellings.items():
            checks.append(f"<IfModule {spelling}>\n  Define {tag}_{i}\n</IfModule>")
    loaded = [short(r) for r in rows if r["shared_object"] and r["name"] not in MPMS]
    result = ApacheServer(None, server_config="\n".join(checks), modules=loaded, binary=apache,
                          defines=["DUMP_RUN_CFG"]).config_test()
    if not result.ok:
        raise RuntimeError(f"apache2 -t failed loading every module:\n{result.message}")
    defined = set(re.findall(r"^Define: (\w+)", result.message, flags=re.M))
    version = f"Apache/{apache.version}"
    for i, row in enumerate(rows):
        if not row["available"] or row["name"] in ("prefork", "worker"):  # one MPM a server
            continue
        ok = {f"S_{i}", f"I_{i}"} <= defined
        wrong = {f"N_{i}", f"C_{i}"} & defined
        if not ok or wrong:
            raise RuntimeError(f"<IfModule> disagrees for {row}: ok={ok} wrong={wrong}")
        row["verified"] = version
    for mpm in ("prefork", "worker"):
        row = next(r for r in rows if r["name"] == mpm)
        check = ApacheServer(
            None, server_config=f"<IfModule {row['source']}>\nDefine S\n</IfModule>\n"
            f"<IfModule {row['identifier']}>\nDefine I\n</IfModule>",
            modules=[], mpm=mpm, binary=apache, defines=["DUMP_RUN_CFG"]).config_test()
        if not {"S", "I"} <= set(re.findall(r"^Define: (\w+)", check.message, flags=re.M)):
            raise RuntimeError(f"<IfModule> disagrees for {row}:\n{check.message}")
        row["verified"] = version


def debian_defaults(apache: ApacheBinary, rows: list[dict]) -> dict:
    """Debian's default set: compiled-in modules + what a fresh install's postinst enables."""
    text = POSTINST.read_text()
    mpm = re.search(r"a2enmod -m -q (mpm_\w+)", text)
    listed = re.search(r"for module in (.*?); do\s+a2enmod", text, flags=re.S)
    if mpm is None or listed is None:
        raise RuntimeError(f"cannot find the default module list in {POSTINST}")
    enabled = _with_depends(apache, [mpm.group(1), *listed.group(1).replace("\\", " ").split()])
    if apache.mods_enabled is not None:
        here = {p.stem for p in apache.mods_enabled.glob("*.load")}
        if here != enabled:
            print(f"note: this machine's mods-enabled differs from a fresh install: "
                  f"+{sorted(here - enabled)} -{sorted(enabled - here)}", file=sys.stderr)
    by_short = {short(r): r for r in rows if r["shared_object"]}
    identifiers = [r["identifier"] for r in rows if r["static"]]
    identifiers += sorted(by_short[name]["identifier"] for name in enabled)
    dumped = ApacheServer(None, server_config="", modules=sorted(enabled), binary=apache,
                          defines=["DUMP_MODULES"]).config_test()
    seen = re.findall(r"^\s*(\w+) \((?:static|shared)\)", dumped.message, flags=re.M)
    if sorted(seen) != sorted(identifiers):
        raise RuntimeError(f"apache2 -M disagrees: {sorted(seen)} vs {sorted(identifiers)}")
    return {
        "_meta": {
            "what": "Modules loaded by Debian's apache2 package as installed: the compiled-in "
                    "ones plus those its postinst enables on a fresh install (with the "
                    "'# Depends:' of their .load files).",
            "source": f"{apache.path} -l, {POSTINST}, /etc/apache2/mods-available/*.load",
            "verified": f"Apache/{apache.version}: apache2 -M of a private config loading "
                        "them lists exactly these",
        },
        "modules": identifiers,
    }


def _with_depends(apache: ApacheBinary, names: Iterable[str]) -> set[str]:
    """*names* and what their ``.load`` files say they depend on, transitively."""
    out: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in out:
            continue
        out.add(name)
        load = apache.mods_available / f"{name}.load" if apache.mods_available else None
        if load is not None and load.is_file():
            depends = re.search(r"^# Depends:(.*)$", load.read_text(), flags=re.M)
            if depends:
                todo.extend(depends.group(1).split())
    return out


# --- directives ----------------------------------------------------------------------------

def normalise(entry: dict) -> dict:
    modules = [m.strip() for m in entry["module"].split(",")]
    return {
        "name": entry["name"],
        "module": modules[0],
        "modules": modules,
        "contexts": sorted(entry["contexts"]),
        "override_classes": sorted(entry["override_classes"]),
        "status": entry["status"],
        "section": entry["section"],
        "syntax": entry["syntax"],
        "default": entry["default"],
        "third_party": False,
        "listable": None,
        "verified": None,
    }


def placeholder_args(syntax: str) -> list[str]:
    """Arguments in the number the syntax line requires: optional ``[...]`` parts and ``...``
    dropped, the first of ``a|b`` alternatives, ``x`` for every other word.

    The count matters: Apache checks TAKE1/TAKE2... before calling the directive's handler,
    and some handlers refuse .htaccess only once called (``cannot occur within htaccess
    files``), so too few arguments would hide that.
    """
    words, depth, current = [], 0, ""
    syntax = re.sub(r"\s*\|\s*", "|", re.sub(r"\([^)]*\)|\"[^\"]*\"", "x", syntax))
    for char in syntax.split(None, 1)[1] if " " in syntax else "":
        if char == "[":
            depth += 1
        elif char == "]":
            depth = max(depth - 1, 0)
        elif depth == 0:
            current += char
    for word in current.split():
        if word == "...":
            continue
        words.append(word.split("|")[0] if "|" in word else "x")
    return words or ["x"]


def probe_line(entry: dict, docroot: Path, body: bool = True) -> str:
    """A one-directive ``.htaccess`` body for *entry* (*body*: fill sections that need one)."""
    name = entry["name"]
    if entry["section"]:
        bare = name.strip("<>")
        args = SECTION_ARGS[name.lower()]
        inner = SECTION_BODY.get(name.lower(), "") if body else ""
        return f"<{bare}{' ' + args if args else ''}>\n{inner}\n</{bare}>\n"
    if name.lower() in VALID_ARGS:
        return f"{name} {VALID_ARGS[name.lower()].format(probe=docroot)}\n"
    return " ".join([name, *placeholder_args(entry["syntax"])]) + "\n"


def probe(apache: ApacheBinary, entries: list[dict], loadable: list[str], mpm: str,
          debug: list[str] | None = None) -> dict[str, dict[str, str]]:
    """Outcome of each directive under each ``AllowOverride`` value, and under
    ``AllowOverride None`` + ``AllowOverrideList <that directive>`` (probe "List").

    Returns ``{name: {probe: "granted" | "denied" | "unknown"}}``; "unknown" means Apache did
    not know the directive (its module is not loaded under this MPM).  *debug* collects one
    line per request: directive, probe, status, logged message.
    """
    docroot = make_docroot(prefix="confmig-probe-", files={"f.txt": "ok\n"})
    try:
        for klass in PROBES:
            for i, entry in enumerate(entries):
                where = docroot / klass / str(i)
                where.mkdir(parents=True)
                text = probe_line(entry, docroot, body=klass != "List")
                if klass == "List":
                    text += f"{_marker(entry)} x\n"
                (where / ".htaccess").write_text(text)
                (where / "f.txt").write_text("ok\n")
        site = [f"DocumentRoot {docroot}",
                f"<Directory {docroot}>\n  Require all granted\n  AllowOverride None\n"
                "</Directory>"]
        site += [f"<Directory {docroot}/{klass}>\n  AllowOverride {klass}\n</Directory>"
                 for klass in PROBES if klass != "List"]
        site += [f"<Directory {docroot}/List/{i}>\n  AllowOverride None\n"
                 f"  AllowOverrideList {entry['name'].rstrip('>')}\n</Directory>"
                 for i, entry in enumerate(entries)]
        server = ApacheServer(docroot, server_config="\n".join(site), modules=loadable,
                              mpm=mpm, binary=apache, log_level="warn")
        statuses = {}
        with server:
            for klass in PROBES:
                for i in range(len(entries)):
                    statuses[klass, i] = _get(server, f"/{klass}/{i}/f.txt",
                                              f"{entries[i]['name']} under {klass}")
        log = server.error_log_text()
    finally:
        shutil.rmtree(docroot)
    messages: dict[tuple[str, int], str] = {}
    pattern = re.compile(re.escape(str(docroot)) + r"/(\w+)/(\d+)/\.htaccess: (.*)$", re.M)
    for klass, index, message in pattern.findall(log):
        messages[klass, int(index)] = message
    results: dict[str, dict[str, str]] = {}
    for i, entry in enumerate(entries):
        cmd = entry["name"].rstrip(">")
        outcome = {}
        for klass in PROBES:
            message = messages.get((klass, i), "")
            if klass == "List":
                outcome[klass] = _classify_listed(cmd, _marker(entry), message)
            else:
                outcome[klass] = _classify(cmd, klass, message)
            if debug is not None:
                debug.append(f"{cmd}\t{klass}\t{statuses[klass, i]}\t{message}")
            if klass == "None" and (message or statuses[klass, i] != 200):
                raise RuntimeError(f"AllowOverride None read the .htaccess of {cmd}: "
                                   f"{statuses[klass, i]} {message}")
        results[entry["name"]] = outcome
    return results


def _marker(entry: dict) -> str:
    """A directive no .htaccess may hold, written after the probed one under "List"."""
    return "ServerAdmin" if entry["name"] == "PidFile" else "PidFile"


def _classify_listed(cmd: str, marker: str, message: str) -> str:
    """Under AllowOverride None + AllowOverrideList: Apache discards (with a warning) list
    entries it will not honour, and then does not read the .htaccess at all -- silence.  So
    only positive evidence counts: the marker line after the directive reached, or an error
    about the directive's own arguments."""
    if UNKNOWN.search(message):
        return "unknown"
    if message.startswith(marker + " not allowed here"):
        return "granted"
    if not message or DENIED.search(message) or REFUSED.search(message):
        return "denied"
    return "granted"


def _classify(cmd: str, klass: str, message: str) -> str:
    if UNKNOWN.search(message):
        return "unknown"
    if REFUSED.search(message):
        return "denied"
    if DENIED.search(message):
        # Apache names the command as registered, whose case may differ from the manual's
        # (Timeout/TimeOut, order/Order).
        if not message.lower().startswith(cmd.lower() + " "):
            raise RuntimeError(f"{cmd} under {klass}: unexpected message {message!r}")
        return "denied"
    return "granted"  # no message, or one about the arguments


def _get(server: ApacheServer, path: str, what: str) -> int:
    """Status of GET *path*; one retry on a dropped connection, then the error log says why."""
    for attempt in (1, 2):
        try:
            return http_get(server.base_url, path).status
        except OSError as exc:
            if attempt == 2:
                raise RuntimeError(f"{what}: {exc}\n{server.error_log_text()[-2000:]}") from exc
    raise AssertionError("unreachable")


def apply_probe(entry: dict, outcome: dict[str, str], version: str) -> None:
    granted = sorted(k for k in CLASSES if outcome[k] == "granted")
    in_htaccess = outcome["All"] == "granted"
    if in_htaccess != bool(granted):
        raise RuntimeError(f"{entry['name']}: All and the classes disagree: {outcome}")
    classes = ["All"] if len(granted) == len(CLASSES) else granted
    if classes != entry["override_classes"]:
        entry["manual_override_classes"] = entry["override_classes"]
        entry["override_classes"] = classes
    contexts = set(entry["contexts"])
    if in_htaccess != (".htaccess" in contexts):
        entry["manual_contexts"] = entry["contexts"]
        contexts ^= {".htaccess"}
        entry["contexts"] = sorted(contexts)
    entry["listable"] = outcome["List"] == "granted"
    entry["verified"] = version


def build_directives(apache: ApacheBinary, manual: list[dict], identities: list[dict],
                     run_probe: bool, debug: list[str] | None = None) -> dict:
    entries = [normalise(e) for e in manual]
    available = {r["name"] for r in identities if r["available"]}
    loadable = [short(r) for r in identities if r["shared_object"] and r["name"] not in MPMS]
    version = f"Apache/{apache.version}"
    todo = [e for e in entries if set(e["modules"]) & available]
    for entry in entries:
        missing = [m for m in entry["modules"] if m not in available]
        if not set(entry["modules"]) & available:
            entry["unverified"] = f"module {', '.join(missing)} not available in Debian's apache2"
    if run_probe:
        for mpm in MPMS:
            if not todo:
                break
            outcomes = probe(apache, todo, loadable, mpm, debug)
            later = []
            for entry in todo:
                outcome = outcomes[entry["name"]]
                if "unknown" in outcome.values():
                    later.append(entry)
                else:
                    apply_probe(entry, outcome, version)
            print(f"probe under mpm_{mpm}: {len(todo) - len(later)} directives decided, "
                  f"{len(later)} left", file=sys.stderr)
            todo = later
        for entry in todo:
            entry["unverified"] = "Apache did not know it with every shipped module loaded"
    return {
        "_meta": {
            "what": "Apache httpd 2.4.71 directives: the manual's facts, with the AllowOverride "
                    "classes and the .htaccess context checked against a real server where "
                    "'verified' says so ('manual_*' keep the manual's word where it differs).",
            "source": "Apache 2.4.71 manual (apache2-doc mod/*.html), via "
                      "shared/apache/directives.json; tools/gen_registry.py",
            "override_classes": "AllowOverride classes any one of which lets the directive "
                                "through in .htaccess; 'All' = any class.",
            "listable": "Apache honours it in .htaccess when AllowOverrideList names it",
            "summary": _summary(manual, entries),
        },
        "directives": entries,
    }


def _summary(manual: list[dict], entries: list[dict]) -> dict[str, object]:
    """Counts for the record: how the manual's gaps (.htaccess context, no class) came out."""
    gaps = {e["name"] for e in manual if ".htaccess" in e["contexts"] and not e["override_classes"]}
    by_name = {e["name"]: e for e in entries}
    verified = [by_name[n] for n in sorted(gaps) if by_name[n]["verified"]]
    return {
        "directives": len(entries),
        "verified": sum(1 for e in entries if e["verified"]),
        "unverified": sorted(e["name"] for e in entries if not e["verified"]),
        "manual_gaps": len(gaps),
        "gaps_filled": sorted(e["name"] for e in verified if e["override_classes"]),
        "gaps_not_allowed_in_htaccess": sorted(e["name"] for e in verified
                                               if not e["override_classes"]),
        "gaps_unverified": sorted(n for n in gaps if not by_name[n]["verified"]),
        "other_corrections": sorted(e["name"] for e in entries if e["name"] not in gaps and (
            "manual_override_classes" in e or "manual_contexts" in e)),
    }


def check_third_party(directives: dict) -> None:
    """third_party.json may only reuse a manual name on purpose (``shadows``)."""
    third = json.loads((DATA / "third_party.json").read_text())
    apache_names = {e["name"].lower() for e in directives["directives"]}
    for entry in third["directives"]:
        clash = entry["name"].lower() in apache_names
        if clash != bool(entry.get("shadows")):
            raise RuntimeError(f"third_party.json: {entry['name']} clash={clash} but shadows="
                               f"{entry.get('shadows')!r}")


def write(name: str, payload: dict) -> None:
    (DATA / name).write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {DATA / name}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manual", type=Path, default=DEFAULT_MANUAL)
    parser.add_argument("--apache", default=None, help="apache2/httpd binary (default: found)")
    parser.add_argument("--skip-probe", action="store_true",
                        help="do not start Apache to check the override classes")
    parser.add_argument("--log", type=Path, default=None,
                        help="write every probe request (directive, class, status, message)")
    args = parser.parse_args(argv)
    apache = find_apache(args.apache)
    identities = module_identities(apache)
    verify_identities(apache, identities)
    version = f"Apache/{apache.version}"
    write("modules.json", {
        "_meta": {
            "what": "Module identities: <IfModule> accepts the source file or the identifier "
                    "(exact case); LoadModule takes the identifier.",
            "source": f"{apache.modules_dir}/*.so (module struct), {apache.path} -l/-M; "
                      "manual pages for modules Debian does not ship",
            "verified": f"{version}: <IfModule> with every shipped module loaded",
        },
        "modules": identities,
    })
    write("debian_modules.json", debian_defaults(apache, identities))
    manual = json.loads(args.manual.read_text())
    debug: list[str] | None = [] if args.log else None
    directives = build_directives(apache, manual, identities, not args.skip_probe, debug)
    if args.log and debug is not None:
        args.log.write_text("\n".join(debug) + "\n")
    check_third_party(directives)
    write("directives.json", directives)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

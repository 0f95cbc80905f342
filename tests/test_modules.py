"""Module identities and ``<IfModule>``, checked against real Apache where it is installed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from confmig.apache.modules import (
    ModuleSet,
    debian_default_modules,
    identities,
    lookup,
    misname_hint,
    unknown_identity,
)
from confmig.apache.registry import registry
from confmig.load import ReadState, load_config
from confmig.servers import ApacheBinary, ApacheServer

# --- data --------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "source", "identifier"), [
    ("mod_rewrite", "mod_rewrite.c", "rewrite_module"),
    ("mod_headers", "mod_headers.c", "headers_module"),
    ("mod_ssl", "mod_ssl.c", "ssl_module"),
    ("mod_so", "mod_so.c", "so_module"),
    ("core", "core.c", "core_module"),
    ("http_core", "http_core.c", "http_module"),
    ("event", "event.c", "mpm_event_module"),
    ("prefork", "prefork.c", "mpm_prefork_module"),
    ("mod_ldap", "util_ldap.c", "ldap_module"),
    ("mod_dumpio", "mod_dumpio.c", "dumpio_module"),
    ("mpmt_os2", "mpmt_os2.c", "mpm_mpmt_os2_module"),
    ("mod_php", "mod_php.c", "php_module"),
    ("mod_php7", "mod_php7.c", "php7_module"),
    ("mod_security2", "mod_security2.c", "security2_module"),
    ("mod_pagespeed", "mod_instaweb.cc", "pagespeed_module"),
])
def test_identities(name: str, source: str, identifier: str) -> None:
    for spelling in (name, source, identifier, name.upper()):
        ident = lookup(spelling)
        assert ident is not None, spelling
        assert (ident.name, ident.source, ident.identifier) == (name, source, identifier)


def test_every_module_the_registry_names_has_an_identity() -> None:
    named = {m for info in registry() for m in info.modules}
    assert {m for m in named if lookup(m) is None} == set()
    assert len({i.identifier for i in identities()}) == len(identities())


def test_shipped_modules_were_checked_against_apache() -> None:
    shipped = [i for i in identities() if i.available]
    assert len(shipped) >= 100 and all(i.verified == "Apache/2.4.71" for i in shipped)
    assert {i.name for i in identities() if i.static} == {
        "core", "mod_so", "mod_watchdog", "http_core", "mod_log_config", "mod_logio",
        "mod_version", "mod_unixd"}


def test_misname_hints() -> None:
    assert "mod_php.c" in (misname_hint("mod_php8.c") or "")
    assert "util_ldap.c" in (misname_hint("mod_ldap.c") or "")
    assert misname_hint("mod_rewrite.c") is None


def test_debian_default_modules() -> None:
    default = debian_default_modules()
    assert {"core_module", "so_module", "http_module", "mpm_event_module", "mime_module",
            "authz_core_module", "rewrite_module"} - default == {"rewrite_module"}
    assert len(default) == 27
    assert ModuleSet.debian_default().identifiers == default


# --- ModuleSet ---------------------------------------------------------------------------

def test_has_is_ifmodule_exact() -> None:
    mods = ModuleSet.debian_default()
    for yes in ("mod_mime.c", "mime_module", "core.c", "http_core.c", "http_module",
                "event.c", "mpm_event_module", "mod_so.c"):
        assert mods.has(yes), yes
    for no in ("mod_mime", "Mod_mime.c", "mod_mime.so", "MIME_MODULE", "mod_mpm_event.c",
               "mod_rewrite.c", "rewrite_module", ""):
        assert not mods.has(no), no
    assert "mime_module" in mods and 3 not in mods


def test_add_loadmodule() -> None:
    mods = ModuleSet.compiled_in()
    assert len(mods) == 8 and not mods.has("mod_rewrite.c")
    mods.add_loadmodule("rewrite_module", "/usr/lib/apache2/modules/mod_rewrite.so")
    assert mods.has("mod_rewrite.c") and mods.has("rewrite_module")
    again = mods.add_loadmodule("rewrite_module", "/elsewhere/mod_rewrite.so")
    assert again.source == "mod_rewrite.c" and len(mods) == 9
    php = mods.add_loadmodule("php_module", "/usr/lib/apache2/modules/libphp8.2.so")
    assert php.third_party and mods.has("mod_php.c") and not mods.has("mod_php8.c")
    odd = mods.add_loadmodule("foo_module", "modules/mod_foo.so")
    assert odd.source == "mod_foo.c" and "guessed" in (odd.note or "")
    assert mods.has("foo_module")
    mods.discard("mod_rewrite.c")
    assert not mods.has("rewrite_module")
    vendor = mods.add_loadmodule("vendor_module", "/opt/v/libvendor.so")
    assert (vendor.source, vendor.unknown) == ("mod_vendor.c", True)
    assert mods.has("vendor_module") and mods.has("mod_vendor.c")


@pytest.mark.parametrize(("name", "source", "identifier"), [
    ("no_such_module", "mod_no_such.c", "no_such_module"),
    ("mod_no_such.c", "mod_no_such.c", "no_such_module"),
    ("mod_no_such", "mod_no_such.c", "no_such_module"),
    ("mod_no_such.so", "mod_no_such.c", "no_such_module"),
    ("mod_odd.cc", "mod_odd.cc", "odd_module"),
    ("vendor", "mod_vendor.c", "vendor_module"),  # Debian's short name (vendor.load)
    ("Vendor", None, "Vendor"),
])
def test_an_unknown_module_is_loaded_all_the_same(name: str, source: str | None,
                                                  identifier: str) -> None:
    mods = ModuleSet.compiled_in()
    ident = mods.add(name)
    assert (ident.source, ident.identifier, ident.unknown, ident.third_party) == (
        source, identifier, True, True)
    assert "guessed" in (ident.note or "")
    assert all(mods.has(s) for s in ident.spellings) and mods.has(identifier)
    assert not mods.has(name.upper())  # still strcmp
    assert mods.without_facts == (ident,)
    assert ModuleSet(["mime_module", name]).identifiers == {"mime_module", identifier}


def test_debian_short_names() -> None:
    mods = ModuleSet(["rewrite", "wsgi", "mpm_prefork"])
    assert mods.identifiers == {"rewrite_module", "wsgi_module", "mpm_prefork_module"}
    assert mods.without_facts == ()


def test_known_third_party_modules_are_not_unknown() -> None:
    wsgi = lookup("wsgi_module")
    assert wsgi is not None and (wsgi.name, wsgi.source) == ("mod_wsgi", "mod_wsgi.c")
    assert wsgi.third_party and not wsgi.unknown
    mods = ModuleSet.debian_default()
    assert mods.add("mod_wsgi.c") is wsgi and mods.without_facts == ()
    fcgid = mods.add("fcgid_module")  # known by name, but no directive facts
    assert not fcgid.unknown and mods.without_facts == (fcgid,)


def test_not_modelled() -> None:
    mods = ModuleSet.debian_default()
    assert mods.not_modelled("RewriteRule") is None  # Apache's: modelled or reported
    assert mods.not_modelled("WSGIScriptAlias") is None  # mod_wsgi not loaded: SYN003
    assert mods.not_modelled("FooBar") is None  # no module could define it
    mods.add("wsgi_module")
    mods.add("php_module")
    assert "known to exist, not modelled" in (mods.not_modelled("wsgiscriptalias") or "")
    assert "(mod_php)" in (mods.not_modelled("php_admin_flag") or "")
    assert mods.not_modelled("FooBar") is None
    mods.add_loadmodule("foo_module", "modules/mod_foo.so")
    reason = mods.not_modelled("FooBar") or ""
    assert "foo_module" in reason and "FooBar" in reason
    assert mods.not_modelled("Header") is None and mods.not_modelled("Header2") is not None
    # LiteSpeed shares CacheEnable with mod_cache: not modelled only where LiteSpeed's it is
    mods.add("LiteSpeed")
    assert mods.not_modelled("CacheEnable") is not None
    mods.add("cache_module")
    assert mods.not_modelled("CacheEnable") is None


def test_has_module_and_has_directive() -> None:
    mods = ModuleSet.debian_default()
    assert mods.has_module("mod_mime") and mods.has_module("core")
    assert not mods.has_module("mod_mime.c")
    assert mods.has_directive("AddType") and mods.has_directive("addtype")
    assert not mods.has_directive("RewriteRule")
    assert mods.has_directive("<Files") and not mods.has_directive("Files")
    assert mods.has_directive("MaxRequestWorkers")
    prefork = ModuleSet(i for i in mods if i.name != "event")
    prefork.add("prefork.c")
    assert prefork.has_directive("MaxRequestWorkers") and prefork.has_directive("MaxSpareServers")
    assert not mods.has_directive("MaxSpareServers")
    copy = mods.copy()
    copy.add("mod_rewrite.c")
    assert copy.has_directive("RewriteRule") and not mods.has_directive("RewriteRule")


# --- against real Apache -----------------------------------------------------------------

def _defined(result_message: str) -> set[str]:
    return set(re.findall(r"^Define: (\w+)", result_message, flags=re.M))


def _apache_loads(apache_binary: ApacheBinary, loads: str) -> set[str]:
    """``apache2 -M`` of a private config made of *loads* (``LoadModule`` lines; an MPM
    named there is the one the server gets)."""
    mpm = re.search(r"^\s*LoadModule\s+mpm_(\w+)_module", loads, flags=re.M)
    loads = "\n".join(line for line in loads.splitlines() if "mpm_" not in line)
    result = ApacheServer(None, server_config=loads, modules=[], binary=apache_binary,
                          mpm=mpm.group(1) if mpm else "event",
                          defines=["DUMP_MODULES"]).config_test()
    assert result.ok, result.message
    return set(re.findall(r"^\s*(\w+) \((?:static|shared)\)", result.message, flags=re.M))


@pytest.mark.apache
def test_debian_default_set_is_what_apache_loads(apache_binary: ApacheBinary) -> None:
    """``apache2 -M`` of a private config with Debian's LoadModule lines for the stored
    default set (its own ``mods-available/*.load``, whatever this machine has enabled)."""
    default = [i for i in identities() if i.identifier in debian_default_modules()]
    available = apache_binary.mods_available
    lines = []
    for ident in default:
        if ident.static:
            continue
        assert ident.shared_object is not None, ident
        load = (available / f"{ident.shared_object.removeprefix('mod_')[:-3]}.load"
                if available is not None else None)
        lines.append(load.read_text() if load is not None and load.is_file() else
                     f"LoadModule {ident.identifier} "
                     f"{apache_binary.modules_dir / ident.shared_object}")
    assert _apache_loads(apache_binary, "\n".join(lines)) == debian_default_modules()


@pytest.mark.apache
def test_the_machines_module_set_is_what_apache_loads(apache_binary: ApacheBinary,
                                                      tmp_path: Path) -> None:
    """This machine's ``mods-enabled`` as it is (Debian's default set or not, mod_wsgi or
    mod_php enabled or not): confmig reads the same module set from it as Apache loads, and
    ``<IfModule>`` agrees with Apache on both names of each of them."""
    enabled = apache_binary.mods_enabled
    if enabled is None:
        pytest.skip("no Debian mods-enabled directory on this machine")
    loads = "\n".join(p.read_text() for p in sorted(enabled.glob("*.load")))
    apache_says = _apache_loads(apache_binary, loads)
    conf = tmp_path / "modules.conf"
    conf.write_text(loads)
    ours = load_config(conf, state=ReadState(modules=ModuleSet.compiled_in())).state.modules
    assert ours.identifiers == apache_says
    names = [n for i in ours for n in i.spellings]
    checks = "\n".join(f"<IfModule {n}>\n  Define M_{k}\n</IfModule>"
                       for k, n in enumerate(names))
    mpm = next(i.name for i in ours if i.identifier.startswith("mpm_"))
    result = ApacheServer(None, server_config=checks, binary=apache_binary, mpm=mpm,
                          modules=[p.stem for p in enabled.glob("*.load")],
                          defines=["DUMP_RUN_CFG"]).config_test()
    assert result.ok, result.message
    assert {n for k, n in enumerate(names) if f"M_{k}" not in _defined(result.message)} == set()


@pytest.mark.apache
def test_an_unknown_modules_names_are_guessed_as_apache_answers(
        apache_binary: ApacheBinary) -> None:
    """The guess for a module confmig knew nothing of, checked on a real third-party
    module: mod_wsgi, loaded under the identifier it exports, as Debian loads it."""
    shared = apache_binary.modules_dir / "mod_wsgi.so"
    if not shared.is_file():
        pytest.skip(f"{shared} is not installed (apt-get install libapache2-mod-wsgi-py3)")
    guess = ModuleSet.compiled_in().add_loadmodule("wsgi_module", str(shared))
    assert guess is lookup("wsgi_module")  # known now; the guess must agree with it
    guessed = unknown_identity("wsgi_module", str(shared))
    assert guessed.spellings == guess.spellings == ("mod_wsgi.c", "wsgi_module")
    spellings = ["mod_wsgi.c", "wsgi_module", "mod_wsgi", "mod_wsgi.so", "Mod_Wsgi.c",
                 "WSGI_MODULE", "wsgi.c", "src/server/mod_wsgi.c"]
    checks = "\n".join(f"<IfModule {s}>\n  Define W_{i}\n</IfModule>"
                       for i, s in enumerate(spellings))
    answers = {}
    for modules in (["wsgi"], []):
        result = ApacheServer(None, server_config=checks, modules=modules, mpm="event",
                              binary=apache_binary, defines=["DUMP_RUN_CFG"]).config_test()
        assert result.ok, result.message
        answers[bool(modules)] = {s for i, s in enumerate(spellings)
                                  if f"W_{i}" in _defined(result.message)}
    ours = ModuleSet.compiled_in()
    ours.add_loadmodule("wsgi_module", str(shared))
    assert answers[True] == {s for s in spellings if ours.has(s)} == {"mod_wsgi.c", "wsgi_module"}
    assert answers[False] == set()


@pytest.mark.apache
def test_ifmodule_spellings_agree_with_apache(apache_binary: ApacheBinary) -> None:
    modules = ["rewrite", "headers", "ldap", "mime"]
    spellings = ["mod_rewrite.c", "rewrite_module", "mod_rewrite", "Mod_Rewrite.c",
                 "mod_rewrite.so", "util_ldap.c", "mod_ldap.c", "ldap_module", "event.c",
                 "mod_mpm_event.c", "mpm_event_module", "core.c", "core_module", "http_core.c",
                 "http_module", "mod_so.c", "so_module", "mod_ssl.c", "ssl_module",
                 "mod_headers.c", "headers_module", "mod_log_config.c", "log_config_module"]
    checks = "\n".join(f"<IfModule {s}>\n  Define IS_{i}\n</IfModule>"
                       for i, s in enumerate(spellings))
    result = ApacheServer(None, server_config=checks, modules=modules, mpm="event",
                          binary=apache_binary, defines=["DUMP_RUN_CFG"]).config_test()
    assert result.ok, result.message
    apache_says = {s for i, s in enumerate(spellings) if f"IS_{i}" in _defined(result.message)}
    ours = ModuleSet.compiled_in()
    for name in ("mod_rewrite.c", "mod_headers.c", "util_ldap.c", "mod_mime.c", "event.c"):
        ours.add(name)
    assert {s for s in spellings if ours.has(s)} == apache_says
    assert {"mod_rewrite.c", "rewrite_module"} <= apache_says


@pytest.mark.apache
def test_every_shipped_module_answers_to_both_names(apache_binary: ApacheBinary) -> None:
    shipped = [i for i in identities()
               if i.shared_object and i.available and i.name not in ("prefork", "worker")]
    checks = "\n".join(f"<IfModule {i.source}>\n  Define S_{n}\n</IfModule>\n"
                       f"<IfModule {i.identifier}>\n  Define I_{n}\n</IfModule>"
                       for n, i in enumerate(shipped))
    short = [i.shared_object.removesuffix(".so").removeprefix("mod_") for i in shipped]
    result = ApacheServer(None, server_config=checks, binary=apache_binary, mpm="event",
                          modules=[s for s in short if not s.startswith("mpm_")],
                          defines=["DUMP_RUN_CFG"]).config_test()
    assert result.ok, result.message
    defined = _defined(result.message)
    missing = [i.name for n, i in enumerate(shipped)
               if not {f"S_{n}", f"I_{n}"} <= defined]
    assert missing == []

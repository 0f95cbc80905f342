"""Module identities and ``<IfModule>``, checked against real Apache where it is installed."""

from __future__ import annotations

import re

import pytest

from confmig.model.modules import (
    ModuleSet,
    debian_default_modules,
    identities,
    lookup,
    misname_hint,
)
from confmig.model.registry import registry
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
    with pytest.raises(KeyError):
        mods.add("no_such_module")


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


@pytest.mark.apache
def test_debian_default_set_is_what_apache_loads(apache_binary: ApacheBinary) -> None:
    """``apache2 -M`` of a private config with Debian's default LoadModule lines."""
    enabled = apache_binary.mods_enabled
    if enabled is not None:
        loads = "\n".join(p.read_text() for p in sorted(enabled.glob("*.load")))
    else:  # not Debian's layout: the stored set's own shared objects
        loads = "\n".join(
            f"LoadModule {i.identifier} {apache_binary.modules_dir / i.shared_object}"
            for i in identities() if i.identifier in debian_default_modules() and not i.static)
    loads = "\n".join(line for line in loads.splitlines() if "mpm_event" not in line)
    result = ApacheServer(None, server_config=loads, modules=[], mpm="event",
                          binary=apache_binary, defines=["DUMP_MODULES"]).config_test()
    assert result.ok, result.message
    loaded = set(re.findall(r"^\s*(\w+) \((?:static|shared)\)", result.message, flags=re.M))
    assert loaded == debian_default_modules()


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

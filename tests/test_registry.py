"""The directive registry and Apache's AllowOverride / AllowOverrideList rules.

The Apache-backed tests put each case in its own directory of one private server and read
the outcome off the error log: every .htaccess holds the directive under test followed by
``PidFile x``, which no .htaccess may hold, so "PidFile not allowed here" proves the file
was read and the directive let through; the directive's own "not allowed here" (or silence:
the file was not read) proves the opposite.
"""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from confmig.apache.registry import (
    OVERRIDE_CLASSES,
    AllowOverride,
    DirectiveInfo,
    override_list,
    overrides_permit,
    registry,
)
from confmig.lint.testing import ApacheCases, HtaccessCase
from confmig.model.explain import explain_request
from confmig.servers import ApacheBinary, ApacheServer, default_modules, http_get

# --- data --------------------------------------------------------------------------------


def test_every_manual_directive_is_there_once_per_module() -> None:
    apache = [i for i in registry() if not i.third_party]
    assert len(apache) == 731  # the 2.4.71 manual's directives (HeartbeatStorage twice)
    assert {i.module for i in registry().get_all("HeartbeatStorage")} == {
        "mod_heartmonitor", "mod_lbmethod_heartbeat"}


def test_no_override_gap_is_left_where_apache_was_asked() -> None:
    # A directive allowed in .htaccess with no class is a gap (the manual's, or unknown).
    gaps = [i for i in registry() if i.allowed_in_htaccess and not i.override_classes]
    assert {i.name for i in gaps if not i.third_party} == {"Example"}
    assert registry().get("Example").verified is None  # mod_example_hooks: not in Debian
    assert {i.module for i in gaps if i.third_party} == {"mod_security", "litespeed"}


def test_verified_entries_name_the_server() -> None:
    versions = {i.verified for i in registry() if i.verified}
    assert versions == {"Apache/2.4.71", "Apache/2.4.71 + mod_wsgi/4.9.4"}
    assert all(i.listable is not None for i in registry() if i.verified)
    assert {i.module for i in registry() if i.third_party and i.verified} == {"mod_wsgi"}


def test_mod_wsgi_entries() -> None:
    reg = registry()
    wsgi = reg.for_module("mod_wsgi")
    assert len(wsgi) == 45 and all(i.third_party and i.module == "mod_wsgi" for i in wsgi)
    alias = reg.get("wsgiscriptalias")
    assert alias is not None and alias.contexts == {"server config", "virtual host"}
    assert not reg.allowed_in_htaccess("WSGIDaemonProcess")
    assert reg.get("WSGIPythonPath").contexts == {"server config"}  # GLOBAL_ONLY
    assert reg.get("WSGIProcessGroup").contexts == {"server config", "virtual host",
                                                    "directory"}
    assert reg.override_classes("WSGICallableObject") == {"FileInfo"}
    assert reg.get("WSGIAccessScript").contexts == {"directory", ".htaccess"}  # OR_AUTHCFG
    assert overrides_permit("WSGIProcessGroup", ["None"], ["WSGIProcessGroup"])
    assert not overrides_permit("WSGIScriptAlias", ["All"], ["WSGIScriptAlias"])
    assert reg.get("WSGIUserAuthoritative") is None  # in the source; Debian's build lacks it


def test_mod_php_entries_from_its_source() -> None:
    # These come from php-src's sapi/apache2handler/apache_config.c (php_dir_cmds);
    # tests/test_registry_mod_php.py asks real mod_php (which scripts/test.sh installs).
    reg = registry()
    for name in ("php_value", "php_flag"):
        assert reg.override_classes(name) == {"Options"}  # OR_OPTIONS
        assert reg.get(name).contexts == {"server config", "virtual host", "directory",
                                          ".htaccess"}
    for name in ("php_admin_value", "php_admin_flag"):  # ACCESS_CONF|RSRC_CONF
        assert not reg.allowed_in_htaccess(name)
        assert reg.get(name).contexts == {"server config", "virtual host", "directory"}
    assert all(i.verified is None for i in reg.for_module("mod_php"))


@pytest.mark.parametrize(("name", "classes"), [
    ("RewriteRule", {"FileInfo"}),
    ("Options", {"Options"}),
    ("Require", {"AuthConfig"}),
    ("Order", {"Limit"}),
    ("ExpiresDefault", {"Indexes"}),
    ("ServerSignature", set(OVERRIDE_CLASSES)),
    ("<Limit>", {"AuthConfig", "Limit"}),
    ("<IfModule>", set(OVERRIDE_CLASSES)),
    # gaps in the manual, filled by asking Apache
    ("SSILastModified", {"Limit"}),
    ("AuthzSendForbiddenOnFailure", {"AuthConfig"}),
    ("H2PushResource", {"AuthConfig", "FileInfo"}),
    ("Error", set(OVERRIDE_CLASSES)),
    # third party, from the projects' sources
    ("php_value", {"Options"}),
    ("php_flag", {"Options"}),
    ("ModPagespeedEnableFilters", set(OVERRIDE_CLASSES)),
])
def test_override_classes(name: str, classes: set[str]) -> None:
    assert registry().override_classes(name) == classes
    assert registry().allowed_in_htaccess(name)


@pytest.mark.parametrize("name", [
    # the manual lists .htaccess; Apache 2.4.71 says "not allowed here" under every class
    "CacheDisable", "CacheMaxExpire", "BufferSize", "CGIScriptTimeout", "InputSed",
    # "cannot occur within htaccess files" from the handler
    "LuaMapHandler",
    "ServerName", "php_admin_value", "php_admin_flag",
    "SecRuleEngine", "SecRule",  # ModSecurity 2 as built by default
    "NoSuchDirective",
])
def test_not_allowed_in_htaccess(name: str) -> None:
    assert not registry().allowed_in_htaccess(name)
    assert registry().override_classes(name) == frozenset()


def test_manual_disagreements_are_kept_for_reference() -> None:
    info = registry().get("CacheDisable")
    assert info is not None and info.verified == "Apache/2.4.71"
    assert "directory" in info.contexts and ".htaccess" not in info.contexts


def test_lookup_is_case_insensitive_and_knows_sections() -> None:
    reg = registry()
    assert reg.get("rewriterule") is reg.get("RewriteRule") is not None
    files = reg.get("<Files>")
    assert files is not None and files.section
    assert reg.get("<files") is files and reg.get("Files") is files
    assert reg.get_exact("Files") == ()  # Apache's command is "<Files"
    assert "REWRITEENGINE" in reg and "RewriteEngin" not in reg and 42 not in reg
    assert reg.get("nope") is None


def test_shared_names_answer_with_apache_first() -> None:
    reg = registry()
    info = reg.get("CacheEnable")
    assert info is not None and info.module == "mod_cache" and not info.third_party
    assert reg.modules_providing("CacheEnable") == ("mod_cache", "litespeed")
    lite = reg.get_all("CacheEnable")[1]
    assert lite.third_party and lite.shadows == "mod_cache"
    assert set(reg.modules_providing("MaxRequestWorkers")) >= {"event", "prefork", "worker"}
    assert reg.modules_providing("php_value") == ("mod_php", "mod_php7", "mod_php5")
    assert reg.modules_providing("nope") == ()


def test_third_party_entries() -> None:
    reg = registry()
    for name, module in [("php_value", "mod_php"), ("SecRuleRemoveById", "mod_security2"),
                         ("SecFilterEngine", "mod_security"), ("CacheLookup", "litespeed"),
                         ("ModPagespeed", "mod_pagespeed")]:
        info = reg.get(name)
        assert info is not None and info.third_party and info.module == module, name
        assert info.verified is None
    assert reg.get("SecFilterScanPOST").allowed_in_htaccess


def test_suggest() -> None:
    reg = registry()
    assert reg.suggest("RewriteEngin")[0] == "RewriteEngine"
    assert reg.suggest("Hedaer")[0] == "Header"
    assert reg.suggest("<FileMatch>")[0] == "<FilesMatch>"
    assert reg.suggest("RewriteRule") == []
    assert reg.suggest("qqqqqqqq") == []


def test_directive_info_is_frozen() -> None:
    info = registry().get("Header")
    assert isinstance(info, DirectiveInfo)
    with pytest.raises(AttributeError):
        info.name = "x"  # type: ignore[misc]


# --- AllowOverride parsing ----------------------------------------------------------------

@pytest.mark.parametrize(("words", "classes"), [
    (["None"], set()),
    (["All"], set(OVERRIDE_CLASSES)),
    (["fileinfo", "AUTHCONFIG"], {"FileInfo", "AuthConfig"}),
    (["FileInfo", "None"], set()),  # a later None wins ...
    (["None", "FileInfo"], {"FileInfo"}),  # ... and so does a later class
    (["Options=Indexes,MultiViews"], {"Options"}),
    (["FileInfo=x"], {"FileInfo"}),  # Apache ignores a value on a class
])
def test_allow_override_classes(words: list[str], classes: set[str]) -> None:
    assert AllowOverride.parse(words).classes == classes


@pytest.mark.parametrize(("words", "message"), [
    (["Bogus"], "Illegal override option Bogus"),
    (["Options=Indexes,Bogus"], "Illegal option Bogus"),
    (["Nonfatal"], "=Override, =Unknown or =All expected after Nonfatal"),
])
def test_allow_override_errors(words: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        AllowOverride.parse(words)


def test_allow_override_options_lists() -> None:
    bare = AllowOverride.parse(["Options"])
    assert bare.options == {"Indexes", "Includes", "IncludesNOEXEC", "FollowSymLinks", "ExecCGI"}
    assert not bare.permits_option("+MultiViews")
    assert not bare.permits_option("SymLinksIfOwnerMatch")
    assert bare.permits_option("All") and bare.permits_option("None")
    every = AllowOverride.parse(["All"])
    assert every.options is None and every.permits_option("+MultiViews")
    kept = AllowOverride.parse(["Options=Indexes", "All"])
    assert kept.options == {"Indexes"} and not kept.permits_option("+FollowSymLinks")
    assert AllowOverride.parse(["Options=Includes"]).permits_option("IncludesNOEXEC")
    assert not AllowOverride.parse(["Options=IncludesNOEXEC"]).permits_option("Includes")
    assert AllowOverride.parse(["Options=RunScripts"]).permits_option("-ExecCGI")
    assert AllowOverride.parse(["Options=Indexes", "Options=ExecCGI"]).options == {"ExecCGI"}
    assert not AllowOverride.parse(["FileInfo"]).permits_option("Indexes")
    assert not every.permits_option("Bogus")


def test_allow_override_nonfatal() -> None:
    assert AllowOverride.parse(["Nonfatal=Override", "Indexes"]).nonfatal == {"Override"}
    assert AllowOverride.parse(["Nonfatal=all", "Indexes"]).nonfatal == {"Override", "Unknown"}
    assert AllowOverride.parse(["Nonfatal=Unknown", "All"]).nonfatal == set()  # All resets


def test_override_list() -> None:
    assert override_list(["Redirect", "header"]) == {"redirect", "header"}
    assert override_list(["FileInfo"]) == set()  # not a directive: discarded
    assert override_list(["ServerName"]) == set()  # server config only: discarded
    assert override_list(["Files"]) == set() and override_list(["<Files"]) == {"<files>"}
    assert override_list(["CacheDisable"]) == {"cachedisable"}  # <Directory>-only is kept
    assert override_list(["None"]) == set()
    with pytest.raises(ValueError, match="'None' not allowed with other directives"):
        override_list(["None", "Redirect"])


def test_overrides_permit_without_a_server() -> None:
    assert overrides_permit("RewriteRule", ["FileInfo"])
    assert not overrides_permit("RewriteRule", ["AuthConfig"])
    assert overrides_permit("ServerSignature", ["Indexes"])
    assert not overrides_permit("RewriteRule", ["None"], ["Header"])
    assert overrides_permit("rewriterule", ["None"], ["REWRITERULE"])
    assert overrides_permit("php_value", AllowOverride.parse(["Options=Indexes"]))
    assert not overrides_permit("NoSuchDirective", ["All"], ["NoSuchDirective"])
    # class unknown: only All is sure to grant it (every class); checked with mod_wsgi on
    # Apache in tests/lint/rules/test_ctx_model_decisions.py
    assert overrides_permit("SecFilterEngine", ["All"])
    assert not overrides_permit("SecFilterEngine", ["FileInfo", "AuthConfig"])
    assert overrides_permit("SecFilterEngine", ["None"], ["SecFilterEngine"])


# --- against real Apache -----------------------------------------------------------------

MARKER = "PidFile x"


@dataclass(frozen=True)
class Case:
    allow_override: tuple[str, ...]
    override_list: tuple[str, ...]
    htaccess: str

    @property
    def directive(self) -> str:
        return self.htaccess.split(None, 1)[0].lstrip("<")

    def predicted(self) -> bool:
        name = self.htaccess.split(None, 1)[0]
        if not overrides_permit(name, self.allow_override, self.override_list):
            return False
        if name == "Options":
            spec = AllowOverride.parse(self.allow_override)
            return all(spec.permits_option(w) for w in self.htaccess.split()[1:])
        return True


CASES = [
    Case(("None",), (), "Redirect /a http://e.com/"),
    Case(("FileInfo",), (), "Redirect /a http://e.com/"),
    Case(("fileinfo",), (), "Redirect /a http://e.com/"),
    Case(("AuthConfig",), (), "Redirect /a http://e.com/"),
    Case(("FileInfo", "None"), (), "Redirect /a http://e.com/"),
    Case(("None", "FileInfo"), (), "Redirect /a http://e.com/"),
    Case(("None",), ("Redirect",), "Redirect /a http://e.com/"),
    Case(("None",), ("redirect",), "Redirect /a http://e.com/"),
    Case(("None",), ("Redirect",), "Header set X y"),
    Case(("None",), ("FileInfo",), "Redirect /a http://e.com/"),
    Case(("None",), ("ServerName",), "ServerName x"),
    Case(("All",), (), "CacheDisable on"),
    Case(("None",), ("CacheDisable",), "CacheDisable on"),
    Case(("None",), ("Define",), "Define X"),
    Case(("None",), ("Files",), "<Files x>\n</Files>"),
    Case(("None",), ("<Files",), "<Files x>\n</Files>"),
    Case(("Indexes",), (), "ServerSignature Off"),
    Case(("Limit",), (), "Order deny,allow"),
    Case(("FileInfo",), (), "Order deny,allow"),
    Case(("AuthConfig",), (), "<Limit GET>\n</Limit>"),
    Case(("Indexes",), (), "<Limit GET>\n</Limit>"),
    Case(("Limit",), (), "SSILastModified on"),
    Case(("FileInfo",), (), "SSILastModified on"),
    Case(("AuthConfig",), (), "AuthzSendForbiddenOnFailure On"),
    Case(("Options=Indexes",), (), "ContentDigest On"),
    Case(("Options",), (), "Options +MultiViews"),
    Case(("Options",), (), "Options +FollowSymLinks"),
    Case(("All",), (), "Options +MultiViews"),
    Case(("Options=Indexes", "All"), (), "Options +FollowSymLinks"),
    Case(("Options=Includes",), (), "Options +IncludesNOEXEC"),
    Case(("Options=IncludesNOEXEC",), (), "Options +Includes"),
    Case(("Options=All",), (), "Options +MultiViews"),
]


def _outcome(log: str, where: Path, case: Case) -> bool:
    """True: the directive was let through; False: refused, or the file was not read."""
    messages = re.findall(re.escape(f"{where}/.htaccess: ") + r"(.*)$", log, flags=re.M)
    if not messages:
        return False
    message = messages[-1]
    if message.startswith("PidFile not allowed here"):
        return True
    directive = case.directive.lower()
    if re.match(rf"(<?{re.escape(directive)}|option \S+) (not allowed here|cannot occur)",
                message.lower()):
        return False
    raise AssertionError(f"{case}: unexpected message {message!r}")


@pytest.mark.apache
def test_overrides_permit_agrees_with_apache(apache_binary: ApacheBinary, docroot: Path) -> None:
    site = [f"DocumentRoot {docroot}",
            f"<Directory {docroot}>\n  Require all granted\n  AllowOverride None\n</Directory>"]
    for i, case in enumerate(CASES):
        (docroot / str(i)).mkdir()
        (docroot / str(i) / ".htaccess").write_text(f"{case.htaccess}\n{MARKER}\n")
        (docroot / str(i) / "f.txt").write_text("ok\n")
        lst = f"\n  AllowOverrideList {' '.join(case.override_list)}" if case.override_list else ""
        site.append(f"<Directory {docroot}/{i}>\n  AllowOverride {' '.join(case.allow_override)}"
                    f"{lst}\n</Directory>")
    modules = ["authz_core", "alias", "headers", "access_compat", "cache", "include",
               "authz_host"]
    server = ApacheServer(docroot, server_config="\n".join(site), modules=modules,
                          binary=apache_binary)
    with server:
        for i in range(len(CASES)):
            http_get(server.base_url, f"/{i}/f.txt")
        log = server.error_log_text()
    wrong = [(case, case.predicted()) for i, case in enumerate(CASES)
             if _outcome(log, docroot / str(i), case) != case.predicted()]
    assert wrong == []


@pytest.mark.apache
def test_nonfatal_override_skips_instead_of_failing(apache_binary: ApacheBinary,
                                                    docroot: Path) -> None:
    lines = {"a": "Nonfatal=Override Indexes", "b": "Nonfatal=Override None Indexes"}
    site = [f"DocumentRoot {docroot}",
            f"<Directory {docroot}>\n  Require all granted\n  AllowOverride None\n</Directory>"]
    for name, line in lines.items():
        (docroot / name).mkdir()
        (docroot / name / ".htaccess").write_text("Header set X-Probe yes\n")
        (docroot / name / "f.txt").write_text("ok\n")
        site.append(f"<Directory {docroot}/{name}>\n  AllowOverride {line}\n</Directory>")
    with ApacheServer(docroot, server_config="\n".join(site), modules=["authz_core", "headers"],
                      binary=apache_binary) as server:
        skipped = http_get(server.base_url, "/a/f.txt")
        failed = http_get(server.base_url, "/b/f.txt")
        log = server.error_log_text()
    assert (skipped.status, skipped.headers.get("X-Probe")) == (200, None)
    assert "Header in .htaccess forbidden by AllowOverride" in log
    assert failed.status == 500
    assert AllowOverride.parse(lines["a"].split()).nonfatal == {"Override"}
    assert AllowOverride.parse(lines["b"].split()).nonfatal == set()
    assert not overrides_permit("Header", lines["a"].split())


# --- third-party modules against real Apache --------------------------------------------

# Arguments mod_wsgi accepts for each of its directives (so only the context can fail).
WSGI_ARGS = {
    "WSGIScriptAlias": "/app /tmp/app.wsgi", "WSGIScriptAliasMatch": "^/app /tmp/app.wsgi",
    "WSGIDaemonProcess": "example", "WSGISocketPrefix": "/tmp/wsgi",
    "WSGISocketRotation": "On", "WSGIAcceptMutex": "default", "WSGILazyInitialization": "On",
    "WSGIVerboseDebugging": "Off", "WSGIDontWriteBytecode": "On",
    "WSGIPythonWarnings": "ignore", "WSGIPythonOptimize": "0", "WSGIPythonHome": "/usr",
    "WSGIPythonPath": "/tmp", "WSGIPythonEggs": "/tmp", "WSGIPythonHashSeed": "random",
    "WSGIDestroyInterpreter": "On", "WSGIRestrictEmbedded": "On", "WSGIRestrictStdin": "On",
    "WSGIRestrictStdout": "On", "WSGIRestrictSignal": "On", "WSGICaseSensitivity": "On",
    "WSGIRestrictProcess": "example", "WSGIProcessGroup": "example",
    "WSGIApplicationGroup": "%{GLOBAL}", "WSGICallableObject": "application",
    "WSGIImportScript": "/tmp/app.wsgi process-group=%{GLOBAL} application-group=%{GLOBAL}",
    "WSGIDispatchScript": "/tmp/d.wsgi", "WSGIPassApacheRequest": "Off",
    "WSGIPassAuthorization": "On", "WSGIScriptReloading": "On", "WSGIErrorOverride": "Off",
    "WSGIChunkedRequest": "Off", "WSGIMapHEADToGET": "Auto", "WSGIIgnoreActivity": "Off",
    "WSGITrustedProxyHeaders": "X-Forwarded-For", "WSGITrustedProxies": "127.0.0.1",
    "WSGIEnableSendfile": "Off", "WSGIAccessScript": "/tmp/a.wsgi",
    "WSGIAuthUserScript": "/tmp/a.wsgi", "WSGIAuthGroupScript": "/tmp/a.wsgi",
    "WSGIGroupAuthoritative": "On", "WSGIHandlerScript": "wsgi-handler /tmp/h.wsgi",
    "WSGIServerMetrics": "Off", "WSGINewRelicConfigFile": "/tmp/n.ini",
    "WSGINewRelicEnvironment": "x",
}
_WRAP = {"server config": "{line}", "virtual host": "<VirtualHost *:1>\n{line}\n</VirtualHost>",
         "directory": "<Directory /tmp>\n{line}\n</Directory>"}
_REFUSED = re.compile(r"not allowed (here|in <\w+> context)|cannot occur within")


@pytest.fixture(scope="module")
def mod_wsgi(apache_binary: ApacheBinary) -> ApacheBinary:
    if not (apache_binary.modules_dir / "mod_wsgi.so").is_file():
        pytest.skip("mod_wsgi is not installed (apt-get install libapache2-mod-wsgi-py3)")
    return apache_binary


@pytest.mark.apache
def test_mod_wsgi_contexts_agree_with_apache(mod_wsgi: ApacheBinary) -> None:
    """Each context the registry gives a mod_wsgi directive is accepted there, all of them
    in one config per context; each it denies is refused there, one config per claim."""
    infos = registry().for_module("mod_wsgi")
    assert {i.name for i in infos} == set(WSGI_ARGS)

    def config_test(text: str) -> tuple[bool, str]:
        result = ApacheServer(None, server_config=text, modules=["wsgi"],
                              binary=mod_wsgi).config_test()
        return result.ok, result.message

    jobs: list[tuple[str, str, str]] = []  # (directive or "*", context, config text)
    for context, wrap in _WRAP.items():
        allowed = [f"{i.name} {WSGI_ARGS[i.name]}" for i in infos if context in i.contexts]
        jobs.append(("*", context, wrap.format(line="\n".join(allowed))))
        jobs += [(i.name, context, wrap.format(line=f"{i.name} {WSGI_ARGS[i.name]}"))
                 for i in infos if context not in i.contexts]
    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(lambda job: config_test(job[2]), jobs))
    wrong = []
    for (name, context, _), (ok, message) in zip(jobs, outcomes, strict=True):
        if name == "*" and not ok:
            wrong.append(f"allowed in {context}, but: {message}")
        elif name != "*" and (ok or not _REFUSED.search(message)):
            wrong.append(f"{name} refused in {context}, but: {ok} {message}")
    assert wrong == []


@pytest.mark.apache
def test_mod_wsgi_overrides_agree_with_apache(mod_wsgi: ApacheBinary, docroot: Path) -> None:
    """Each mod_wsgi directive alone in an .htaccess under each AllowOverride class, and
    under ``AllowOverride None`` + ``AllowOverrideList`` it: let through or refused as
    :func:`overrides_permit` says (the marker after it proves the file was read)."""
    names = sorted(WSGI_ARGS)
    site = [f"DocumentRoot {docroot}",
            f"<Directory {docroot}>\n  Require all granted\n  AllowOverride None\n</Directory>"]
    cases = []
    for p, klass in enumerate([*sorted(OVERRIDE_CLASSES), "None"]):  # None: + the list
        for n, name in enumerate(names):
            where = docroot / f"{p}-{n}"
            where.mkdir()
            (where / ".htaccess").write_text(f"{name} {WSGI_ARGS[name]}\n{MARKER}\n")
            (where / "f.txt").write_text("ok\n")
            listed = (name,) if klass == "None" else ()
            lst = f"\n  AllowOverrideList {name}" if listed else ""
            site.append(f"<Directory {where}>\n  AllowOverride {klass}{lst}\n</Directory>")
            cases.append((where, Case((klass,), listed, f"{name} {WSGI_ARGS[name]}")))
    server = ApacheServer(docroot, server_config="\n".join(site),
                          modules=["authz_core", "wsgi"], binary=mod_wsgi)
    with server:
        for where, _ in cases:
            http_get(server.base_url, f"/{where.name}/f.txt")
        log = server.error_log_text()
    wrong = [(case, case.predicted()) for where, case in cases
             if _outcome(log, where, case) != case.predicted()]
    assert wrong == []
    assert sum(case.predicted() for _, case in cases) == 14 + 20  # by a class + listable


@pytest.mark.apache
def test_php_directives_without_mod_php_are_a_500(apache_binary: ApacheBinary) -> None:
    """With php-fpm (or no PHP) instead of mod_php, ``php_value`` in .htaccess is "Invalid
    command": 500 for the directory; confmig's model, lint and converter say so too."""
    modules = [m for m in default_modules(apache_binary) if not m.startswith("php")]
    cases = [HtaccessCase("value", "php_value upload_max_filesize 64M\n"),
             HtaccessCase("flag", "php_flag display_errors off\n"),
             HtaccessCase("admin", "php_admin_value memory_limit 1G\n"),
             HtaccessCase("guarded", "<IfModule mod_php.c>\n  php_value a b\n</IfModule>\n")]
    with ApacheCases(cases, modules=modules) as apache:
        statuses = {c.name: apache.status(c.name) for c in cases}
        logs = {c.name: " ".join(apache.error_log(c.name)) for c in cases}
        assert statuses == {"value": 500, "flag": 500, "admin": 500, "guarded": 200}
        assert "Invalid command 'php_value'" in logs["value"]
        assert "Invalid command 'php_admin_value'" in logs["admin"]
        assert apache.root is not None
        ours = {c.name: explain_request(f"/{c.name}/index.html", root=apache.root).status
                for c in cases}
    assert ours == statuses

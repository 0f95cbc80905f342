"""SYN002's argument-count table (confmig/apache/data/arity.json, measured on Apache by
tools/probe_arity.py): directives beyond the old hand-written table, valid counts, and every
entry of the table re-probed on a real Apache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import confmig.apache
from confmig.apache.arity import (
    ARITY,
    HAND,
    arity_problem,
    measured,
    measured_meta,
)
from confmig.apache.registry import registry
from confmig.lint.testing import ApacheCases, HtaccessCase, finds

_TYPES = {"NO_ARGS", "TAKE1", "TAKE2", "TAKE3", "TAKE12", "TAKE23", "TAKE123", "TAKE13",
          "ITERATE", "ITERATE2", "FLAG", "RAW_ARGS", "unknown"}


def ids(*shorts: str) -> list[str]:
    """Module identifiers for lint's ``modules`` (event MPM included)."""
    return [f"{m}_module" for m in ("mpm_event", *shorts)]


def syn002(text: str, **kwargs: object) -> list[str]:
    return [f.message for f in finds("SYN002", text, **kwargs)]


# -- the data ----------------------------------------------------------------------------------

def test_the_table_says_where_it_comes_from() -> None:
    meta = measured_meta()
    assert meta["apache"].startswith("Apache/2.4.")
    assert meta["generated_by"] == "tools/probe_arity.py"
    assert sum(meta["counts"].values()) == len(measured())


def test_every_shipped_directive_was_probed() -> None:
    data = Path(confmig.apache.__file__).parent / "data"
    shipped = {m["name"] for m in json.loads((data / "modules.json").read_text())["modules"]
               if m["available"]}
    names = {e["name"].lower() for e in json.loads((data / "directives.json").read_text())
             ["directives"] if set(e["modules"]) & shipped}
    assert names == set(measured())
    assert len(ARITY) > 600


def test_entries_are_consistent() -> None:
    for lname, entry in measured().items():
        assert entry["type"] in _TYPES, lname
        if entry["type"] in ("RAW_ARGS", "unknown"):
            assert entry["message"] is None and entry["min"] is None, lname
            continue
        assert entry["message"].lower().startswith(entry["name"].lower() + " "), lname
        assert entry["extra"] == ("ignored" if entry["type"] == "FLAG" else "error"), lname


def test_hand_entries_cover_only_what_the_probe_cannot_count() -> None:
    for lname in HAND:
        assert measured()[lname]["type"] == "RAW_ARGS", lname


# -- SYN002 beyond the old table ---------------------------------------------------------------

@pytest.mark.parametrize(("text", "message"), [
    # mod_autoindex, ITERATE2
    ("AddIcon /icons/x.gif\n", "AddIcon requires at least two arguments, an icon URL followed "
                               "by one or more filenames"),
    # mod_filter, TAKE3
    ("FilterProvider f DEFLATE\n", "FilterProvider takes three arguments, filter-name "
                                   "provider-name match-expression"),
    # core, TAKE12
    ("RLimitCPU 1 2 3\n", "RLimitCPU takes 1-2 arguments, Soft/hard limits for max CPU usage "
                          "in seconds"),
    # mod_actions, TAKE23
    ("Action php-script\n", "Action takes two or three arguments, a media type followed by a "
                            "script name"),
    # mod_negotiation, ITERATE
    ("LanguagePriority\n", "LanguagePriority requires at least one argument, space-delimited "
                           "list of MIME language abbreviations"),
    # mod_dir, TAKE1
    ("DirectoryCheckHandler\n", "DirectoryCheckHandler must be On or Off"),
    ("DirectoryIndexRedirect on 301\n", "DirectoryIndexRedirect takes one argument, On, Off, "
                                        "or a 3xx status code."),
    # mod_setenvif: no variable to set (the old table let two arguments through)
    ("SetEnvIf Request_URI ^/x\n", "Missing envariable expression for SetEnvIf"),
    ("BrowserMatch MSIE\n", "Missing envariable expression for BrowserMatch"),
    # mod_headers: no action at all
    ("Header\n", "first argument must be 'add', 'set', 'setifempty', 'append', 'merge', "
                 "'unset', 'echo', 'note', 'edit', or 'edit*'."),
])
def test_new_directives_are_counted(text: str, message: str) -> None:
    found = syn002(text, modules=ids("autoindex", "filter", "actions", "negotiation",
                                  "dir", "setenvif", "headers"))
    if "DirectoryCheckHandler" in text:  # a FLAG without value: SYN004's "must be On or Off"
        assert not found
        assert arity_problem("DirectoryCheckHandler", []) == ("error", message)
        return
    assert len(found) == 1, found
    assert found[0].startswith(message + " ("), found


def test_server_config_counts() -> None:
    found = syn002("KeepAliveTimeout 5 10\nCustomLog /x\nListen 80 http extra\n",
                   kind="server", filename="httpd.conf",
                   modules=ids("log_config"))
    assert found == [
        "KeepAliveTimeout takes one argument, Keep-Alive timeout duration (sec) "
        "(Apache refuses to start)",
        "CustomLog takes two or three arguments, a file name, a custom log format string or "
        "format name, and an optional \"env=\" or \"expr=\" clause (see docs) "
        "(Apache refuses to start)",
        "Listen requires 1 or 2 arguments. (Apache refuses to start)",
    ]


@pytest.mark.parametrize("text", [
    "AddIcon /icons/x.gif .txt .md\n",
    "FilterProvider f DEFLATE \"%{CONTENT_TYPE} =~ m#^text/#\"\n",
    "RLimitCPU 10 20\n",
    "Action php-script /cgi-bin/php virtual\n",
    "LanguagePriority en fr de\n",
    "DirectoryIndexRedirect 301\n",
    "SetEnvIf Request_URI ^/x NOLOG\n",
    "BrowserMatch MSIE old-browser\n",
    "SSLRequireSSL\n",        # NO_ARGS is RAW_ARGS in httpd: not counted
    "FileETag MTime Size\n",  # RAW_ARGS: the handler decides
    "Header unset X-A\n",
])
def test_valid_counts_are_not_flagged(text: str) -> None:
    assert syn002(text, modules=ids("autoindex", "filter", "actions",
                                 "negotiation", "dir", "setenvif", "headers", "ssl")) == []


def test_flag_extra_words_are_ignored_not_fatal() -> None:
    found = finds("SYN002", "DirectorySlash Off extra\n", modules=ids("dir"))
    assert [(f.severity.value, f.message) for f in found] == [
        ("warning", "DirectorySlash: Apache ignores the extra argument(s) after the value "
                    "(extra)")]


def test_an_empty_quoted_word_is_a_missing_word_to_config_c() -> None:
    """ap_getword_conf returns "" for "", which config.c takes for a missing word; ITERATE
    loops stop at it and drop the rest (checked on Apache in test_apache_truth.py)."""
    assert arity_problem("AuthName", [""]) == ("error", ARITY["authname"].message)
    assert arity_problem("ErrorDocument", ["404", ""]) == ("error", ARITY["errordocument"].message)
    assert arity_problem("SetEnv", ["FOO", ""]) is None        # TAKE12: the 2nd may be empty
    assert arity_problem("SetEnv", ["", "x"])[0] == "error"
    assert arity_problem("Redirect", ["301", "", "/b"]) is None  # TAKE123: only the 1st counts
    assert arity_problem("AddType", ["text/x", ".y", ""]) is None
    found = finds("SYN002", 'AddType text/x "" .y .z\n')
    assert [(f.severity.value, f.message) for f in found] == [
        ("warning", 'AddType: Apache ignores the extra argument(s) after an empty argument "" '
                    "(.y .z)")]


def test_a_module_that_is_not_loaded_is_syn003s_business() -> None:
    text = "AddIcon /icons/x.gif\n"
    assert syn002(text, modules=ids("mime")) == []
    assert finds("SYN003", text, modules=ids("mime"))
    # with Debian's defaults only assumed, the module may be there: still counted
    assert syn002("ExpiresByType text/html\n")


def test_syn005_sees_a_take1_on_off_directive_fail() -> None:
    """EnableSendfile's syntax is "On|Off" but it is TAKE1: a '#' comment is fatal."""
    found = finds("SYN005", "EnableSendfile Off # no sendfile\n")
    assert [f.severity.value for f in found] == ["error"]
    found = finds("SYN005", "DirectorySlash Off # keep\n", modules=ids("dir"))
    assert [f.severity.value for f in found] == ["warning"]


def test_syn004_knows_the_measured_flags() -> None:
    """AliasPreservePath's manual syntax is "OFF|ON" (not "On|Off"); Apache declares it FLAG."""
    found = finds("SYN004", "<Directory /x>\n    AliasPreservePath yes\n</Directory>\n",
                  kind="server", filename="httpd.conf", modules=ids("alias"))
    assert [f.message for f in found] == [
        "AliasPreservePath must be On or Off (got 'yes'): Apache refuses to start"]


# -- every entry, re-probed on a real Apache ------------------------------------------------

_PLACEHOLDER = {"setenvifexpr": "true"}  # its handler parses the first word
# Without arguments their handler reads an uninitialised pointer (mod_session_cookie's
# set_cookie_name): the worker often dies instead of answering 500.
_CRASHES_APACHE = {"sessioncookiename", "sessioncookiename2"}


def _shipped_modules() -> tuple[set[str], list[str]]:
    data = Path(confmig.apache.__file__).parent / "data" / "modules.json"
    rows = [r for r in json.loads(data.read_text())["modules"] if r["available"]]
    loadable = [r["shared_object"].removesuffix(".so").removeprefix("mod_") for r in rows
                if r["shared_object"] and not r["shared_object"].startswith("mod_mpm_")]
    return {r["name"] for r in rows}, ["mpm_event", *loadable]


def _wrong_counts(lname: str) -> list[tuple[list[str], str]]:
    """Argument lists with a wrong count for *lname*, and the kind lint gives each."""
    arity = ARITY[lname]
    word = _PLACEHOLDER.get(lname, "x")
    out = []
    if arity.min > 0:
        out.append(([word] * (arity.min - 1), "error"))
    if arity.max is not None and arity.extra == "error":
        out.append(([word] * (arity.max + 1), "error"))
    if arity.type == "FLAG" and "on_extra_seen" not in measured()[lname]:
        out.append((["On", "x"], "ignored"))
    return out


@pytest.mark.apache
def test_every_entry_of_the_table_is_what_apache_says(apache_binary: object) -> None:
    """Every entry (any type, any shipped module) that .htaccess may carry, with each wrong
    count, one case per directory of one server: a 500 with exactly the table's message, or a
    200 where the table says the extra words are ignored.  All of them rather than a random
    sample (~420 cases, a few seconds): a wrong entry fails every run, not one run in N."""
    shipped, modules = _shipped_modules()
    pool = sorted(lname for lname in ARITY
                  if (info := registry().get(lname)) is not None
                  and info.allowed_in_htaccess and set(info.modules) & shipped
                  and lname not in _CRASHES_APACHE and _wrong_counts(lname))
    cases, expected = [], {}
    for lname in pool:
        for args, kind in _wrong_counts(lname):
            problem = arity_problem(lname, args)
            assert problem is not None and problem[0] == kind, (lname, args, problem)
            name = f"c{len(cases)}"
            cases.append(HtaccessCase(name, f"{_spelt(lname)} {' '.join(args)}\n"))
            expected[name] = (lname, args, problem)
    assert len(cases) > 300, len(cases)  # the table, not a handful of it
    with ApacheCases(cases, modules=modules) as server:
        for name, (lname, args, (kind, message)) in expected.items():
            try:
                status = server.status(name)
            except OSError as exc:
                pytest.fail(f"{lname} {args}: no answer ({exc}): {server.error_log(name)}")
            said = [line.split(".htaccess: ", 1)[1] for line in server.error_log(name)
                    if ".htaccess: " in line]
            what = f"{lname} {args}: Apache answered {status} {said}"
            if kind == "ignored":
                assert status != 500 and not said, what
            else:
                assert status == 500, what
                assert said == [message], what


def _spelt(lname: str) -> str:
    """The directive's name as Apache's manual spells it."""
    return measured()[lname]["name"]

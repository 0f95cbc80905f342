"""Per-module parsing and merging (confmig.model.merge)."""

from __future__ import annotations

import pytest

from confmig.apache.registry import AllowOverride
from confmig.model.merge import (
    OPT_ALL,
    OPT_INDEXES,
    OPT_MULTI,
    OPT_SERVER_DEFAULT,
    OPT_SYM_LINKS,
    SectionBuilder,
    expires_code,
    merge_alias,
    merge_configs,
    parse_redirect,
)
from confmig.syntax import Directive, parse_text


def build(text: str, context: str = "directory", **kwargs: object) -> SectionBuilder:
    builder = SectionBuilder(context, "/srv/www/", **kwargs)  # type: ignore[arg-type]
    for node in parse_text(text).nodes:
        if isinstance(node, Directive):
            builder.directive(node)
    return builder


def config(text: str, context: str = "directory") -> dict:
    builder = build(text, context)
    assert not builder.errors, builder.errors
    return builder.build()


def test_options_plain_replaces_and_plus_minus_merge() -> None:
    base = config("Options Indexes FollowSymLinks")
    plus = config("Options -Indexes +MultiViews")
    merged = merge_configs(base, plus)
    assert merged["core"].options == OPT_SYM_LINKS | OPT_MULTI
    plain = merge_configs(merged, config("Options Indexes"))["core"]
    assert plain.options == OPT_INDEXES


@pytest.mark.parametrize(("line", "error"), [
    ("Options Indexes +FollowSymLinks", "Either all Options must start with + or -"),
    ("Options +Indexes FollowSymLinks", "Either all Options must start with + or -"),
    ("Options +All", "You may not use 'Options +All'"),
    ("Options Indexes None", "'Options None' must be the first Option given."),
    ("Options Bogus", "Illegal option Bogus"),
])
def test_options_errors(line: str, error: str) -> None:
    errors = build(line).errors
    assert errors and error in errors[0][1]


def test_options_restricted_by_allow_override() -> None:
    builder = build("Options +MultiViews", override_opts=OPT_ALL)
    assert builder.errors[0][1] == "Option MultiViews not allowed here"
    assert not build("Options None +Indexes", override_opts=OPT_INDEXES).errors


def test_allow_override_parsing() -> None:
    """The model's AllowOverride handler reads the line with the one parser,
    registry.AllowOverride, and keeps its spelling of Nonfatal."""
    allow = AllowOverride.parse(["FileInfo", "Options=Indexes", "Nonfatal=Override"])
    assert (allow.classes, allow.nonfatal, allow.override_opts) == (
        frozenset({"FileInfo", "Options"}), frozenset({"Override"}), OPT_INDEXES)
    core = config("AllowOverride FileInfo Options=Indexes Nonfatal=Override")["core"]
    assert (core.override, core.nonfatal, core.override_opts) == (
        frozenset({"FileInfo", "Options"}), frozenset({"Override"}), OPT_INDEXES)
    assert AllowOverride.parse(["Options"]).override_opts == OPT_ALL  # no MultiViews
    assert config("AllowOverride Options")["core"].override_opts == OPT_ALL
    assert AllowOverride.parse(["Nonfatal=All", "All"]).nonfatal == frozenset()
    assert config("AllowOverride Nonfatal=All All")["core"].nonfatal == frozenset()
    with pytest.raises(ValueError, match=r"^Illegal override option Bogus$"):
        AllowOverride.parse(["Bogus"])
    assert build("AllowOverride Bogus").errors[0][1] == "Illegal override option Bogus"


def test_mime_child_overrides_per_extension_and_remove_type_hides_types_config() -> None:
    parent = config("AddType text/x-a .a .b\nAddCharset UTF-8 .a")
    child = config("AddType text/x-c .a\nRemoveType .b")
    maps = merge_configs(parent, child)["mime"].mappings
    assert maps["a"].type == "text/x-c" and maps["a"].charset == "utf-8"
    assert maps["b"].type == ""


def test_remove_handler_applies_to_the_inherited_mapping() -> None:
    merged = merge_configs(config("AddHandler cgi-script .cgi"), config("RemoveHandler .cgi"))
    assert merged["mime"].mappings["cgi"].handler is None


def test_headers_accumulate_in_order_always_separate() -> None:
    merged = merge_configs(config("Header set X-A 1\nHeader always set X-B 2"),
                           config("Header unset X-A\nHeader set X-C 3 env=FOO"))["headers"]
    assert [(h.action, h.name) for h in merged.onsuccess] == [("set", "X-A"), ("unset", "X-A"),
                                                               ("set", "X-C")]
    assert [h.name for h in merged.always] == ["X-B"]
    assert merged.env_names == ("FOO",) and merged.static


@pytest.mark.parametrize(("line", "error"), [
    ("Header bogus X-A 1", "first argument must be"),
    ("Header set X-A", "Header requires three arguments"),
    ("Header set X-A 1 weird", "Unknown parameter: weird"),
])
def test_header_errors(line: str, error: str) -> None:
    assert error in build(line).errors[0][1]


def test_directory_index_accumulates_within_a_section_and_replaces_across() -> None:
    first = config("DirectoryIndex a.html\nDirectoryIndex b.html")
    assert first["dir"].index_names == ("a.html", "b.html")
    merged = merge_configs(first, config("DirectoryIndex c.html\nDirectorySlash Off"))["dir"]
    assert merged.index_names == ("c.html",) and merged.slash is False
    assert config("DirectoryIndex disabled")["dir"].index_names == ()


def test_expires_codes() -> None:
    assert expires_code("access plus 1 month") == ("A2592000", None)
    assert expires_code("modification plus 2 hours 3 minutes") == ("M7380", None)
    assert expires_code("A60") == ("A60", None)
    assert expires_code("access plus 1 fortnight")[1] is not None


def test_authz_merging_off_and_or() -> None:
    parent = config("Require all denied")
    assert merge_configs(parent, config("Require all granted"))["authz"].section.children[
        0].args == "granted"
    assert merge_configs(parent, config("Options -Indexes"))["authz"] is parent["authz"]
    merged = merge_configs(parent, config("AuthMerging Or\nRequire all granted"))["authz"]
    assert merged.section.op == "or" and merged.section.merged


def test_require_errors() -> None:
    assert "negative Require directive has no effect" in build(
        "Require not ip 10.0.0.1").errors[0][1]
    unknown = build("Require group x", loaded_modules=lambda m: m != "mod_authz_groupfile")
    assert unknown.errors[0][1] == "Unknown Authz provider: group"


def test_access_compat_has_no_merger() -> None:
    parent = config("Order deny,allow\nDeny from all")
    child = config("Satisfy any")
    merged = merge_configs(parent, child)["access"]
    assert merged.denies == () and merged.satisfy == "any"
    assert "allow and deny must be followed by 'from'" in build("Allow 10.0.0.1").errors[0][1]


@pytest.mark.parametrize(("line", "expected"), [
    ("Redirect /a /b", ("list", "/a", "/b", 302)),
    ("Redirect permanent /a http://x/b", ("list", "/a", "http://x/b", 301)),
    ("Redirect 410 /a", ("list", "/a", None, 410)),
    ("RedirectPermanent /a /b", ("list", "/a", "/b", 301)),
    ("RedirectMatch 301 ^/a(.*) /b$1", ("list", "^/a(.*)", "/b$1", 301)),
    ("Redirect 301 /elsewhere", ("location", None, "/elsewhere", 301)),
])
def test_redirect_forms(line: str, expected: tuple) -> None:
    node = parse_text(line).nodes[0]
    assert isinstance(node, Directive)
    entry, location_form, err = parse_redirect(node, in_dir=True)
    assert err is None
    if expected[0] == "list":
        assert entry is not None
        assert (entry.fake, entry.real, entry.status) == expected[1:]
    else:
        assert location_form == (expected[3], expected[2])


def test_redirect_errors() -> None:
    node = parse_text("Redirect 404 /a /b").nodes[0]
    assert parse_redirect(node, in_dir=False)[2] == "Redirect URL not valid for this status"
    node = parse_text("Redirect /a relative").nodes[0]
    assert parse_redirect(node, in_dir=False)[2] == "Redirect to non-URL"


def test_follow_symlinks_is_the_server_default() -> None:
    assert OPT_SERVER_DEFAULT & OPT_SYM_LINKS
    assert config("ServerSignature Off", "server")["core"].options == OPT_SYM_LINKS
    assert config("ServerSignature Off")["core"].options == 0


def test_a_section_s_redirects_are_its_lines_in_order_and_a_tuple() -> None:
    """A section's Redirect lines are collected in a list while it is read and handed to
    AliasDir as a tuple (a tuple rebuilt a line made a 1 MB file of Redirect lines take 3.2 s
    to lint, bench/parse_big_file.py's ``redirect`` shape; 0.6 s now)."""
    n = 500
    alias = config("".join(f"Redirect 301 /a{i} /b{i}\n" for i in range(n)))["alias"]
    assert type(alias.redirects) is tuple
    assert [(e.fake, e.real) for e in alias.redirects] == [(f"/a{i}", f"/b{i}") for i in range(n)]
    merged = merge_alias(alias, config("Redirect 302 /c /d\n")["alias"])
    assert [e.fake for e in merged.redirects[:2]] == ["/c", "/a0"]

"""Sections, walks, expressions, virtual hosts (confmig.model.walk)."""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.load import LoadedConfig, ReadState
from confmig.model.walk import (
    Expr,
    ExprError,
    ExprUnsupported,
    build_site,
    count_dirs,
    directory_walk,
    fnmatch_regex,
    location_walk,
)
from confmig.syntax import parse_text


def site_of(text: str, root: Path | None = None):
    text = text.replace("@ROOT@", str(root) if root else "/nonexistent")
    config = parse_text(text, "test.conf")
    return build_site(LoadedConfig(main="test.conf", nodes=list(config.nodes),
                                   state=ReadState()))


@pytest.mark.parametrize(("pattern", "subject", "matches"), [
    ("*.txt", "a.txt", True),
    ("*.txt", "dir/a.txt", False),  # APR_FNM_PATHNAME: * stops at /
    ("/srv/*/", "/srv/www/", True),
    ("/srv/*/", "/srv/www/x/", False),
    ("file-?.log", "file-1.log", True),
    ("[ab]*", "beta", True),
    ("[!ab]*", "beta", False),
])
def test_fnmatch_pathname(pattern: str, subject: str, matches: bool) -> None:
    assert (fnmatch_regex(pattern).search(subject) is not None) == matches


def test_expressions() -> None:
    env = {"QUERY_STRING": "a=1", "HTTPS": "off", "CONTENT_TYPE": "text/html",
           "HTTP:X-Mode": "b"}
    lookup = env.get
    assert Expr.parse("%{QUERY_STRING} =~ /a=\\d/").evaluate(lookup)
    assert Expr.parse("%{HTTPS} == 'on' || %{CONTENT_TYPE} =~ m#text/(html|css)#i").evaluate(
        lookup)
    assert not Expr.parse("-z %{CONTENT_TYPE}").evaluate(lookup)
    assert Expr.parse("%{HTTP:X-Mode} in {'a', 'b'}").evaluate(lookup)
    assert Expr.parse("!(%{QUERY_STRING} == '')").evaluate(lookup)
    assert Expr.parse("'%{QUERY_STRING}x' == 'a=1x'").evaluate(lookup)
    assert Expr.parse("5 -gt 3 && true").evaluate(lookup)
    with pytest.raises(ExprError):
        Expr.parse("%{QUERY_STRING} ==")
    with pytest.raises(ExprError, match="Variable 'NOPE' does not exist"):
        Expr.parse("%{NOPE} == 'x'")  # Apache refuses it when parsing (a 500 in .htaccess)
    with pytest.raises(ExprUnsupported):
        Expr.parse("%{REMOTE_PORT} == '1'").evaluate(lookup)  # known, but not to the model


def test_directories_sorted_non_regex_by_depth_then_regex(tmp_path: Path) -> None:
    site = site_of("""
<DirectoryMatch "^/srv">
</DirectoryMatch>
<Directory /srv/www/a>
</Directory>
<Directory />
</Directory>
<Directory /srv/www>
</Directory>
""")
    assert [s.match for s in site.main.directories] == ["/", "/srv/www/", "/srv/www/a/",
                                                        "^/srv"]
    assert count_dirs("/srv/www/") == 3


def test_directory_walk_levels_htaccess_and_gating(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f.txt").write_text("x")
    (tmp_path / ".htaccess").write_text("AddType text/x-a .a\n")
    (tmp_path / "a" / ".htaccess").write_text("Options -Indexes\n")  # needs Options
    (tmp_path / "a" / "b" / ".htaccess").write_text("Not a directive\n")
    site = site_of("""
<Directory />
    AllowOverride None
</Directory>
<Directory "@ROOT@">
    AllowOverride FileInfo
</Directory>
<Directory "@ROOT@/a/b">
    AllowOverride None
</Directory>
""", tmp_path)
    walk = directory_walk(site, site.main, str(tmp_path / "a" / "b" / "f.txt"))
    assert walk.status == 500 and "Options not allowed here" in walk.message
    ok = directory_walk(site, site.main, str(tmp_path / "f.txt"))
    assert ok.status == 0 and ok.kind is None
    assert [s.kind for s in ok.sections] == ["directory", "directory", "htaccess"]


def test_directory_walk_stops_at_a_file_and_keeps_path_info(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "script.php").write_text("x")
    site = site_of('<Directory "@ROOT@">\nAllowOverride None\n</Directory>\n', tmp_path)
    walk = directory_walk(site, site.main, str(tmp_path / "d" / "script.php" / "x" / "y"))
    assert (walk.filename, walk.path_info, walk.kind) == (
        str(tmp_path / "d" / "script.php"), "/x/y", "file")
    missing = directory_walk(site, site.main, str(tmp_path / "d" / "nope" / "z"))
    assert (missing.filename, missing.path_info, missing.kind) == (
        str(tmp_path / "d" / "nope"), "/z", None)
    slash = directory_walk(site, site.main, str(tmp_path / "d") + "/")
    assert slash.filename.endswith("/d/") and slash.kind == "dir"


def test_location_walk_prefix_rules() -> None:
    site = site_of("""
<Location /admin>
</Location>
<LocationMatch "^/api/v\\d+/">
</LocationMatch>
<Location /files/*.pdf>
</Location>
""")
    locs = site.main.locations
    assert location_walk(locs, "/admin/x") == [locs[0]]
    assert location_walk(locs, "/adminx") == []
    assert location_walk(locs, "/api/v2/a") == [locs[1]]
    assert location_walk(locs, "/files/a.pdf") == [locs[2]]


def test_vhost_selection_by_name_alias_and_default() -> None:
    site = site_of("""
ServerName main.example
<VirtualHost *:80>
    ServerName first.example
</VirtualHost>
<VirtualHost *:80>
    ServerName second.example
    ServerAlias *.second.example
</VirtualHost>
<VirtualHost 127.0.0.1:8080>
    ServerName exact.example
</VirtualHost>
""")
    names = [v.name for v in site.vhosts]
    assert site.select("second.example", "127.0.0.1", 80).name == "second.example"
    assert site.select("a.second.example", "127.0.0.1", 80).name == "second.example"
    assert site.select("unknown", "127.0.0.1", 80).name == names[0]
    assert site.select("anything", "127.0.0.1", 8080).name == "exact.example"
    assert site.select("x", "127.0.0.1", 9999).name == "main.example"

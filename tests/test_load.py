"""The loader: Include, Define/${VAR}, read-time conditionals, docroot walk."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from confmig.load import ReadState, load_config, load_htaccess, load_path, scan_docroot
from confmig.load.conditions import ConditionError, _if_version
from confmig.syntax import Directive, Section


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def names(nodes) -> list[str]:
    out = []
    for n in nodes:
        if isinstance(n, Directive):
            out.append(f"{n.name} {' '.join(n.args)}".strip())
        elif isinstance(n, Section):
            out.append(f"<{n.name}>")
            out.extend("  " + x for x in names(n.children))
    return out


def test_include_glob_directory_and_relative_paths_in_order(tmp_path: Path) -> None:
    main = write(tmp_path / "httpd.conf", "A 1\nInclude conf.d/*.conf\nInclude extra\nB 2\n")
    write(tmp_path / "conf.d/b.conf", "FromB x\n")
    write(tmp_path / "conf.d/a.conf", "FromA x\n")
    write(tmp_path / "conf.d/.hidden.conf", "Hidden x\n")      # '*' does not match a leading dot
    write(tmp_path / "conf.d/c.txt", "Txt x\n")
    write(tmp_path / "extra/sub/z", "DeepZ x\n")                # directories recurse
    write(tmp_path / "extra/.y", "DotY x\n")                    # ...and read dot files
    loaded = load_config(main)
    assert loaded.ok, loaded.errors
    assert names(loaded.nodes) == ["A 1", "FromA x", "FromB x", "DotY x", "DeepZ x", "B 2"]
    origin = {n.name: (Path(n.file).name, n.line) for n in loaded.nodes}
    assert origin["FromB"] == ("b.conf", 1)
    assert [(Path(e.file).name, e.line, len(e.targets)) for e in loaded.includes] == [
        ("httpd.conf", 2, 2), ("httpd.conf", 3, 2)]


def test_missing_include_is_an_error_at_the_including_line(tmp_path: Path) -> None:
    main = write(tmp_path / "httpd.conf",
                 "A 1\n\nInclude nothere.conf\nIncludeOptional nope/*.conf\nInclude none/*.conf\n")
    loaded = load_config(main)
    assert [(Path(e.file).name, e.line) for e in loaded.errors] == [
        ("httpd.conf", 3), ("httpd.conf", 5)]
    assert "No such file or directory" in loaded.errors[0].message


def test_include_cycle_is_reported_not_followed(tmp_path: Path) -> None:
    write(tmp_path / "a.conf", "A 1\nInclude b.conf\n")
    write(tmp_path / "b.conf", "B 1\nInclude a.conf\n")
    loaded = load_config(tmp_path / "a.conf")
    assert len(loaded.errors) == 1
    error = loaded.errors[0]
    assert (Path(error.file).name, error.line) == ("b.conf", 2)
    assert "Include cycle" in error.message
    assert names(loaded.nodes) == ["A 1", "B 1"]


def test_serverroot_changes_where_relative_includes_resolve(tmp_path: Path) -> None:
    write(tmp_path / "root/mods/x.conf", "X 1\n")
    main = write(tmp_path / "etc/httpd.conf",
                 f"ServerRoot {tmp_path / 'root'}\nInclude mods/x.conf\n")
    assert names(load_config(main).nodes)[-1] == "X 1"


def test_define_is_global_even_inside_a_virtualhost(tmp_path: Path) -> None:
    main = write(tmp_path / "httpd.conf", """\
<VirtualHost *:80>
  Define DOCS /srv/docs
  Define FLAG
</VirtualHost>
DocumentRoot ${DOCS}/public
<IfDefine FLAG>
  Seen yes
</IfDefine>
<IfDefine !FLAG>
  Seen no
</IfDefine>
UnDefine FLAG
<IfDefine FLAG>
  Later yes
</IfDefine>
""")
    loaded = load_config(main, environ={})
    assert "DocumentRoot /srv/docs/public" in names(loaded.nodes)
    assert "Seen yes" in names(loaded.nodes)
    assert "Seen no" not in names(loaded.nodes) and "Later yes" not in names(loaded.nodes)


def test_variables_substitute_before_word_splitting(tmp_path: Path) -> None:
    main = write(tmp_path / "httpd.conf",
                 'Define TWO "a b"\nDefine V "x y"\nThing ${V} ${UNSET} ${map:key}\n')
    loaded = load_config(main, environ={})
    thing = next(n for n in loaded.nodes if isinstance(n, Directive) and n.name == "Thing")
    assert thing.args == ["x", "y", "${UNSET}", "${map:key}"]
    assert [w.message for w in loaded.warnings] == ["Config variable ${UNSET} is not defined"]
    assert (thing.file, thing.line) == (str(main), 3)


def test_environment_variables_are_read_after_defines(tmp_path: Path) -> None:
    main = write(tmp_path / "httpd.conf", "Root ${APACHE_X}\n")
    assert names(load_config(main, environ={"APACHE_X": "/from/env"}).nodes) == ["Root /from/env"]


def test_command_line_defines_drive_ifdefine(tmp_path: Path) -> None:
    main = write(tmp_path / "httpd.conf", "<IfDefine SSL>\nListen 443\n</IfDefine>\n")
    assert names(load_config(main).nodes) == []
    assert names(load_config(main, defines={"SSL"}).nodes) == ["Listen 443"]


def test_ifmodule_uses_debian_defaults_plus_loadmodule(tmp_path: Path) -> None:
    main = write(tmp_path / "httpd.conf", """\
<IfModule mod_rewrite.c>
  R1 before
</IfModule>
<IfModule mod_mime.c>
  M yes
</IfModule>
LoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so
<IfModule rewrite_module>
  R2 after
</IfModule>
<IfModule !mod_rewrite.c>
  R3 negated
</IfModule>
""")
    assert names(load_config(main).nodes) == ["M yes", "LoadModule rewrite_module "
                                              "/usr/lib/apache2/modules/mod_rewrite.so",
                                              "R2 after"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["2.4"], False),          # '=' with missing parts: 2.4 means 2.4.0
        (["2.4.71"], True),
        (["<", "2.4"], False),
        ([">=", "2.4"], True),
        (["!<", "2.4"], True),
        (["<=", "2.4.71"], True),
        ([">", "2.4.71"], False),
        (["~", r"^2\.4"], True),
        (["/^2\\.2/"], False),
        (["=", "/^2\\.4/"], True),
    ],
)
def test_ifversion_like_mod_version(args: list[str], expected: bool) -> None:
    assert _if_version(args, (2, 4, 71)) is expected


def test_ifversion_rejects_a_bad_version() -> None:
    with pytest.raises(ConditionError):
        _if_version(["2.x"], (2, 4, 71))


def test_iffile_ifdirective_ifsection(tmp_path: Path) -> None:
    write(tmp_path / "present.txt", "")
    main = write(tmp_path / "httpd.conf", """\
<IfFile present.txt>
  F1 yes
</IfFile>
<IfFile !missing.txt>
  F2 yes
</IfFile>
<IfDirective RewriteEngine>
  D1 rewrite-loaded
</IfDirective>
<IfDirective Header>
  D2 headers-loaded
</IfDirective>
<IfSection VirtualHost>
  S1 yes
</IfSection>
""")
    got = names(load_config(main).nodes)
    assert got[:2] == ["F1 yes", "F2 yes"]
    assert "D1 rewrite-loaded" not in got      # mod_rewrite is not in Debian's default set
    assert "S1 yes" in got


def test_non_conditional_sections_keep_their_children(tmp_path: Path) -> None:
    main = write(tmp_path / "httpd.conf", "<Directory /x>\n<IfModule mod_dir.c>\nDirectoryIndex a\n"
                                          "</IfModule>\n</Directory>\n")
    assert names(load_config(main).nodes) == ["<Directory>", "  DirectoryIndex a"]


def test_parse_errors_in_included_files_are_collected(tmp_path: Path) -> None:
    write(tmp_path / "bad.conf", "<Directory /x>\n")
    main = write(tmp_path / "httpd.conf", "Include bad.conf\nAfter 1\n")
    loaded = load_config(main)
    assert [(Path(e.file).name, e.line, e.message) for e in loaded.errors] == [
        ("bad.conf", 1, "<Directory> was not closed.")]
    assert names(loaded.nodes) == ["After 1"]


def test_htaccess_conditionals_use_the_server_state(tmp_path: Path) -> None:
    htaccess = write(tmp_path / ".htaccess", "<IfModule mod_rewrite.c>\nRewriteEngine On\n"
                                             "</IfModule>\nHeader set X ${HOST}\n")
    state = ReadState()
    assert names(load_htaccess(htaccess, state, environ={}).nodes) == ["Header set X ${HOST}"]
    state.modules.add_loadmodule("rewrite_module", "mod_rewrite.so")
    state.variables["HOST"] = "h"
    assert names(load_htaccess(htaccess, state, environ={}).nodes) == [
        "RewriteEngine On", "Header set X h"]


def test_docroot_scan_finds_every_access_file_and_reports_skips(tmp_path: Path) -> None:
    root = tmp_path / "www"
    write(root / ".htaccess", "A 1\n")
    write(root / "a/b/c/.htaccess", "C 1\n")
    write(root / "a/.acl", "ACL 1\n")
    write(root / "a/.htaccess", "shadowed\n")
    write(tmp_path / "outside/.htaccess", "O 1\n")
    os.symlink(tmp_path / "outside", root / "link-out")
    os.symlink(root / "a", root / "link-in")
    scan = scan_docroot(root, [".acl", ".htaccess"])
    rel = [p.relative_to(root).as_posix() for p in scan.access_files]
    assert rel == [".htaccess", "a/.acl", "a/b/c/.htaccess"]
    reasons = {p.name: r for p, r in scan.skipped}
    assert "shadowed" in reasons[".htaccess"]
    assert "outside the root" in reasons["link-out"]
    assert "inside the root" in reasons["link-in"]
    assert scan.directories == 4  # www, a, a/b, a/b/c


def test_load_path_reads_accessfilename_from_the_server_config(tmp_path: Path) -> None:
    root = tmp_path / "www"
    write(root / ".acl", "Options None\n")
    write(root / ".htaccess", "Options All\n")
    conf = write(tmp_path / "httpd.conf", "AccessFileName .acl\n")
    ws = load_path(root, conf)
    assert [Path(p).name for p in ws.access] == [".acl"]

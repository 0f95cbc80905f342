"""convert --to httpd, docroot mode: the fragment, what is moved, what is carried as a comment."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.convert import ConvertError, Options, convert
from confmig.convert.httpd.text import comment_out, directory_arg, indent_first_line
from confmig.convert.result import NoteKind

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "demo-site"
NO_CHECK = Options(check=False)
SERVE_500 = Options(keep_500=False, check=False)  # --serve-500


def site(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def blocks(text: str) -> list[str]:
    return re.findall(r'^<Directory "([^"]+)">', text, flags=re.M)


def test_fragment_disables_overrides_first_then_one_block_per_file_shortest_first() -> None:
    result = convert("httpd", FIXTURE)
    root = str(FIXTURE)
    order = blocks(result.text)
    assert order[0] == root  # AllowOverride None for DOCROOT, in the fragment itself
    assert "AllowOverride None\n    AllowOverrideList None\n</Directory>" in result.text
    assert order[1:] == [root, *(f"{root}/{d}" for d in
                                 ("assets", "blog", "old", "private", "shop"))]
    for name in ("assets", "blog", "old", "private", "shop"):
        assert f"# {root}/{name}/.htaccess\n" in result.text
    assert result.untranslatable == []


def test_the_original_text_is_moved_as_written(tmp_path: Path) -> None:
    text = ("# a comment\n"
            "Header set X-Long \"a \\\n  b\"\n"  # a continuation inside quotes: kept exactly
            "  <FilesMatch \"\\.(bak|old)$\">\n      Require all denied\n  </FilesMatch>\n"
            "RewriteEngine On")  # no newline at the end of the file
    result = convert("httpd", site(tmp_path, {"sub/.htaccess": text}), options=NO_CHECK)
    body = result.text.split(f'<Directory "{tmp_path}/sub">\n', 1)[1].split("</Directory>")[0]
    assert body == ("    # a comment\n"
                    "    Header set X-Long \"a \\\n  b\"\n"
                    "      <FilesMatch \"\\.(bak|old)$\">\n          Require all denied\n"
                    "      </FilesMatch>\n"
                    "    RewriteEngine On\n")


def test_forbidden_and_unknown_directives_are_comments_and_notes(tmp_path: Path) -> None:
    root = site(tmp_path, {".htaccess": "Header set X-A 1\nphp_value memory_limit 64M\n"
                           "ServerName example.com\n"})
    result = convert("httpd", root, options=SERVE_500)
    assert "    Header set X-A 1\n" in result.text
    assert "    # php_value memory_limit 64M\n" in result.text
    assert "    # ServerName example.com\n" in result.text
    notes = {n.directive: n for n in result.untranslatable}
    assert set(notes) == {"php_value", "ServerName"}
    assert all(n.kind is NoteKind.FATAL and n.scope == str(root) for n in notes.values())
    assert "Invalid command 'php_value'" in notes["php_value"].reason
    assert "not allowed in .htaccess" in notes["ServerName"].reason
    assert all(str(n).startswith(f"{root}/.htaccess:") for n in notes.values())


def test_php_value_inside_ifmodule_moves_as_written_with_a_note(tmp_path: Path) -> None:
    root = site(tmp_path, {".htaccess": "<IfModule mod_php.c>\n  php_value upload_max 1M\n"
                           "</IfModule>\n"})
    result = convert("httpd", root, options=NO_CHECK)
    assert "    <IfModule mod_php.c>\n      php_value upload_max 1M\n" in result.text
    assert result.untranslatable == []
    assert any(n.directive == "php_value" and "mod_php is not loaded" in n.reason
               for n in result.warnings)


def test_keep_500_keeps_the_answer_and_comments_everything(tmp_path: Path) -> None:
    root = site(tmp_path, {"sub/.htaccess": "Header set X 1\nBogusDirective on\n",
                           "sub/deeper/.htaccess": "Header set Y 2\n"})
    result = convert("httpd", root, options=Options(keep_500=True, check=False))
    sub = result.text.split(f'<Directory "{root}/sub">', 1)[1].split("</Directory>")[0]
    assert "    Require expr \"-z file('')\"\n" in sub
    assert '    <FilesMatch "^">\n' in sub
    assert "    # Header set X 1\n    # BogusDirective on\n" in sub
    deeper = result.text.split(f'<Directory "{root}/sub/deeper">', 1)[1]
    assert "# Header set Y 2" in deeper.split("</Directory>")[0]
    assert result.untranslatable == []  # the 500 is kept: nothing changes
    assert any("kept as 500" in n.reason for n in result.warnings)


def test_a_symlinked_directory_gets_a_block_for_its_own_path(tmp_path: Path) -> None:
    root = site(tmp_path, {"real/.htaccess": "Header set X-Real 1\n"})
    (root / "alias").symlink_to(root / "real")
    result = convert("httpd", root, options=NO_CHECK)
    assert blocks(result.text)[1:] == [f"{root}/alias", f"{root}/real"]
    assert f"(reached through the symlink {root}/alias)" in result.text


def test_apache_rejects_a_bad_argument_and_it_becomes_a_500_note(
        tmp_path: Path, apache_binary: object) -> None:
    root = site(tmp_path, {".htaccess": "RewriteEngine On\nRewriteRule ^(unclosed $1\n"
                           "Header set X-Fine 1\n"})
    result = convert("httpd", root, options=Options(keep_500=False))  # --serve-500
    assert "    # RewriteRule ^(unclosed $1\n" in result.text
    assert "    Header set X-Fine 1\n" in result.text
    (note,) = result.untranslatable
    assert note.directive == "RewriteRule" and note.line == 2
    assert "Apache rejects it" in note.reason


def test_bad_docroot_is_an_error() -> None:
    with pytest.raises(ConvertError, match="not a directory"):
        convert("httpd", "/nonexistent/docroot")


@pytest.mark.parametrize(("path", "expected"), [
    ("/srv/www", '"/srv/www"'),
    ("/srv/a[1]/b*c?", '"/srv/a[[]1]/b[*]c[?]"'),
    ('/srv/say "hi"', '"/srv/say \\"hi\\""'),
])
def test_directory_arguments_match_exactly_that_directory(path: str, expected: str) -> None:
    assert directory_arg(path) == expected


def test_reindenting_never_touches_continuation_lines() -> None:
    raw = 'Header set X "a \\\n   b"\n'
    assert indent_first_line(raw, "    ") == '    Header set X "a \\\n   b"\n'
    assert comment_out(raw, "    ") == '    # Header set X "a \\\n    #    b"\n'


def test_cli_prints_the_fragment_and_reports_on_stderr(tmp_path: Path) -> None:
    root = site(tmp_path, {".htaccess": "Header set X 1\nBogusDirective 1\n"})
    runner = CliRunner()
    result = runner.invoke(app, ["convert", "--to", "httpd", str(root), "--serve-500"])
    assert result.exit_code == 1  # something could not be carried over
    assert f'<Directory "{root}">' in result.stdout
    assert "untranslatable: " in result.stderr and "BogusDirective" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize("args", [
    ["convert", "--to", "nginx", "/nonexistent/docroot"],
    ["convert", "--to", "flask", "/nonexistent/docroot"],
    ["convert", "/nonexistent/docroot"],
    ["convert", "--write", "."],
])
def test_cli_bad_input_is_one_line_and_exit_2(args: list[str]) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "error:" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize("options", [NO_CHECK, SERVE_500])
def test_a_run_of_blank_lines_is_moved_line_for_line(tmp_path: Path, options: Options) -> None:
    """The parser makes a run of blank lines one Blank node (issue 10: a 1 MB file of blank
    lines was 66x its size); the moved block still has each of them, as written or as a
    commented-out file (``Bogus`` makes Apache answer 500: --serve-500 comments it out)."""
    text = "Header set X-A a\n\n\n\nBogus x\n  \n\t\nHeader set X-B b\n"
    result = convert("httpd", site(tmp_path, {"sub/.htaccess": text}), options=options)
    body = result.text.split(f'<Directory "{tmp_path}/sub">\n', 1)[1].split("</Directory>")[0]
    blank = [line for line in body.split("\n") if not line.strip()]
    assert len(blank) == 5 + 1  # and the empty string after the body's last newline


@pytest.mark.parametrize("name", ["x\nRequire all granted #", "x\rAllow from all",
                                  'x">\nRequire all granted\n<Directory "y'])
def test_a_directory_name_with_a_line_break_is_refused(tmp_path: Path, name: str) -> None:
    """Apache's configuration cannot name such a directory (a <Directory> line is one line):
    the name's second line was written out live (a directive of its own at server level, or
    quotes that closed the section early and moved the file's lines to another block)."""
    root = site(tmp_path, {f"{name}/.htaccess": "Require all denied\n"})
    with pytest.raises(ConvertError, match="line break"):
        convert("httpd", root, options=NO_CHECK)
    result = CliRunner().invoke(app, ["convert", "--to", "httpd", str(root)])
    assert result.exit_code == 2
    assert "Require all granted" not in result.stdout and "Allow from all" not in result.stdout

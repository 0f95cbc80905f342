"""convert --to httpd moves a run of comment lines (one Comment node since the parser made
runs one node, issue 10) line for line, as it moved a node a line before: each line gets the
block's indent before its own, or is commented out on its own."""

from __future__ import annotations

from pathlib import Path

from confmig.convert import Options, convert

# comment runs of several indents (a tab, a CR before the newline), next to blank lines, a
# continuation inside quotes, a section, a continued comment that swallows a directive, and
# a run at the end of the file
TEXT = ("# one\n  # two\n\t# three\r\n#\n"
        "Header set X-A a\n"
        "\n\n"
        "<IfModule mod_headers.c>\n"
        "    # inside\n  # inside two\n"
        "    Header set X-B \"b \\\n      c\"\n"
        "\n"
        "    # after a blank line\n"
        "</IfModule>\n"
        "# cont \\\nHeader set X-C c\n"
        "#x\n#  y  \n"
        "Header set X-D d\n"
        "# last\n#\n")

# what the converter wrote before comment lines were runs (HEAD cc62615), byte for byte
MOVED = ('    # one\n      # two\n    \t# three\r\n    #\n    Header set X-A a\n\n\n'
         '    <IfModule mod_headers.c>\n        # inside\n      # inside two\n'
         '        Header set X-B "b \\\n      c"\n\n        # after a blank line\n'
         '    </IfModule>\n    # cont \\\nHeader set X-C c\n    #x\n    #  y  \n'
         '    Header set X-D d\n    # last\n    #\n')
COMMENTED = ('    # # one\n    # # two\n    # # three\r\n    # #\n    # Header set X-A a\n\n\n'
             '    # <IfModule mod_headers.c>\n    #     # inside\n    #   # inside two\n'
             '    #     Header set X-B "b \\\n    #       c"\n    #\n'
             '    #     # after a blank line\n    # </IfModule>\n    # # cont \\\n'
             '    # Header set X-C c\n    # #x\n    # #  y  \n    # Header set X-D d\n'
             '    # # last\n    # #\n    # Bogus x\n')


def _body(root: Path, text: str) -> str:
    (root / "sub").mkdir()
    (root / "sub" / ".htaccess").write_text(text)
    result = convert("httpd", root, options=Options(check=False))
    return result.text.split(f'<Directory "{root}/sub">\n', 1)[1].split("</Directory>")[0]


def test_comment_runs_are_moved_line_for_line(tmp_path: Path) -> None:
    assert _body(tmp_path, TEXT) == MOVED


def test_comment_runs_are_commented_out_line_for_line(tmp_path: Path) -> None:
    # Bogus makes Apache answer 500: the file is kept, every line commented out
    body = _body(tmp_path, TEXT + "Bogus x\n")
    assert body.endswith(COMMENTED)
    assert "Apache answered 500" in body.split(COMMENTED)[0]

"""``confmig parse --format json`` streams the document (confmig.load.report): the pieces are
exactly ``json.dumps`` of the whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from confmig.load import load_path
from confmig.load.report import workspace_json, workspace_json_chunks

ROOT = Path(__file__).resolve().parents[1]


def test_chunks_are_the_whole_document(tmp_path: Path) -> None:
    (tmp_path / "conf.d").mkdir()
    (tmp_path / "conf.d" / "a.conf").write_bytes(b"# caf\xe9\nServerAdmin a@b\n")
    (tmp_path / "httpd.conf").write_text(
        "ServerRoot " + str(tmp_path) + "\nInclude conf.d\n<IfModule nothere>\n</IfModule>\n"
        "<Directory /x>\n  <Files y>\n    Require all denied\n  </Files>\n</Directory>\n"
        "<IfModule mod_headers.c>\n")
    for path in (tmp_path / "httpd.conf", ROOT / "fixtures" / "demo-site"):
        ws = load_path(path)
        assert "".join(workspace_json_chunks(ws)) == json.dumps(workspace_json(ws))


def _nested(depth: int, body: str) -> str:
    return "".join(f"<IfModule m{i}.c>\n" for i in range(depth)) + body + \
        "</IfModule>\n" * depth


@pytest.mark.parametrize("text", [
    "",
    "# only a comment\n\n",
    "<Files a>\n</Files>\n<Files b>\n# c\n</Files>\nOptions -Indexes\n",
    _nested(120, "Header set X-A \"b c\"\n<Files x>\n</Files>\nRequire all denied\n"),
    "Header set X-\xe9 \"caf\xe9 \\\" \\\\ \x01\"\nRedirect /a\udcff /b\n"
    "<If \"%{HTTP_HOST} == 'a'\">\n  Header set \"\u2603\" '\t'\n</If>\n",
    "<IfModule headers_module>\n" + "".join(f"Header set X-{i} {i}\n" for i in range(200))
    + "<Files \"a b\">\nRequire all denied\n</Files>\n</IfModule>\nAddType a/b .c\n",
])
def test_chunks_are_json_dumps_of_every_node_at_any_depth(tmp_path: Path, text: str) -> None:
    """The nodes are written a directive at a time, a section's block as its children are:
    the bytes of ``json.dumps`` of the whole, whatever the nesting (120 sections deep)."""
    (tmp_path / ".htaccess").write_bytes(text.encode("utf-8", "surrogateescape"))
    ws = load_path(tmp_path / ".htaccess")
    chunks = list(workspace_json_chunks(ws))
    assert "".join(chunks) == json.dumps(workspace_json(ws))
    assert max(map(len, chunks)) < 2_000  # no node's text built whole, not even a section's

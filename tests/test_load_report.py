"""``confmig parse --format json`` streams the document (confmig.load.report): the pieces are
exactly ``json.dumps`` of the whole."""

from __future__ import annotations

import json
from pathlib import Path

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

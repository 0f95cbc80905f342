"""Where Apache resolves a relative ``<Directory>`` path, asked of a real daemonised Apache.

The converter (confmig/convert/httpd/layout.py), the linter and the request model (all through
confmig/apache/paths.py) assume a relative path means ``/path``: not
ServerRoot, not the directory Apache was started from, because a daemonised Apache re-reads
its configuration after ``chdir("/")``.  This test starts Apache the normal way (``-k start``,
which detaches) from a third directory and looks at which ``<Directory>`` applied.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from confmig.load import load_path
from confmig.model.evaluate import evaluate
from confmig.model.request import Request
from confmig.servers import ApacheServer, daemonised, http_get, make_docroot

pytestmark = pytest.mark.apache


def test_a_relative_directory_path_is_resolved_against_slash(apache_binary, tmp_path: Path):
    docroot = make_docroot(files={"index.html": "hello\n"})
    from_slash = os.path.relpath(docroot, "/")            # tmp/confmig-www-…
    started_in = tmp_path / "elsewhere"
    started_in.mkdir()
    (started_in / "site").mkdir()
    extra = (f'<Directory "{from_slash}">\n    Header set X-Resolved slash\n</Directory>\n'
             '<Directory "site">\n    Header set X-Resolved cwd\n</Directory>\n')
    server = ApacheServer(docroot, extra_config=extra, keep_dir=True)
    conf: Path | None = None
    try:
        with server:  # writes and checks the private config; we then run it as a daemon
            pass
        conf, port = server.conf_path, server.port
        with daemonised(server, started_in) as url:
            response = http_get(url, "/index.html")
        assert response.status == 200
        assert response.headers.get("X-Resolved") == "slash"
        # The request model reads the same configuration the same way.
        answer = evaluate(load_path(conf),
                          Request.from_url(f"http://127.0.0.1:{port}/index.html"), trace=False)
        assert answer.status == 200
        assert answer.headers.get("X-Resolved") == "slash"
    finally:
        if conf is not None:
            shutil.rmtree(conf.parent, ignore_errors=True)
        shutil.rmtree(docroot, ignore_errors=True)

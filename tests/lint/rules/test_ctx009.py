"""CTX009 (an access file Apache cannot read as one, or confmig did not read): the server
config form (AccessFileName naming a directory) checked on real Apache, and the docroot form
with what is in force (AllowOverride None: Apache never opens it, info only)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from confmig.lint.config import Settings
from confmig.lint.engine import lint_paths
from confmig.lint.finding import Severity
from confmig.lint.testing import finds
from confmig.servers import ApacheBinary, ApacheServer, http_get, make_docroot


@pytest.mark.parametrize("name, flagged", [
    (".", True), ("..", True), ("conf/", True), (".htaccess", False), (".acl .htaccess", False),
    (".htaccess .", True),
])
def test_accessfilename_naming_a_directory(name: str, flagged: bool) -> None:
    text = f"AccessFileName {name}\n<Directory /srv/www>\n    AllowOverride All\n</Directory>\n"
    found = finds("CTX009", text, kind="server", filename="httpd.conf")
    assert bool(found) is flagged, found


def test_apache_answers_403_for_accessfilename_dot(apache_binary: ApacheBinary) -> None:
    """The claim of the server-config form: `.` is the directory itself, not a regular file."""
    root = make_docroot(files={"f.txt": "x\n"})
    (root / "f.txt").chmod(0o644)
    try:
        with ApacheServer(root, extra_config="AccessFileName .\n", binary=apache_binary) as srv:
            assert http_get(srv.base_url, "/f.txt").status == 403
            assert "AH00554" in srv.error_log_text()
        with ApacheServer(root, allow_override="None", extra_config="AccessFileName .\n",
                          binary=apache_binary) as srv:
            assert http_get(srv.base_url, "/f.txt").status == 200  # never opened
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_docroot_form_depends_on_what_is_in_force(tmp_path: Path) -> None:
    www = tmp_path / "www"
    (www / "open" / ".htaccess").mkdir(parents=True)
    (www / "closed" / ".htaccess").mkdir(parents=True)
    os.mkfifo(www / "pipe.htaccess")
    conf = tmp_path / "httpd.conf"
    conf.write_text(f"DocumentRoot {www}\n<Directory {www}>\n    AllowOverride All\n"
                    f"</Directory>\n<Directory {www}/closed>\n    AllowOverride None\n"
                    "</Directory>\n")
    result = lint_paths([www], conf, use_cache=False)
    by_dir = {Path(f.file).parent.name: f for f in result.findings if f.code == "CTX009"}
    assert by_dir["open"].severity is Severity.error and "403" in by_dir["open"].message
    assert by_dir["closed"].severity is Severity.info
    assert "never opens it" in by_dir["closed"].message
    assert all(f.line == 0 and f.location == f.file for f in by_dir.values())
    ignored = lint_paths([www], conf, use_cache=False,
                         settings=Settings(ignore=("CTX009",)))
    assert not [f for f in ignored.findings if f.code == "CTX009"]

"""A FIFO named ``.htaccess`` hangs more than its own directory: mod_autoindex lists a
directory by looking every entry up with a sub-request, and the one for the FIFO's directory
blocks in ``open()`` — so the listing of the parent never answers either (checked here on real
Apache).  The model says so (403, as for the FIFO's directory), and the converted
configuration does not list that parent (403, announced) instead of listing it without the
entry (issue 10).  A directory named ``.htaccess`` only drops its entry from the listing."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.httpd import convert_docroot
from confmig.model.explain import explain_request
from confmig.servers import ApacheBinary, ApacheServer, make_docroot
from tests.fifos import status_or_hang

pytestmark = pytest.mark.apache

FILES = {"p/plain.txt": "x\n", "p/ok/f.txt": "x\n", "p/fifo/f.txt": "x\n",
         "r/index.html": "r\n", "r/fifo/f.txt": "x\n",
         "q/plain.txt": "x\n", "q/ok/f.txt": "x\n", "q/dirht/f.txt": "x\n",
         # a DirectoryIndex whose sub-request walks into a FIFO's directory hangs too
         "d/.htaccess": "DirectoryIndex fifo/index.html\n", "d/fifo/index.html": "x\n",
         "d/x.txt": "x\n"}
FIFOS = ("p/fifo/.htaccess", "r/fifo/.htaccess", "d/fifo/.htaccess")
PATHS = ("/p/", "/p", "/p/plain.txt", "/p/ok/", "/r/", "/q/", "/q/ok/", "/d/", "/d/x.txt")


@pytest.fixture
def tree() -> Iterator[Path]:
    root = make_docroot(prefix="confmig-fifo-", files=FILES)
    (root / "q" / "dirht" / ".htaccess").mkdir()
    for fifo in FIFOS:
        os.mkfifo(root / fifo)
        os.chmod(root / fifo, 0o644)
    for path in root.rglob("*"):
        if path.is_dir():
            path.chmod(0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def answers(server: ApacheServer, root: Path) -> dict[str, int | str]:
    """Status of each path; "hangs" when Apache was found blocked opening a FIFO (which is
    then opened for writing once, so that Apache's open() returns)."""
    return {path: status_or_hang(server.base_url, path, [root / f for f in FIFOS])
            for path in PATHS}


def test_apache_model_and_converted_config(apache_binary: ApacheBinary, tree: Path) -> None:
    with ApacheServer(tree, options="Indexes FollowSymLinks", binary=apache_binary) as server:
        apache = answers(server, tree)
        model = {p: explain_request(p, root=tree, config=server.conf_path).status
                 for p in PATHS}
        listing = explain_request("/p/", root=tree, config=server.conf_path)
    assert apache == {"/p/": "hangs", "/p": 301, "/p/plain.txt": 200, "/p/ok/": 200,
                      "/r/": 200, "/q/": 200, "/q/ok/": 200, "/d/": "hangs",
                      "/d/x.txt": 200}, apache
    assert model == {**apache, "/p/": 403, "/d/": 403}, model
    assert any("FIFO" in step.message for step in listing.steps), listing.steps
    assert any("never answers" in note for note in listing.unsupported), listing.unsupported

    result = convert_docroot(tree)
    with ApacheServer(tree, options="Indexes FollowSymLinks", allow_override="None",
                      extra_config=result.text, binary=apache_binary) as converted:
        after = answers(converted, tree)
    assert after == {**apache, "/p/": 403, "/d/": 403}, after
    for parent in ("p", "d"):
        said = [n.reason for n in result.untranslatable if n.scope == f"{tree}/{parent}"]
        assert said and "listing" in said[0] and "never answers" in said[0], said


def test_the_site_plan_lists_nothing_where_apache_hangs(tree: Path) -> None:
    """The target-neutral plan (nginx, Flask): no listing for the FIFO's parent, announced;
    its other subdirectories are scopes of their own and keep their listing."""
    from confmig.model.plan.build import plan_docroot

    (tree / ".htaccess").write_text("Options +Indexes\n")
    plan = plan_docroot(tree)
    scopes = {s.directory: s for s in plan.scopes}
    assert scopes[f"{tree}/p"].settings.indexes is False
    assert scopes[f"{tree}/p/ok"].settings.indexes is True
    assert plan.scope_for(f"{tree}/q").settings.indexes is True
    said = [n for n in plan.notes if n.scope == f"{tree}/p"]
    assert said and "never answers" in said[0].reason

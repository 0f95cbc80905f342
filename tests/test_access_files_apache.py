"""What real Apache does with access files that are not plain regular files in the docroot
(issue 10), and that the model (explain) and the converted configuration agree with it.

Facts (Apache 2.4, ``ap_parse_htaccess`` → ``ap_pcfg_openfile``; see confmig.load.accessfile):

* a symlinked ``.htaccess`` is read wherever it points, under ``Options FollowSymLinks``,
  ``SymLinksIfOwnerMatch`` and neither: symlink options apply to the walked path only;
* a directory named ``.htaccess``: 403 (AH00554 "not a regular file", AH00529) for its
  directory and below — and nothing under ``AllowOverride None`` (never opened);
* a dangling symlink: as if absent; a target the worker cannot read: 403 (AH00529);
* a FIFO: the request hangs in ``open()`` until something writes into the FIFO;
* a symlinked directory: followed with FollowSymLinks (its own ``.htaccess`` applies), 403
  (AH00037) with SymLinksIfOwnerMatch and a different owner, or with neither.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.httpd.fragment import convert_docroot
from confmig.model.explain import explain_request
from confmig.servers import ApacheBinary, ApacheServer, http_get, make_docroot
from tests.fifos import HANGS, status_or_hang

AS_ROOT = os.geteuid() == 0
OTHER_UID = 33 if AS_ROOT else None  # www-data: a link owned by someone else


@pytest.fixture
def tree() -> Iterator[tuple[Path, Path]]:
    """(docroot, outside): the cases, one directory each, with f.txt to request."""
    root = make_docroot()
    outside = make_docroot(prefix="confmig-outside-")
    (outside / "denied.ht").write_text("Require all denied\n")
    (outside / "denied.ht").chmod(0o644)
    (outside / "private.ht").write_text("Options -Indexes\n")  # 403 only if unreadable
    (outside / "private.ht").chmod(0o600)
    for name, ht in (("dir", "Require all denied\n"), ("dir2", None)):
        (outside / name).mkdir()
        (outside / name).chmod(0o755)
        (outside / name / "f.txt").write_text("out\n")
        (outside / name / "f.txt").chmod(0o644)
        if ht:
            (outside / name / ".htaccess").write_text(ht)
            (outside / name / ".htaccess").chmod(0o644)
    for name in ("ok", "linked", "private", "unreadable", "dirht", "dangling", "fifo"):
        (root / name).mkdir()
        (root / name).chmod(0o755)
        (root / name / "f.txt").write_text("x\n")
        (root / name / "f.txt").chmod(0o644)
    os.symlink(outside / "denied.ht", root / "linked" / ".htaccess")
    os.symlink(outside / "private.ht", root / "private" / ".htaccess")
    (root / "unreadable" / ".htaccess").write_text("Options -Indexes\n")
    (root / "unreadable" / ".htaccess").chmod(0o600)  # root's: www-data cannot open it
    (root / "dirht" / ".htaccess").mkdir()
    os.symlink(root / "nothing", root / "dangling" / ".htaccess")
    os.mkfifo(root / "fifo" / ".htaccess")
    os.chmod(root / "fifo" / ".htaccess", 0o644)
    os.symlink(outside / "dir", root / "link")
    os.symlink(outside / "dir2", root / "link2")
    if OTHER_UID is not None:
        for name in ("link", "link2", "linked/.htaccess"):
            os.lchown(root / name, OTHER_UID, OTHER_UID)
    yield root, outside
    shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(outside, ignore_errors=True)


PATHS = ["/ok/f.txt", "/linked/f.txt", "/private/f.txt", "/unreadable/f.txt", "/dirht/f.txt",
         "/dangling/f.txt", "/link/f.txt", "/link2/f.txt"]


def statuses(server: ApacheServer) -> dict[str, int]:
    return {path: http_get(server.base_url, path).status for path in PATHS}


def fifo_hangs(server: ApacheServer, fifo: Path) -> bool:
    """The request for the FIFO's directory gets no answer until a writer opens the FIFO
    (Apache is found waiting in its open(), whatever the time the answer would take)."""
    return status_or_hang(server.base_url, "/fifo/f.txt", [fifo]) == HANGS


@pytest.mark.parametrize("options", ["FollowSymLinks", "SymLinksIfOwnerMatch", "None"])
def test_apache_reads_a_symlinked_htaccess_under_any_options(
        apache_binary: ApacheBinary, tree: tuple[Path, Path], options: str) -> None:
    root, _ = tree
    with ApacheServer(root, options=options, binary=apache_binary) as server:
        got = statuses(server)
        hung = fifo_hangs(server, root / "fifo" / ".htaccess")
        log = server.error_log_text()
        model = {path: explain_request(path, root=root, config=server.conf_path,
                                       follow_symlinks=True).status for path in PATHS}
        at_fifo = explain_request("/fifo/f.txt", root=root, config=server.conf_path)
    assert got["/ok/f.txt"] == 200 and got["/dangling/f.txt"] == 200
    assert got["/linked/f.txt"] == 403  # its (outside) file was read: Require all denied
    assert got["/dirht/f.txt"] == 403 and "AH00554" in log
    if AS_ROOT:  # the worker (www-data) cannot open a 0600 root file
        assert got["/private/f.txt"] == 403 and "Permission denied" in log
        assert got["/unreadable/f.txt"] == 403
    assert hung
    # the link is owned by another user only as root (lchown)
    owner_match = options == "SymLinksIfOwnerMatch" and not AS_ROOT
    expected_link2 = 200 if options == "FollowSymLinks" or owner_match else 403
    assert got["/link2/f.txt"] == expected_link2
    assert got["/link/f.txt"] == 403  # denied by its own .htaccess, or the link refused
    # The model, reading what Apache reads (--follow-symlinks), gives the same answers.
    assert model == got
    # where Apache hangs, the model's 403 is said to be a stand-in, not Apache's answer
    assert at_fifo.status == 403
    assert any("never answers" in note for note in at_fifo.unsupported), at_fifo.unsupported


def test_a_directory_named_htaccess_is_never_opened_under_allowoverride_none(
        apache_binary: ApacheBinary, tree: tuple[Path, Path]) -> None:
    root, _ = tree
    with ApacheServer(root, allow_override="None", binary=apache_binary) as server:
        assert http_get(server.base_url, "/dirht/f.txt").status == 200
        assert status_or_hang(server.base_url, "/fifo/f.txt", [root / "fifo" / ".htaccess"]) == 200
        model = explain_request("/dirht/f.txt", root=root, config=server.conf_path).status
    assert model == 200


def test_the_converted_config_denies_what_apache_denied_or_hung_on(
        apache_binary: ApacheBinary, tree: tuple[Path, Path]) -> None:
    """convert --to httpd (no --follow-symlinks): never 200 where Apache did not answer 200."""
    root, _ = tree
    with ApacheServer(root, binary=apache_binary) as original:
        before = statuses(original)
        assert fifo_hangs(original, root / "fifo" / ".htaccess")
    result = convert_docroot(root)
    assert "outside.txt" not in result.text
    with ApacheServer(root, allow_override="None", extra_config=result.text,
                      binary=apache_binary) as converted:
        after = statuses(converted)
        fifo = status_or_hang(converted.base_url, "/fifo/f.txt", [root / "fifo" / ".htaccess"])
    assert fifo == 403
    for path, status in after.items():
        assert status != 200 or before[path] == 200, (path, before, after)
    assert after["/dirht/f.txt"] == 403 and after["/linked/f.txt"] == 403
    assert after["/link/f.txt"] == 403 and after["/link2/f.txt"] == 403  # not walked: denied
    assert after["/ok/f.txt"] == 200 and after["/dangling/f.txt"] == 200
    if AS_ROOT:  # Apache's worker cannot read it: denied, not converted and served
        assert after["/unreadable/f.txt"] == 403
    announced = " ".join(str(n) for n in result.warnings + result.untranslatable)
    # A hang turned into a 403, or a file confmig did not read: said to differ, never wider.
    unfaithful = " ".join(str(n) for n in result.untranslatable)
    assert "FIFO" in unfaithful and "outside the root" in unfaithful
    assert "not a regular file" in announced and "FIFO" in announced
    assert "outside the root" in announced

"""The exact file-system work per request, counted with strace on real Apache.

Formula (see :func:`confmig.bench.tree.expected_htaccess_opens`): a request for a file at
level k makes k + 2 ``.htaccess`` open attempts with ``AllowOverride All`` — the docroot and each
directory on the way (ENOENT or a hit), plus ``FILE/.htaccess`` (ENOTDIR) — and none with
``None``. Each hit then costs 4 more calls (fstat, read, read to EOF, close).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.bench.syscalls import SyscallSummary, trace_requests
from confmig.bench.targets import ApacheHtaccessTarget, Target, TargetContext
from confmig.bench.tree import SiteFiles, TreeSpec, expected_htaccess_opens, generate_tree
from confmig.bench.urls import select_urls
from confmig.servers import ApacheServer, ManagedServer

pytestmark = [pytest.mark.apache, pytest.mark.usefixtures("apache", "strace")]


class _NoneTarget(Target):
    """Apache with AllowOverride None on the same tree (no conversion needed for counting)."""

    name = "apache-none"
    description = "AllowOverride None"

    def make_server(self) -> ManagedServer:
        return ApacheServer(self.ctx.docroot, allow_override="None", mpm=self.ctx.mpm)


@pytest.fixture
def workdir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="confmig-bench-test-"))
    path.chmod(0o755)  # the server's workers must enter it
    yield path
    shutil.rmtree(path, ignore_errors=True)


def count(cls: type[Target], site: SiteFiles, urls: str, workdir: Path,
          mpm: str = "event") -> SyscallSummary:
    target = cls(TargetContext(site.docroot, mpm, None, workdir))
    target.start()
    try:
        summary = trace_requests(target.process_ids, target.base_url,
                                 select_urls(site, urls), requests=40, workdir=workdir)
    finally:
        target.stop()
    assert summary.available, summary.reason
    assert summary.requests == 40
    return summary


@pytest.mark.parametrize("depth", [3, 10])
def test_htaccess_open_attempts_at_the_deepest_level(depth: int, workdir: Path) -> None:
    site = generate_tree(TreeSpec(depth, 4, "leaf"), parent=workdir)
    with_all = count(ApacheHtaccessTarget, site, "deepest", workdir)
    assert with_all.htaccess_opens == expected_htaccess_opens(depth) == depth + 2
    assert with_all.htaccess_by_outcome == {"ENOENT": depth, "hit": 1, "ENOTDIR": 1}
    with_none = count(_NoneTarget, site, "deepest", workdir)
    assert with_none.htaccess_opens == expected_htaccess_opens(depth, False) == 0
    # the whole difference in work per request: the lookups plus reading the one hit
    assert with_all.work_syscalls - with_none.work_syscalls == depth + 2 + 4
    assert with_all.fs_syscalls - with_none.fs_syscalls == depth + 2 + 4
    assert with_none.fs_syscalls == 4  # stat, open, mmap, close of the file itself


def test_every_level_and_mixed_depths_with_prefork(workdir: Path) -> None:
    site = generate_tree(TreeSpec(3, 4, "every"), parent=workdir)
    summary = count(ApacheHtaccessTarget, site, "random", workdir, mpm="prefork")
    assert summary.per_level == {k: expected_htaccess_opens(k) for k in range(4)}
    deepest = count(ApacheHtaccessTarget, site, "deepest", workdir, mpm="prefork")
    assert deepest.htaccess_by_outcome == {"ENOENT": 1, "hit": 3, "ENOTDIR": 1}

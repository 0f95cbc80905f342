"""Shared fixtures. Servers: real binaries (skip only when absent) and worker-readable docroots."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import settings

from confmig.servers import (
    ApacheBinary,
    NginxBinary,
    ServerNotFound,
    find_apache,
    find_nginx,
    make_docroot,
)
from confmig.servers.phpfpm import find_php_fpm

# scripts/test.sh (CI's command) runs with --hypothesis-profile=ci: every property test draws the
# same examples on every run (derived from the test itself), so a red run is reproducible from its
# commit alone, never a lucky draw. A plain `pytest` keeps exploring new examples (and the local
# example database replays what failed).
settings.register_profile("ci", derandomize=True)


@pytest.fixture(scope="session")
def apache_binary() -> ApacheBinary:
    try:
        return find_apache()
    except ServerNotFound as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def nginx_binary() -> NginxBinary:
    try:
        return find_nginx()
    except ServerNotFound as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def php_fpm_binary() -> Path:
    try:
        return find_php_fpm()
    except ServerNotFound as exc:
        pytest.skip(str(exc))


#: builds a worker-readable docroot from {relative path: content} (the ``make_site`` fixture)
SiteMaker = Callable[[Mapping[str, str | bytes]], Path]


@pytest.fixture
def make_site() -> Iterator[SiteMaker]:
    """Build as many docroots as a test needs (``make_site({".htaccess": …, "a.txt": …})``);
    all removed afterwards."""
    made: list[Path] = []

    def build(files: Mapping[str, str | bytes]) -> Path:
        root = make_docroot(prefix="confmig-site-", files=files)
        made.append(root)
        return root

    yield build
    for root in made:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def docroot() -> Iterator[Path]:
    """A 0755 temp dir under /tmp: unlike tmp_path, www-data workers can read it when root."""
    root = make_docroot()
    yield root
    shutil.rmtree(root, ignore_errors=True)

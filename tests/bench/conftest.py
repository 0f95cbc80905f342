"""Fixtures for the benchmark tests: real Apache (skip only when absent) and its tools."""

from __future__ import annotations

import shutil

import pytest

from confmig.servers import ServerNotFound, find_apache


@pytest.fixture(scope="session")
def apache() -> None:
    try:
        find_apache()
    except ServerNotFound as exc:
        pytest.skip(str(exc))


@pytest.fixture(scope="session")
def strace() -> None:
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed (apt-get install strace)")


@pytest.fixture(scope="session")
def wrk() -> None:
    if shutil.which("wrk") is None:
        pytest.skip("wrk is not installed (apt-get install wrk)")

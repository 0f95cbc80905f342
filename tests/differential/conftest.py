"""One real Apache serves every differential site for the whole session (started lazily); the
sites that need main-server configuration get a second one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from confmig.servers import ServerNotFound, find_apache
from tests.differential.harness import Harness, Outcome, SiteSpec
from tests.differential.sites import all_sites, login_sites, main_server_sites
from tests.differential.sites_integration import MAIN_EXTRA
from tests.differential.sites_logins import LOGIN_MODULES


def _outcomes(sites: list[SiteSpec], main_extra: str = "", extra_modules: tuple[str, ...] = ()
              ) -> Iterator[dict[tuple[str, int], Outcome]]:
    """Every case of *sites*, asked of Apache and of the model, keyed (site, case index)."""
    try:
        find_apache()
    except ServerNotFound as exc:
        pytest.skip(str(exc))
    harness = Harness(sites, main_extra=main_extra, extra_modules=extra_modules)
    harness.start()
    try:
        try:
            results = harness.run()
        finally:
            # Every answer is in: the server does not live on through the rest of the session
            # (its files stay until the end, for the model's answers that name them).
            if harness.server is not None:
                harness.server.stop()
        index: dict[tuple[str, int], Outcome] = {}
        counters: dict[str, int] = {}
        for outcome in results:
            n = counters.get(outcome.site.name, 0)
            counters[outcome.site.name] = n + 1
            index[(outcome.site.name, n)] = outcome
        yield index
    finally:
        harness.stop()


@pytest.fixture(scope="session")
def outcomes() -> Iterator[dict[tuple[str, int], Outcome]]:
    """The shared Apache's sites (:func:`~tests.differential.sites.all_sites`)."""
    yield from _outcomes(all_sites())


@pytest.fixture(scope="session")
def main_server_outcomes() -> Iterator[dict[tuple[str, int], Outcome]]:
    """The sites whose Apache has main-server rewrite rules (:data:`MAIN_EXTRA`)."""
    yield from _outcomes(main_server_sites(), MAIN_EXTRA)


@pytest.fixture(scope="session")
def login_outcomes() -> Iterator[dict[tuple[str, int], Outcome]]:
    """The login sites, on an Apache that also loads :data:`LOGIN_MODULES`."""
    yield from _outcomes(login_sites(), extra_modules=LOGIN_MODULES)

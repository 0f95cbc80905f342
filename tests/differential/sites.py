"""Every differential site, from the topic modules (the corpus ones only when
``../shared/corpus`` is present)."""

from __future__ import annotations

from functools import cache

from tests.differential import (
    sites_access,
    sites_core,
    sites_corpus,
    sites_expr,
    sites_integration,
    sites_limits,
    sites_logins,
    sites_rewrite,
    sites_rewrite_more,
)
from tests.differential.harness import SiteSpec


@cache
def _sites() -> tuple[SiteSpec, ...]:
    makers = [*sites_core.SITES, *sites_access.SITES, *sites_rewrite.SITES,
              *sites_rewrite_more.SITES, *sites_integration.SITES,
              *sites_limits.SITES, *sites_expr.SITES]
    if sites_corpus.available():
        makers.extend(sites_corpus.SITES)
    return tuple(make() for make in makers)


def all_sites() -> list[SiteSpec]:
    return list(_sites())


@cache
def _main_server_sites() -> tuple[SiteSpec, ...]:
    return tuple(make() for make in sites_integration.MAIN_SERVER_SITES)


def main_server_sites() -> list[SiteSpec]:
    """Sites that need :data:`~tests.differential.sites_integration.MAIN_EXTRA` in the main
    server: they get an Apache of their own."""
    return list(_main_server_sites())


@cache
def _login_sites() -> tuple[SiteSpec, ...]:
    return tuple(make() for make in sites_logins.SITES)


def login_sites() -> list[SiteSpec]:
    """Sites that need :data:`~tests.differential.sites_logins.LOGIN_MODULES`: they get an
    Apache of their own."""
    return list(_login_sites())

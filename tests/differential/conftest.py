"""One real Apache serves every differential site for the whole session (started lazily)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from confmig.servers import ServerNotFound, find_apache
from tests.differential.harness import Harness, Outcome
from tests.differential.sites import all_sites


@pytest.fixture(scope="session")
def outcomes() -> Iterator[dict[tuple[str, int], Outcome]]:
    """Every case of every site, asked of Apache and of the model, keyed (site, case index)."""
    try:
        find_apache()
    except ServerNotFound as exc:
        pytest.skip(str(exc))
    harness = Harness(all_sites())
    harness.start()
    try:
        results = harness.run()
        index: dict[tuple[str, int], Outcome] = {}
        counters: dict[str, int] = {}
        for outcome in results:
            n = counters.get(outcome.site.name, 0)
            counters[outcome.site.name] = n + 1
            index[(outcome.site.name, n)] = outcome
        yield index
    finally:
        harness.stop()

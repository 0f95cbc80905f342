"""PCRE's match limit in every module and the default ``[N]`` round limit, on an Apache of
their own (``sites_limits.OWN_SERVER_SITES``: each request costs ten million backtracking
steps or 32,000 rewrite rounds, so they are sent one at a time with a long timeout), compared
as the differential suite compares; the model says a limit decided exactly where the case is
about one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from confmig.model.evaluate import evaluate
from confmig.servers import ApacheBinary, http_get
from tests.differential.harness import Harness, Observed, Outcome, served_file
from tests.differential.sites_limits import OWN_SERVER_SITES
from tests.differential.test_differential import check

pytestmark = pytest.mark.apache

SITES = [make() for make in OWN_SERVER_SITES]
CASES = [(site, case) for site in SITES for case in site.cases]


@pytest.fixture(scope="module")
def harness(apache_binary: ApacheBinary) -> Iterator[Harness]:
    h = Harness(SITES)
    h.start()
    try:
        yield h
    finally:
        h.stop()


@pytest.mark.parametrize(("site", "case"), CASES,
                         ids=[f"{s.name}:{c.path[:12]}…{len(c.path)}" for s, c in CASES])
def test_match_limit_answers_match_apache(harness: Harness, site: object, case: object) -> None:
    assert harness.server is not None and harness.site_model is not None
    resp = http_get(harness.server.base_url, case.path,  # type: ignore[attr-defined]
                    harness.headers(site, case), timeout=120)  # type: ignore[arg-type]
    observed = Observed(resp.status, resp.headers.get("Location"), served_file(resp), resp)
    request = harness.request(site, case)  # type: ignore[arg-type]
    model = evaluate(harness.site_model, request)
    fast = evaluate(harness.site_model, request, trace=False)
    check(Outcome(site, case, observed, model, fast))  # type: ignore[arg-type]
    limit_side = "limit" in case.why  # type: ignore[attr-defined]
    assert bool(model.limits) == limit_side, model.limits

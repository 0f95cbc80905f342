"""Differential tests: the model's status, Location and served file equal real Apache's."""

from __future__ import annotations

import pytest

from tests.differential.harness import Outcome, describe, header_mismatches, real_file
from tests.differential.sites import all_sites

CASES = [(site.name, i, case) for site in all_sites() for i, case in enumerate(site.cases)]


@pytest.mark.apache
@pytest.mark.parametrize(("site", "index", "case"), CASES,
                         ids=[f"{s}:{c.method} {c.path}" for s, _, c in CASES])
def test_model_matches_apache(outcomes: dict[tuple[str, int], Outcome], site: str, index: int,
                              case: object) -> None:
    outcome = outcomes[(site, index)]
    apache, model = outcome.apache, outcome.model
    # A HEAD response has no body to tell the file by: compare status and Location only.
    model_file = real_file(model) if outcome.case.method != "HEAD" else apache.file
    assert (model.status, model.location, model_file) == (
        apache.status, apache.location, apache.file), describe(outcome)
    assert not header_mismatches(outcome), (header_mismatches(outcome), describe(outcome))


def test_enough_cases_and_sites() -> None:
    sites = all_sites()
    assert len(sites) >= 30
    assert sum(len(s.cases) for s in sites) >= 200

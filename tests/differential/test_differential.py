"""Differential tests: the model's status, Location and served file equal real Apache's."""

from __future__ import annotations

import pytest

from tests.differential.harness import Outcome, describe, header_mismatches, real_file
from tests.differential.sites import all_sites, login_sites, main_server_sites

CASES = [(site.name, i, case) for site in all_sites() for i, case in enumerate(site.cases)]
MAIN_CASES = [(site.name, i, case) for site in main_server_sites()
              for i, case in enumerate(site.cases)]
LOGIN_CASES = [(site.name, i, case) for site in login_sites()
               for i, case in enumerate(site.cases)]


def check(outcome: Outcome) -> None:
    apache, model, case = outcome.apache, outcome.model, outcome.case
    if case.unsupported:
        assert any(case.unsupported in u for u in model.unsupported), (
            f"the model does not report {case.unsupported!r}", describe(outcome))
    if case.exact:
        # A HEAD response has no body to tell the file by: compare status and Location only.
        model_file = real_file(model) if case.method != "HEAD" else apache.file
        assert (model.status, model.location, model_file) == (
            apache.status, apache.location, apache.file), describe(outcome)
        assert not header_mismatches(outcome), (header_mismatches(outcome), describe(outcome))
    else:  # Apache's answer is not decided by the configuration alone: the status class
        assert model.status // 100 == apache.status // 100, describe(outcome)
    # The same answer without the explanation (Expires depends on the time of each call).
    fast = outcome.fast
    assert (fast.status, fast.location, fast.file, fast.filename) == (
        model.status, model.location, model.file, model.filename), describe(outcome)
    assert ({k: v for k, v in fast.headers.items() if k != "Expires"}
            == {k: v for k, v in model.headers.items() if k != "Expires"}), describe(outcome)
    assert fast.steps == [] and fast.applied == []
    # The same status, Location and file when the headers are not asked for (the model
    # works them out only where they could make the answer a 500).
    bare = outcome.status_only
    if bare is not None:
        assert (bare.status, bare.location, bare.file, bare.filename) == (
            model.status, model.location, model.file, model.filename), describe(outcome)


@pytest.mark.apache
@pytest.mark.parametrize(("site", "index", "case"), CASES,
                         ids=[f"{s}:{c.method} {c.path}" for s, _, c in CASES])
def test_model_matches_apache(outcomes: dict[tuple[str, int], Outcome], site: str, index: int,
                              case: object) -> None:
    check(outcomes[(site, index)])


@pytest.mark.apache
@pytest.mark.parametrize(("site", "index", "case"), MAIN_CASES,
                         ids=[f"{s}:{c.method} {c.path}" for s, _, c in MAIN_CASES])
def test_main_server_rules_match_apache(main_server_outcomes: dict[tuple[str, int], Outcome],
                                        site: str, index: int, case: object) -> None:
    check(main_server_outcomes[(site, index)])


@pytest.mark.apache
@pytest.mark.parametrize(("site", "index", "case"), LOGIN_CASES,
                         ids=[f"{s}:{c.why}" for s, _, c in LOGIN_CASES])
def test_logins_match_apache(login_outcomes: dict[tuple[str, int], Outcome], site: str,
                             index: int, case: object) -> None:
    check(login_outcomes[(site, index)])


def test_enough_cases_and_sites() -> None:
    sites = all_sites()
    assert len(sites) >= 30
    assert sum(len(s.cases) for s in sites) >= 200

"""Headers that make Apache answer 500 (``check_headers``, AH02430) from what the model's
status-only path (``evaluate(…, headers=False)``, SEC002's question) must not skip: a value
from the environment and a cookie of mod_rewrite's holding a control character (on a 404 even
with ``Header always unset Set-Cookie``); compared
with real Apache as the differential suite compares (which also compares the
``headers=False`` answer).  A site of its own: the nginx and Flask differential tests convert
every site of the shared list, and neither converter reproduces these 500s."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from confmig.servers import ApacheBinary
from tests.differential.harness import Case, Harness, Outcome, SiteSpec
from tests.differential.test_differential import check

pytestmark = pytest.mark.apache

RULES = "RewriteEngine On\nRewriteRule ^c/(.*)$ - [CO=n:$1:.test]\n"
SITE = SiteSpec("hdrfail", {
    "env/.htaccess": 'SetEnv V "a\x01b"\nHeader set X-T %{V}e\n',
    "plain/.htaccess": 'SetEnv V "ab"\nHeader set X-T %{V}e\nHeader set X-P "p q"\n',
    "cookie/.htaccess": RULES + 'Header set X-P "p q"\n',
    "uncookie/.htaccess": RULES + "Header always unset Set-Cookie\n",
    "env/x.txt": None, "plain/x.txt": None, "cookie/c/ab": None,
}, [
    Case("/env/x.txt", "a %{V}e value with a control character: 500"),
    Case("/plain/x.txt", "the same without: 200"),
    Case("/cookie/c/a%01b", "a [CO] cookie with a control character: 500"),
    Case("/cookie/c/ab", "a [CO] cookie without: 200"),
    Case("/uncookie/c/a%01b", "the same cookie unset by Header always unset: still 500"),
    Case("/uncookie/c/ab", "a cookie without, unset on a 404: still sent"),
])


@pytest.fixture(scope="module")
def outcomes(apache_binary: ApacheBinary) -> Iterator[list[Outcome]]:
    h = Harness([SITE])
    h.start()
    try:
        yield h.run()
    finally:
        h.stop()


@pytest.mark.parametrize("index", range(len(SITE.cases)),
                         ids=[c.path for c in SITE.cases])
def test_failing_headers_match_apache(outcomes: list[Outcome], index: int) -> None:
    outcome = outcomes[index]
    check(outcome)
    assert outcome.status_only is not None
    expected = [500, 200, 500, 200, 500, 404][index]
    assert outcome.apache.status == expected
    # (an error response's ``Header always`` does not reach mod_rewrite's cookies:
    # ap_send_error_response moves err_headers_out away before mod_headers' error filter runs)
    assert (outcome.model.headers.get("Set-Cookie")
            == outcome.apache.response.headers.get("Set-Cookie")), outcome.model.headers


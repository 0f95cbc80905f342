"""A chain of rewrites that ends on the request's own path (issue 12).  Apache compares the
path the rules end with against the request's and makes no internal redirect when they are
equal: the file is served (200) or missing (404).  nginx compared each rule's target with
the path the previous rule left, so ``rewrite … last`` ran the chain again: a loop, 500.
Real Apache against real nginx."""

from __future__ import annotations

import pytest

from confmig.verify import VerifyRequest, verify
from tests.conftest import SiteMaker
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

RULES = {
    # a [C] chain x → y → x
    "chain": "RewriteEngine On\nRewriteRule ^x/(.*)$ y/$1 [C]\nRewriteRule ^y/(.*)$ x/$1\n",
    # a rewrite without [L], then one back
    "no-l": "RewriteEngine On\nRewriteRule ^x/(.*)$ y/$1\nRewriteRule ^y/(.*)$ x/$1 [L]\n",
}
FILES = {"x/f.txt": "f\n", "x/a b": "ab\n", "y/g.txt": "g\n", "y/only-y.txt": "y\n"}
PATHS = ["/s/x/f.txt", "/s/x/a%20b", "/s/x/missing", "/s/x/%25", "/s/x/a%2541",
         "/s/y/g.txt", "/s/x/only-y.txt", "/s/y/f.txt", "/s/x/"]


@pytest.mark.parametrize("case", list(RULES))
def test_a_chain_back_to_the_request_is_served(case: str, make_site: SiteMaker,
                                               apache_binary: object,
                                               nginx_binary: object) -> None:
    root = make_site({**{f"s/{name}": text for name, text in FILES.items()},
                      "s/.htaccess": RULES[case]})
    served = 0
    with both(root) as pair:
        for path in PATHS:
            a, b = pair.ask(path)
            assert a.status == b.status, (path, a.status, b.status)
            if a.status == 200 and not path.endswith("/"):  # (a listing is each server's own)
                assert a.body == b.body, path
                served += 1
    assert served >= 2  # /s/x/f.txt and /s/x/a%20b, which looped (500) before
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert not [r for r in report.differing if not r.announced], report.summary()

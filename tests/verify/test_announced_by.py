"""verify's summary says what announced a difference: an untranslatable item, or a note
naming the answer the converted server gives instead (the ``$N`` double-decoding 403 of
``tests/nginx/test_internal_decoded_again.py``).  It said "announced by convert as
untranslatable" for both.  Real Apache + real nginx."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify

pytestmark = [pytest.mark.apache]

#: the untranslatable rule lives in sub/, so its note (which names a 403 too) does not
#: cover the root's rule: the root's 403s are excused by the note alone
SUB_RULES = ("RewriteEngine On\n"
             "RewriteCond %{QUERY_STRING} ^u=(.*)$\n"
             "RewriteRule ^go$ /files/%1? [L]\n")  # untranslatable: %1 decoded again
RULES = "RewriteEngine On\nRewriteRule ^plain/(.*)$ /files/$1 [L]\n"  # a note: $1 again
FILES = {".htaccess": RULES, "sub/.htaccess": SUB_RULES, "files/a?b": "question\n",
         "files/a%3Fb": "escaped\n", "files/ab": "plain\n", "files/a%2Fb": "slash\n"}


@pytest.fixture
def root() -> Iterator[Path]:
    made = make_docroot(prefix="confmig-ngby-", files=FILES)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def test_summary_and_json_say_what_announced_it(root: Path, apache_binary: object,
                                                nginx_binary: object) -> None:
    report = verify(VerifyRequest(target="nginx", docroot=root, max_requests=300))
    assert not report.unannounced, report.summary()
    # each "plain" result was excused by the note, each "sub/go" one by the untranslatable
    by = {(r.probe.path.split("?")[0].split("/")[1], r.by_note) for r in report.announced}
    assert by == {("sub", False), ("plain", True)}, report.summary()
    notes = len(report.announced_by_note)
    untranslatable = len(report.announced) - notes
    assert notes and untranslatable
    summary = report.summary()
    assert "as untranslatable" not in summary
    assert (f"{len(report.announced)} announced by convert ({untranslatable} untranslatable, "
            f"{notes} notes)") in summary
    data = json.loads(json.dumps(report.to_json()))
    assert (data["announced"], data["announced_untranslatable"], data["announced_by_note"]) \
        == (len(report.announced), untranslatable, notes)
    kinds = {(d["path"].split("?")[0].split("/")[1], d["announced_by"])
             for d in data["differences"]}
    assert kinds == {("sub", "untranslatable"), ("plain", "note")}
    # the keys that were there before stay
    assert {"ok", "sent", "compared", "wider", "differences", "summary"} <= set(data)
    assert re.search(r"\d+ unexpected difference", summary)

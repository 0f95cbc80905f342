"""An internal rewrite whose substitution copies a condition's ``%N``, a variable or a map
lookup: Apache's internal redirect parses the new path again and %-decodes it, so ``%1`` =
``a%3Fb`` (from the query) serves the file ``a?b``; nginx's ``rewrite … last`` looks for
``a%3Fb`` (with a %-escape in the request's own path too, tried by hand: neither file, a
404).  nginx must serve what Apache serves or answer the announced 403 — never another
file.  The pattern's ``$N`` is decoded again too — ``$1`` of ``/plain/a%253Fb`` is
``a%3Fb``: Apache serves ``a?b`` — and denied the same way, announced as a note (convert's
exit code stays).  Real Apache 2.4 and real nginx, request by request (nginx served the
file ``a%3Fb`` before the check, and ``a%2Fb`` for ``/plain/a%252Fb`` where Apache answers
404)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import convert_docroot
from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

RULES = ("RewriteEngine On\n"
         "RewriteCond %{QUERY_STRING} ^u=(.*)$\n"
         "RewriteRule ^go$ /files/%1? [L]\n"
         "RewriteRule ^hdr$ /files/%{HTTP:X-F} [L]\n"
         "RewriteRule ^plain/(.*)$ /files/$1 [L]\n"
         "RewriteRule ^(self.*)$ $1 [L]\n")
FILES = {".htaccess": RULES, "files/a?b": "question\n", "files/a%3Fb": "escaped\n",
         "files/a b": "space\n", "files/ab": "plain\n", "files/a%2Fb": "slash\n",
         "files/a%b": "percent\n", "files/a%25b": "escaped percent\n",
         "files/a%20b": "escaped space\n", "self%62": "self\n"}
#: (path, headers) → Apache's status (its body is then the file's) and whether nginx may
#: answer the announced 403 instead (a %-escape in %1 or the header).
CASES: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[int, bool]] = {
    ("/go?u=ab", ()): (200, False),
    ("/go?u=a%3Fb", ()): (200, True),  # Apache: the file a?b; nginx looked for a%3Fb
    ("/go?u=a%20b", ()): (200, True),  # Apache: the file "a b"
    ("/go?u=a%253Fb", ()): (200, True),  # Apache: the file a%3Fb
    ("/g%6F?u=a%3Fb", ()): (200, True),  # the request's path holds a %-escape too
    ("/hdr", (("X-F", "ab"),)): (200, False),
    ("/hdr", (("X-F", "a%3Fb"),)): (200, True),
    ("/hdr", (("X-F", "a%zz"),)): (400, False),  # a bad %-escape: Apache's 400 on both
    ("/plain/ab", ()): (200, False),
    ("/plain/a%20b", ()): (200, False),  # $1 is "a b": nginx escapes and decodes it too
    ("/go?u=a%2Fb", ()): (404, True),  # Apache: an encoded slash (AllowEncodedSlashes Off)
    ("/go?u=a%00b", ()): (404, True),
    ("/go?u=a%25b", ()): (200, True),  # Apache: the file a%b
    ("/plain/a%25b", ()): (400, False),  # $1 is a%b, a bad %-escape: 400 on both
    # $1 holds a %-escape: Apache decodes it again (the note's 403 on nginx)
    ("/plain/a%253Fb", ()): (200, True),  # Apache: the file a?b; nginx served a%3Fb
    ("/plain/a%252Fb", ()): (404, True),  # Apache: an encoded slash; nginx served a%2Fb
    ("/plain/a%2520b", ()): (200, True),  # Apache: the file "a b"; nginx served a%20b
    ("/plain/a%2562", ()): (200, True),  # Apache: the file ab
    # a rewrite to the URL's own file makes no internal redirect: nothing is parsed or
    # decoded again (nginx compared its %-escaped copy of $1 with $uri: 400, 403)
    ("/self%25", ()): (404, False),
    ("/self%2562", ()): (200, False),
}


@pytest.fixture
def root() -> Iterator[Path]:
    made = make_docroot(prefix="confmig-ngdec-", files=FILES)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def test_nginx_serves_apaches_file_or_denies(root: Path, apache_binary: object,
                                              nginx_binary: object) -> None:
    with both(root) as pair:
        for (path, headers), (status, may_deny) in CASES.items():
            a, b = pair.ask(path, dict(headers))
            where = (path, headers, a.status, a.body[:20], b.status, b.body[:20])
            assert a.status == status, where
            if may_deny and b.status == 403:
                continue
            assert not may_deny, where  # a %-escape Apache decodes again: denied
            assert b.status == a.status, where
            if a.status == 200:  # the same file (error pages are each server's own)
                assert b.body == a.body, where


def test_the_denials_are_announced(root: Path) -> None:
    notes = convert_docroot(root).result.untranslatable
    decoded = {n.line for n in notes if n.answer == 403 and "decodes the new path" in n.reason}
    assert decoded == {3, 4}, sorted(notes, key=lambda n: n.line)


def test_the_pattern_capture_denial_is_a_note(root: Path) -> None:
    """Every ``$N`` internal rewrite has it: a note naming the 403 it answers, not an
    untranslatable one, so convert's exit code does not change for it."""
    conversion = convert_docroot(root)
    result = conversion.result
    noted = [n for n in result.warnings
             if n.answer == 403 and "a path whose $1 holds a %-escape" in n.reason]
    assert [(n.line, n.changes_behaviour) for n in noted] == [(5, False), (6, False)], \
        result.warnings
    assert all(n.line not in (5, 6) for n in result.untranslatable), result.untranslatable
    assert "note: " in conversion.output.text and "whose $1 holds" in conversion.output.text


def test_verify_finds_no_unannounced_difference(root: Path, apache_binary: object,
                                                nginx_binary: object) -> None:
    report = verify(VerifyRequest(target="nginx", docroot=root, max_requests=300))
    assert not report.unannounced, report.summary()
    # verify's own probes reach each rule's denial (a query, a header, a path with a
    # letter escaped twice): before, it sent them to [R] rules only and said "0 announced"
    # here; the $1 denial is a note, which verify reads too
    reached = {r.probe.path.split("?")[0].split("/")[1] for r in report.announced}
    assert reached == {"go", "hdr", "plain"}, report.summary()

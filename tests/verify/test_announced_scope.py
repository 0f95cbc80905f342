"""What a note excuses in verify: never an answer wider than Apache's, and — when the note
says what it is about — only those fields (the decision; real servers in
test_announced_scope_servers.py)."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from confmig.convert.nginx import NginxOptions, convert_docroot
from confmig.convert.result import ConversionResult, Note, NoteKind
from confmig.verify.compare import ABSENT, FieldDiff, Observed, differences, wider
from confmig.verify.probes import Probe
from confmig.verify.report import VerifyReport
from confmig.verify.session import _result
from tests.corpus import needs_corpus
from tests.verify.sites import corpus_site

ROOT = "/srv/site"
GZIP = frozenset({"content-encoding", "vary", "content-length", "body"})
NO_FORM = "no target-neutral form: the plan does not carry it"


def conversion(*notes: Note) -> ConversionResult:
    return ConversionResult("nginx", ROOT, "", untranslatable=list(notes))


def note(scope: str = ROOT, fields: frozenset[str] | None = None, adds_only: bool = False,
         kind: NoteKind = NoteKind.UNTRANSLATABLE, answer: int = 0) -> Note:
    return Note(f"{scope}/.htaccess", 1, "X", "why", kind, scope, fields, adds_only, answer)


def answer(status: int, body: str = "page", **headers: str) -> Observed:
    return Observed(status, body_sha256=body, body_preview=body, headers=headers)


@pytest.mark.parametrize(("apache", "converted", "expected"), [
    (403, 200, True), (404, 200, True), (401, 200, True), (500, 200, True),
    (405, 204, True), (403, 301, True), (503, 302, True), (410, 304, True),
    # stricter, or one refusal for another: not wider
    (200, 403, False), (200, 500, False), (301, 404, False), (401, 403, False),
    (403, 404, False), (404, 500, False), (200, 200, False), (302, 200, False),
])
def test_wider_compares_status_classes(apache: int, converted: int, expected: bool) -> None:
    assert wider(answer(apache), answer(converted)) is expected


def test_an_unanswered_request_is_not_wider() -> None:
    error = Observed(0, error="ConnectionResetError: reset")
    assert not wider(answer(403), error) and not wider(error, answer(200))


def test_a_wider_answer_is_never_announced() -> None:
    probe = Probe("/private/secret.txt", directory=f"{ROOT}/private")
    a, b = answer(403, "forbidden"), answer(200, "secret")
    result = _result(conversion(note()), probe, a, b, differences(a, b))
    assert result.wider and not result.announced
    # the same difference the other way round (stricter) is what the note excuses
    back = _result(conversion(note()), probe, b, a, differences(b, a))
    assert back.announced and not back.wider


def test_a_missing_login_challenge_is_wider() -> None:
    probe = Probe("/members/", directory=f"{ROOT}/members")
    a = answer(401, "login", **{"www-authenticate": 'Basic realm="m"'})
    b = answer(200, "members only")
    result = _result(conversion(note()), probe, a, b, differences(a, b))
    assert result.wider and not result.announced


def test_a_note_with_fields_excuses_only_those() -> None:
    probe = Probe("/a.txt", directory=ROOT)
    header_note = note(fields=frozenset({"x-frame-options"}))
    a = answer(200, **{"x-frame-options": "DENY"})
    b = answer(200)
    assert _result(conversion(header_note), probe, a, b, differences(a, b)).announced
    c = answer(200, **{"x-frame-options": "DENY", "cache-control": "max-age=60"})
    assert not _result(conversion(header_note), probe, c, b, differences(c, b)).announced
    # a note without fields still excuses any field (what it did before)
    assert _result(conversion(note()), probe, c, b, differences(c, b)).announced


def test_a_gzip_note_excuses_compressing_more_never_less() -> None:
    probe = Probe("/missing", headers=(("Accept-Encoding", "gzip"),), directory=ROOT)
    gzip_note = note(fields=GZIP, adds_only=True)
    plain = answer(404, "not found")
    packed = answer(404, "not found", **{"content-encoding": "gzip",
                                         "vary": "Accept-Encoding"})
    more = _result(conversion(gzip_note), probe, plain, packed, differences(plain, packed))
    assert more.announced
    # Apache compressed and the converted server did not (its gzip lines were dropped)
    ok_plain, ok_packed = (answer(200, "text", **h) for h in (
        {}, {"content-encoding": "gzip", "vary": "Accept-Encoding"}))
    less = _result(conversion(gzip_note), probe, ok_packed, ok_plain,
                   differences(ok_packed, ok_plain))
    assert {d.field for d in less.diffs} == {"content-encoding", "vary"}
    assert not less.announced and not less.wider
    # nor does it excuse another header, or a different status
    other = answer(404, "not found", **{"content-encoding": "gzip", "x-a": "1"})
    assert not _result(conversion(gzip_note), probe, plain, other,
                       differences(plain, other)).announced


def test_a_note_excuses_only_below_its_scope_and_only_when_behaviour_changes() -> None:
    a, b = answer(200, x="1"), answer(200)
    diffs = differences(a, b)
    inside = Probe("/sub/f", directory=f"{ROOT}/sub")
    outside = Probe("/f", directory=ROOT)
    assert _result(conversion(note(f"{ROOT}/sub")), inside, a, b, diffs).announced
    assert not _result(conversion(note(f"{ROOT}/sub")), outside, a, b, diffs).announced
    assert not _result(conversion(note(f"{ROOT}/su")), inside, a, b, diffs).announced
    assert not _result(conversion(note(kind=NoteKind.INFO)), inside, a, b, diffs).announced
    assert not _result(conversion(note()), Probe("/f"), a, b, diffs).announced


def test_field_diff_added() -> None:
    assert FieldDiff("vary", ABSENT, "Accept-Encoding").added
    assert FieldDiff("body", "(empty)", "x").added
    assert not FieldDiff("vary", "Accept-Encoding", ABSENT).added
    assert not FieldDiff("vary", "Cookie", "Cookie, Accept-Encoding").added


def test_the_report_labels_a_wider_answer() -> None:
    probe = Probe("/private/secret.txt", directory=f"{ROOT}/private")
    a, b = answer(403, "forbidden"), answer(200, "secret")
    report = VerifyReport("nginx", ROOT, conversion(note()), sent=1, planned=1)
    report.statuses[403] += 1
    report.differing.append(_result(report.conversion, probe, a, b, differences(a, b)))
    assert report.exit_code == 1 and report.unannounced and report.wider
    assert report.summary().startswith("DIFFERENT: ")
    assert "1 unexpected difference(s) (1 wider than Apache)" in report.summary()
    data = report.to_json()
    assert data["ok"] is False and data["wider"] == 1
    assert data["differences"][0]["wider"] is True  # type: ignore[index]
    assert data["differences"][0]["announced"] is False  # type: ignore[index]
    out = io.StringIO()
    report.print(Console(width=200, file=out))
    assert "wider than Apache" in out.getvalue()
    json.dumps(data)


def test_a_note_says_its_fields_in_json() -> None:
    data = note(fields=GZIP, adds_only=True).to_json()
    assert data["fields"] == sorted(GZIP) and data["adds_only"] is True
    assert "fields" not in note().to_json()


def test_only_serve_500_excuses_a_wider_answer_and_only_for_apaches_500() -> None:
    probe = Probe("/broken/page.html", directory=f"{ROOT}/broken")
    served = conversion(note(f"{ROOT}/broken", kind=NoteKind.FATAL))
    error, page = answer(500, "error"), answer(200, "page")
    result = _result(served, probe, error, page, differences(error, page))
    assert result.announced and not result.wider
    denied = answer(403, "forbidden")
    result = _result(served, probe, denied, page, differences(denied, page))
    assert result.wider and not result.announced
    outside = Probe("/page.html", directory=ROOT)
    assert _result(served, outside, error, page, differences(error, page)).wider


def test_a_denial_note_excuses_only_its_denial() -> None:
    """A note whose construct nginx denies (``answer``: 403) excuses an answer that is that
    denial where Apache answered otherwise — all of it — and nothing else."""
    probe = Probe("/t", directory=ROOT)
    denial = conversion(note(answer=403))
    page = answer(200, "page", **{"cache-control": "max-age=60", "x-frame-options": "DENY"})
    denied = answer(403, "forbidden")
    assert _result(denial, probe, page, denied, differences(page, denied)).announced
    redirect = Observed(302, location="http://h/x", body_sha256="r", body_preview="r")
    assert _result(denial, probe, redirect, denied, differences(redirect, denied)).announced
    # another page, another redirect, the same refusal with another header: not the denial
    for converted in (answer(200, "other page"), answer(301, "moved"),
                      answer(404, "not found")):
        result = _result(denial, probe, page, converted, differences(page, converted))
        assert not result.announced and not result.wider
    refused = answer(403, "forbidden", x="1")
    assert not _result(denial, probe, denied, refused, differences(denied, refused)).announced
    # with fields: only those of the denial
    named = conversion(note(fields=frozenset({"status", "body"}), answer=403))
    assert not _result(named, probe, page, denied, differences(page, denied)).announced
    assert _result(named, probe, answer(200, "page"), denied,
                   differences(answer(200, "page"), denied)).announced
    data = note(answer=403).to_json()
    assert data["answer"] == 403 and "answer" not in note().to_json()


def test_an_untranslatable_rule_excuses_only_its_denial(tmp_path: Path) -> None:
    """The converter's own note for a rule it denies: a 403 where Apache served is
    announced; a different page where both answered 200 is not (it was, while a rewrite note
    excused every field)."""
    (tmp_path / ".htaccess").write_text("RewriteEngine On\nRewriteRule ^t$ /x$0 [L]\n")
    (tmp_path / "a.txt").write_text("a\n")
    result = convert_docroot(tmp_path, None, NginxOptions(), ()).result
    (rule,) = [n for n in result.untranslatable if n.directive == "RewriteRule"]
    assert rule.answer == 403 and "$0" in rule.reason
    probe = Probe("/t", directory=str(tmp_path))
    page, denied = answer(200, "x page"), answer(403, "forbidden")
    assert _result(result, probe, page, denied, differences(page, denied)).announced
    other = answer(200, "another page")
    assert not _result(result, probe, page, other, differences(page, other)).announced


def test_left_out_rules_and_ifs_name_vary(tmp_path: Path) -> None:
    """A rule left out (its [E=] only), or an <If>, whose condition reads a request header:
    Apache's Vary is what they may change besides a script's view and their header."""
    (tmp_path / "rw").mkdir()
    (tmp_path / "rw" / ".htaccess").write_text(
        "RewriteEngine On\nRewriteCond %{HTTP:X-C} ^c\nRewriteRule ^ - [E=FOO:1]\n")
    (tmp_path / "if").mkdir()
    (tmp_path / "if" / ".htaccess").write_text(
        "<If \"req('X-A') == 'a'\">\nHeader set X-If 1\n</If>\n")
    notes = convert_docroot(tmp_path, None, NginxOptions(), ()).result.untranslatable
    fields = {n.directive.split()[0]: n.fields for n in notes}
    assert fields["RewriteRule"] == frozenset({"body", "vary"})
    assert fields["<If"] == frozenset({"x-if", "vary"})


@needs_corpus
def test_every_corpus_note_says_what_it_changes() -> None:
    """Each note the nginx converter writes for the corpus names the fields it may change
    or the answer it gives instead — but for a directive the plan has no form for at all
    (only those may excuse any field), with and without --php-fpm."""
    root, _used = corpus_site()
    try:
        for php in (None, "127.0.0.1:9000"):
            result = convert_docroot(root.resolve(), None, NginxOptions(php_fpm=php),
                                     ()).result
            open_ended = {(n.directive, n.reason) for n in result.untranslatable
                          if n.fields is None and not n.answer}
            assert {reason for _, reason in open_ended} <= {NO_FORM}, open_ended
            assert len({d for d, _ in open_ended}) <= 3, open_ended  # SetEnv* of module vars
    finally:
        shutil.rmtree(root, ignore_errors=True)

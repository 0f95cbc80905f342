"""What a note excuses in verify: never an answer wider than Apache's, and — when the note
says what it is about — only those fields (the decision; real servers in
test_announced_scope_servers.py)."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from confmig.convert.result import ConversionResult, Note, NoteKind
from confmig.verify.compare import ABSENT, FieldDiff, Observed, differences, wider
from confmig.verify.probes import Probe
from confmig.verify.report import VerifyReport
from confmig.verify.session import _result

ROOT = "/srv/site"
GZIP = frozenset({"content-encoding", "vary", "content-length", "body"})


def conversion(*notes: Note) -> ConversionResult:
    return ConversionResult("nginx", ROOT, "", untranslatable=list(notes))


def note(scope: str = ROOT, fields: frozenset[str] | None = None, adds_only: bool = False,
         kind: NoteKind = NoteKind.UNTRANSLATABLE) -> Note:
    return Note(f"{scope}/.htaccess", 1, "X", "why", kind, scope, fields, adds_only)


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

"""The probe strings verify derives from a pattern: PCRE2 judges every candidate, the
generation is deterministic, and bounded in time and size whatever the pattern."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from confmig.model.rewrite.regex import Regex
from confmig.verify.probes import ProbeSite, generate
from confmig.verify.regexgen import MAX_LENGTH, PATH_ALPHABET, samples
from confmig.verify.strgen import MAX_DEPTH, strings

COMMON = [
    r"^index\.php$", r"^blog/(\d+)/([a-z-]+)/?$", r"\.(jpe?g|png|gif)$",
    r"^(?:www\.)?example\.com$", r"^([^/]+)/(.*)$", r"^api/v[0-9]{1,2}/(?P<x>\w+)",
    r"[[:alpha:]]+\.html$", r"^(foo|bar)/\1$", r"(?i)^admin", r"^\Qa.b\E$", r"^.{3,5}$",
    r"^(.+)\.(\d+)\.(js|css)$", r"^$", r"\.(?:ht|git|svn)", r"^wp-(admin|includes)/",
    r"^(.*)/$", r"^[A-Z][a-z]+~\d\.txt$",
]


@pytest.mark.parametrize("pattern", COMMON)
def test_matches_and_misses_are_what_pcre2_says(pattern: str) -> None:
    matches, misses = samples(pattern, False, 4)
    regex = Regex(pattern, False)
    assert matches, pattern
    assert all(regex.search(m) is not None for m in matches)
    assert all(regex.search(m) is None for m in misses)
    assert all(len(m) <= MAX_LENGTH and set(m) <= set(PATH_ALPHABET) for m in matches)


def test_generation_is_deterministic() -> None:
    first = strings(r"^([a-z]+)/(\d{2,4})(/.*)?$", 8, PATH_ALPHABET, 80)
    assert len(first) == 8
    assert strings(r"^([a-z]+)/(\d{2,4})(/.*)?$", 8, PATH_ALPHABET, 80) == first


@pytest.mark.parametrize("pattern", [
    r"^(.*a){40}$", r"^(a+)+$", r"x{100000}", r"((((.*)*)*)*){999}", r"(.*){1000}(.*){1000}",
    "(" * (MAX_DEPTH + 5) + "a" + ")" * (MAX_DEPTH + 5), r"(?R)", r"(?(1)a|b)", "[",
    "a" * 5000,
])
def test_any_pattern_is_bounded(pattern: str) -> None:
    started = time.process_time()  # CPU time: the blow-up is work, and the load is not
    matches, _misses = samples(pattern, False, 6)
    assert time.process_time() - started < 5
    assert all(len(m) <= MAX_LENGTH for m in matches)


def test_generation_stops_at_the_deadline(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".htaccess").write_text("RewriteEngine On\nRewriteRule ^x$ - [F]\n")
    site = ProbeSite(tmp_path, str(tmp_path))
    assert not generate([site], [], 100).out_of_time
    late = generate([site], [], 100, deadline=time.monotonic() - 1)
    assert late.out_of_time and late.probes == []

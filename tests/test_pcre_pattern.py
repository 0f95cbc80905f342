"""The PCRE pattern walk shared by the nginx and Flask converters
(:mod:`confmig.convert.pcre_pattern`): it cuts a pattern as PCRE2 reads it, so that each
target rewrites anchors only where PCRE2 sees anchors."""

from __future__ import annotations

import pcre2
import pytest

from confmig.convert.flask.regex import python_form
from confmig.convert.nginx.regex import Untranslatable, per_directory, url_path
from confmig.convert.pcre_pattern import PatternError, pieces

APACHE_FLAGS = pcre2.DOTALL | 0x10  # DOTALL | DOLLAR_ENDONLY, as ap_pregcomp compiles


@pytest.mark.parametrize("pattern", [
    "^a[b]c$", "[]x]$", "[^]x]+", "\\[a\\]$", "(a|b)[[:alpha:]$]+", "[[:^digit:]^]", "a\\",
    "[a[]", "[[:alpha:]x",
])
def test_pieces_give_the_pattern_back(pattern: str) -> None:
    try:
        assert "".join(p.text for p in pieces(pattern)) == pattern
    except PatternError:
        with pytest.raises(pcre2.PatternError):
            pcre2.compile(pattern)


@pytest.mark.parametrize(("pattern", "subjects"), [
    # a POSIX class inside a set: the '$' and '^' after it are members, not anchors
    ("^x[[:alpha:]$]", ["xa", "x$", "x", "x1"]),
    ("[[:digit:]^]+$", ["12", "^", "a", "1a"]),
    ("^[[:^alpha:]]$", ["1", "a"]),
])
def test_a_posix_class_does_not_end_its_set(pattern: str, subjects: list[str]) -> None:
    """PCRE2 reads ``[:alpha:]`` inside a set as one item: the set goes on to the next
    ``]``.  The nginx regex matches what Apache matches, under a prefix and without."""
    apache = pcre2.compile(pattern, APACHE_FLAGS)
    nginx = pcre2.compile(per_directory(pattern, "/d/", False))
    whole = pcre2.compile(url_path(pattern))
    for subject in subjects:
        expected = apache.search(subject) is not None
        assert (nginx.search("/d/" + subject) is not None) == expected, (subject, nginx.pattern)
        assert (whole.search(subject) is not None) == expected, (subject, whole.pattern)


def test_an_unterminated_set_is_refused_by_both_targets() -> None:
    with pytest.raises(Untranslatable):
        per_directory("[[:alpha:]x", "/", False)
    assert python_form("[[:alpha:]x")[0] is None

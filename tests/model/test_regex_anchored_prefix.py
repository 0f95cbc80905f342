"""A pattern anchored to a literal (``^p5/``) answers a subject without that literal without
its search function or compiled pattern, and keeps neither (issue 10: a request over a 1 MB
file of 20,000 such rules kept 10 MB of them); the answers are PCRE2's."""

from __future__ import annotations

import pcre2
import pytest

from confmig.model.rewrite.regex import Regex, _required_prefix

PATTERNS = ["^p5/(.*)$", "^ab?c", "^abc{2}", "^abc*", "^ab+", "^a|^b", "^a-b c/x", "^index\\.php$",
            "^admin", "^~user/(.+)", "^%7e", "^ab(?i)CD", "^", "", "abc", "^(a)", "^a.c",
            "^caf\u00e9", "^a{1,2}b", "^x\\d+"]
SUBJECTS = ["", "p5/x", "p5", "/p5/x", "ac", "abc", "abcc", "abbb", "a", "b", "a-b c/x/y",
            "index.php", "index.phpx", "admin/", "Admin", "~user/x", "%7e", "abcd", "abCD",
            "caf\u00e9", "\u00e9", "aab", "x12", "xa", "abd\udcff"]


def _pcre(pattern: str, subject: str, nocase: bool) -> bool:
    flags = pcre2.DOTALL | 0x10 | (pcre2.IGNORECASE if nocase else 0)
    code = pcre2.compile(pattern.encode("utf-8"), flags, jit=False)
    return code.search(subject.encode("utf-8", "surrogateescape")) is not None


@pytest.mark.parametrize("nocase", [False, True])
@pytest.mark.parametrize("pattern", PATTERNS)
def test_answers_are_pcre2s(pattern: str, nocase: bool) -> None:
    for subject in SUBJECTS:
        regex = Regex(pattern, nocase)  # a fresh one: the first call takes the prefix path
        found = regex.search(subject)
        assert (found is not None) == _pcre(pattern, subject, nocase), (pattern, subject)
        if found is not None:
            assert found.group(0) == Regex(pattern, nocase).search(subject).group(0)  # type: ignore[union-attr]


def test_prefix() -> None:
    assert _required_prefix("^p5/(.*)$") == "p5/"
    assert _required_prefix("^ab?c") == "a"
    assert _required_prefix("^abc{2}") == "ab"
    assert _required_prefix("^a|^b") == ""
    assert _required_prefix("abc") == ""
    assert _required_prefix("^\\.git") == ""


def _kept(regex: Regex) -> bool:
    """Whether *regex* holds a search function (the old Regex: its ``search`` slot) or its
    compiled pattern (what it searches with since it keeps no function of its own)."""
    for slot in ("_search", "search"):
        try:
            kept = object.__getattribute__(regex, slot)
        except AttributeError:
            continue
        if (callable(kept) and not hasattr(kept, "__self__")) or isinstance(kept, pcre2.Pattern):
            return True
    return False


def test_a_subject_without_the_literal_keeps_nothing() -> None:
    regex = Regex("^p12345/(.*)$")
    for subject in ("/.git/config", ".env", "index.php", "p1234/x"):
        assert regex.search(subject) is None
    assert not _kept(regex)  # the old Regex kept its search function on the first call
    assert regex.search("p12345/x").group(1) == "x"  # type: ignore[union-attr]
    assert _kept(regex)  # a pattern that got past its literal keeps it, as before


def test_nocase_and_unanchored_patterns_keep_their_function() -> None:
    for regex in (Regex("^p1/", nocase=True), Regex("p1/")):
        assert regex.search("/x") is None
        assert _kept(regex)

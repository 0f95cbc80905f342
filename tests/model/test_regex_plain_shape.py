"""A pattern of plain literal characters (``q17036``) is not compiled when its ``Regex`` is made:
what its compile tells (it compiles, no group, no named group, does not match "") is known
(issue 10: compiling each of a 1 MB file's 17,037 ``<If "%{QUERY_STRING} =~ /qN/">`` patterns
only to learn it was a third of an ``<If>``'s parse).  The shape and every answer are the ones
the compile gives, compared on generated patterns of those characters and near them."""

from __future__ import annotations

import itertools
import random

import pcre2
import pytest

from confmig.model.rewrite import regex as regex_module
from confmig.model.rewrite.regex import Regex, RegexError

_NEAR = "\\^$.|?*+()[]{}#\u00e9\t\n\x00"


def _patterns() -> list[str]:
    rng = random.Random(10)
    plain = regex_module._PLAIN
    out = ["q1", "q17036", "a", " ", "/", "-", "%", "'", '"', "a b", "/index.php", "", *plain]
    out += ["".join(rng.choice(plain) for _ in range(rng.randint(1, 40))) for _ in range(3000)]
    out += [rng.choice(plain) * n for n in (regex_module._PLAIN_MAX - 1,
                                            regex_module._PLAIN_MAX,
                                            regex_module._PLAIN_MAX + 1)]
    # one character that is not plain, anywhere
    for _ in range(3000):
        word = [rng.choice(plain) for _ in range(rng.randint(0, 12))]
        word.insert(rng.randint(0, len(word)), rng.choice(_NEAR))
        out.append("".join(word))
    return out


def _answers(pattern: str, nocase: bool) -> tuple[object, ...]:
    try:
        r = Regex(pattern, nocase)
    except RegexError as exc:
        return ("refused", str(exc))
    subjects = ["", pattern, pattern.upper(), f"x{pattern}y", pattern[:-1], "q1"]
    found = []
    for subject in subjects:
        m = r.search(subject)
        found.append(None if m is None else m.all())
        found.append(r.matches(subject))
    return (r.shape, r.captures, r.names, r.nocase, *found)


@pytest.mark.parametrize("nocase", [False, True])
def test_same_shape_and_answers_as_the_compile(monkeypatch: pytest.MonkeyPatch,
                                               nocase: bool) -> None:
    patterns = _patterns()
    plain = [_answers(p, nocase) for p in patterns]
    monkeypatch.setattr(regex_module, "_PLAIN_MAX", -1)  # every pattern compiled when made
    compiled = [_answers(p, nocase) for p in patterns]
    differ = [(p, a, b) for p, a, b in zip(patterns, plain, compiled, strict=True) if a != b]
    assert differ == []
    assert sum(a[0] == "refused" for a in plain) > 50  # (refusals compared too)


def test_a_plain_pattern_is_compiled_when_first_searched(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[object] = []
    real = pcre2.compile

    def compile_(pattern: object, *args: object, **kwargs: object) -> object:
        seen.append(pattern)
        return real(pattern, *args, **kwargs)

    monkeypatch.setattr(pcre2, "compile", compile_)
    regex_module._compiled.cache_clear()
    r = Regex("plain-q17036", False)
    assert seen == []
    assert r.search("") is None and not r.matches("")  # (from the shape)
    assert seen == []
    assert r.search("a plain-q17036 b") is not None
    assert seen == [b"plain-q17036"]
    for pattern in ("plain.q17036", "(q)", "q{2}", "q$", "q\\d", "q#x", "q\u00e9"):
        seen.clear()
        Regex(pattern, False)
        assert len(seen) == 1, pattern  # (compiled when made, as before)
    with pytest.raises(RegexError):
        Regex("q(", False)


@pytest.mark.parametrize(("pattern", "nocase"),
                         list(itertools.product(["q1", " a-b/c "], [False, True])))
def test_a_plain_shape_is_shared(pattern: str, nocase: bool) -> None:
    # (one tuple for the patterns alike, compiled when made or not)
    assert Regex(pattern, nocase).shape is Regex(pattern + ".", nocase).shape

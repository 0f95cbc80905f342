"""parseargline's split of a line without quotes or backslashes is one fixed pattern
(``parse_arg_line``'s fast path, issue 10: a lint of a 1 MB file of RewriteRules split every
line a character at a time, several times); it must split exactly as the character loop
that follows mod_rewrite's ``parseargline`` does."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from confmig.model.rewrite.parse import _scan_arg_line, parse_arg_line

# White space parseargline knows (isspace in the C locale), and some it does not.
ALPHABET = st.sampled_from(["a", "b", "^", "$1", "[L]", " ", "\t", "\n", "\v", "\f", "\r",
                            "\x1c", "\xa0", "\u2028", "é", "%{X}"])


@settings(max_examples=3000, deadline=None)
@given(st.lists(ALPHABET, max_size=12).map("".join))
def test_the_fast_split_is_the_character_loop(text: str) -> None:
    assert parse_arg_line(text) == _scan_arg_line(text)


@pytest.mark.parametrize(("text", "parsed"), [
    ("", None), ("   ", None), ("a", None), (" a", None), ("a ", ("a", "", None)),
    ("a b", ("a", "b", None)), ("a b ", ("a", "b", None)), ("a\tb\vc d", ("a", "b", "c")),
    ("a\xa0b c", ("a\xa0b", "c", None)),
])
def test_edge_lines(text: str, parsed: tuple[str, str, str | None] | None) -> None:
    assert parse_arg_line(text) == parsed == _scan_arg_line(text)

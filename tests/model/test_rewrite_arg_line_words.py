"""A RewriteRule's or RewriteCond's arguments read from the directive's words when they are
plain (``directive_arg_line``, issue 10: a lint's readers of a 1 MB file of rules kept each
line's argument text and words on its node): parseargline's split of the text must be what
it would be from the text itself, for any text."""

from __future__ import annotations

import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from confmig.model.rewrite.parse import directive_arg_line, parse_arg_line
from confmig.syntax import Directive, parse_text
from confmig.syntax.words import split_words

# Plain words, white space parseargline knows and some it does not, quotes, backslashes.
ALPHABET = st.sampled_from(["a", "b", "^", "$1", "[L]", " ", "\t", "\v", "\r", "\xa0", "é",
                            '"', "'", "\\", "\\ ", '\\"', "\\'", "\\\\", '""', "''", "%{X}"])


@settings(max_examples=4000, deadline=None)
@given(st.lists(ALPHABET, max_size=10).map("".join))
def test_the_words_give_what_the_text_gives(text: str) -> None:
    node = Directive("t.conf", 1, 1, f"RewriteRule {text}", "RewriteRule",
                     args=split_words(text), args_text=text)
    assert directive_arg_line(node) == parse_arg_line(text)


@pytest.mark.parametrize("line", [
    'RewriteRule "^a b$" /x [L]', "RewriteRule ^a$ '/x y' [L]", "RewriteRule ^a\\ b$ /x",
    'RewriteRule "" x', "RewriteRule 'a'b c", 'RewriteRule "ab', "RewriteRule ^a$ /b",
    "RewriteCond %{HTTP_HOST} !^www\\. [NC]", "RewriteRule ^(.*)$ index.php?q=$1 [L,QSA]",
])
def test_parsed_lines(line: str) -> None:
    [node] = parse_text(line + "\n", "t.conf").directives()
    assert directive_arg_line(node) == parse_arg_line(node.args_text)


def test_a_plain_line_is_read_without_keeping_its_words() -> None:
    """The words of a node no one read are not kept on it by this reader (a node whose words
    were read gives those same strings)."""
    text = "".join(f"RewriteRule ^p{i}/(.*)$ /x{i}.php?q=$1 [L,QSA]\n" for i in range(2_000))
    nodes = list(parse_text(text, "t.conf").directives())
    tracemalloc.start()
    for node in nodes:
        directive_arg_line(node)
    kept = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    assert kept < 20 * len(nodes), f"{kept / len(nodes):.0f} bytes a line"
    words = nodes[0].args
    assert directive_arg_line(nodes[0])[:2] == tuple(words[:2])
    # A line met once keeps its text, not its words (582cbc2); equal lines keep one shared
    # list, whose strings this reader gives back rather than splitting new ones.
    twice = list(parse_text("RewriteRule ^a/(.*)$ /b.php?q=$1 [L]\n" * 2, "t.conf").directives())
    shared = twice[1].args
    assert twice[0].args is shared
    assert directive_arg_line(twice[1])[0] is shared[0]

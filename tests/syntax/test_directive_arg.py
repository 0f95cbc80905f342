"""``Directive.arg(i)``: the i-th word, the same as ``args[i]`` whatever the node keeps of its
words (its text, its words joined, a shared list, one word, both given by hand)."""

from __future__ import annotations

import pytest

from confmig.syntax import parse_text
from confmig.syntax.ast import Directive

LINES = [
    "RewriteRule ^p1/(.*)$ /x1.php?q=$1 [L,QSA]",   # words at single spaces: the text kept
    'Header set X-A "b c"',                         # quoted: the words joined
    "Header  set\tX-B  c",                          # other white space
    "Options",                                      # no word
    "Options -Indexes",                             # one word
]


@pytest.mark.parametrize("line", LINES)
def test_arg_is_args_at_that_place(line: str) -> None:
    text = "".join(f"{line}\n" for _ in range(3))  # the third line shares the first's words
    for d in parse_text(text, "t.conf").directives():
        for index in range(len(d.args)):
            assert d.arg(index) == d.args[index]
        with pytest.raises(IndexError):
            d.arg(len(d.args))


def test_arg_of_a_node_made_by_hand() -> None:
    d = Directive(file="t", line=1, name="RewriteRule", args=["^a", "/b"], args_text="^a /b")
    assert (d.arg(0), d.arg(1)) == ("^a", "/b")

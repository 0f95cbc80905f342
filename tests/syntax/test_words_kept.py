"""What a directive keeps once a reader asked for its words (issue 10): quoted words that the
file's table does not share cost one string a line, not a list and a string a word."""

from __future__ import annotations

import copy
import pickle
import tracemalloc

from confmig.syntax import Directive, parse_bytes
from confmig.syntax.words import split_words

LINES = 20_000


def _directives(text: str) -> list[Directive]:
    tree = parse_bytes(text.encode(), "big.htaccess")
    return [node for node in tree.nodes if isinstance(node, Directive)]


def test_quoted_words_read_keep_under_120_bytes_a_line() -> None:
    # Every line distinct, quoted: the table shares (and keeps) the first 4,096 lines' lists
    # only, ~33 bytes a line of these 20,000.  Keeping each line's words as a list and its
    # strings measured 161 bytes a line in all, one joined string 97.
    nodes = _directives("".join(f'Header set X-{i} "b c"\n' for i in range(LINES)))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for node in nodes:
            assert node.args == ["set", f"X-{node.line - 1}", "b c"]
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept / LINES < 120, f"{kept / LINES:.0f} bytes a line kept after reading the words"


def test_kept_words_read_as_split_words() -> None:
    # Quotes, single quotes, escapes, an empty word, a tab, an unclosed quote and a lone
    # empty word: every read (and a copy, a pickle) gives what split_words gives.
    texts = ['"a b" c', "'x y' \"\"", 'a\\\\b "c\\"d"', 'a\t"b"', '"unclosed x', '""',
             '"a""b" c']
    lines = [f"Header set X-{i} {text}\n" for i in range(5000) for text in texts]
    nodes = _directives("".join(lines))
    for node in nodes:
        want = split_words(node.args_text_unkept())
        assert node.args_unkept() == want
        assert node.args == want
        assert node.args == want  # again, from what the node kept
        assert node.args_unkept() == want
        assert node.args_text == node.raw.strip()[len("Header"):].lstrip()
        assert copy.copy(node).args == want
        assert pickle.loads(pickle.dumps(node)).args == want

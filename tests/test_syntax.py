"""The parser: Apache's lexical rules, byte-for-byte round trip, structural errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from confmig.syntax import Comment, Directive, Section, parse_text, print_file, split_words
from confmig.syntax.parser import decode
from tests.corpus import apache_corpus_files, needs_corpus


def only(text: str):
    config = parse_text(text, "t.conf")
    assert config.ok, config.errors
    return config


def directives(text: str) -> list[Directive]:
    return list(only(text).directives())


# --- words -----------------------------------------------------------------

@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("a b\tc", ["a", "b", "c"]),
        ('"a b" c', ["a b", "c"]),
        ("'a b' c", ["a b", "c"]),
        ('"a""b"', ["a", "b"]),                      # a new word right after a closing quote
        ('"unbalanced trailing', ["unbalanced trailing"]),
        (r'"a\"b"', ['a"b']),                        # escaped quote inside quotes
        (r"'it\'s'", ["it's"]),
        (r'"a\\b"', [r"a\b"]),
        (r'"a\nb"', [r"a\nb"]),                      # other backslashes stay
        (r"a\\b", [r"a\b"]),                         # bare word: \\ is one backslash
        (r"a\b", [r"a\b"]),
        ('a"b c"', ['a"b', 'c"']),                   # a quote inside a bare word is literal
        ('""', [""]),
        ("x # y", ["x", "#", "y"]),                  # mid-line '#' is an argument
    ],
)
def test_split_words_like_ap_getword_conf(line: str, words: list[str]) -> None:
    assert split_words(line) == words


# --- lexical rules ---------------------------------------------------------

def test_continuation_joins_lines_without_a_space() -> None:
    (d,) = directives("Header set X-A \\\n  value\n")
    assert d.args == ["set", "X-A", "value"]
    assert (d.line, d.end_line) == (1, 2)


def test_continuation_inside_a_comment_swallows_the_next_line() -> None:
    config = only("# comment \\\nRewriteEngine On\nOptions None\n")
    assert [type(n).__name__ for n in config.nodes] == ["Comment", "Directive"]
    assert next(config.directives()).name == "Options"


def test_continuation_with_crlf() -> None:
    (d,) = directives("Header set X-A \\\r\n b\r\n")
    assert d.args == ["set", "X-A", "b"]


def test_hash_starts_a_comment_only_at_line_start() -> None:
    config = only("  # indented comment\nRewriteRule ^a b # not a comment\n")
    assert isinstance(config.nodes[0], Comment)
    assert config.nodes[0].column == 3
    assert next(config.directives()).args == ["^a", "b", "#", "not", "a", "comment"]


def test_names_are_case_insensitive_and_sections_close_in_any_case() -> None:
    config = only("<ifmodule mod_rewrite.c>\nREWRITEENGINE on\n</IFMODULE>\n")
    section = config.nodes[0]
    assert isinstance(section, Section) and section.lname == "ifmodule"
    assert next(config.directives()).lname == "rewriteengine"


def test_ifversion_with_a_less_than_operator() -> None:
    (section,) = only("<IfVersion < 2.4>\nRequire all granted\n</IfVersion>\n").nodes
    assert isinstance(section, Section)
    assert section.args == ["<", "2.4"]


def test_if_expression_keeps_its_quotes_in_args_text() -> None:
    (section,) = only("<If \"%{HTTP_HOST} == 'example.com'\">\n</If>\n").nodes
    assert isinstance(section, Section)
    assert section.args == ["%{HTTP_HOST} == 'example.com'"]
    assert section.args_text == "\"%{HTTP_HOST} == 'example.com'\""


def test_empty_sections_and_sections_without_arguments() -> None:
    config = only("<Directory /x>\n</Directory>\n<Else>\n</Else>\n")
    assert [(n.name, n.args, n.children) for n in config.nodes] == [
        ("Directory", ["/x"], []), ("Else", [], [])]


def test_section_argument_ends_at_the_last_bracket() -> None:
    (section,) = only('<FilesMatch "\\.(a|b)>$">\n</FilesMatch>\n').nodes
    assert section.args == ["\\.(a|b)>$"]


def test_tabs_non_ascii_and_crlf_round_trip() -> None:
    text = "# café — ünïcode\r\n\tOptions\t-Indexes\r\n"
    config = only(text)
    assert next(config.directives()).args == ["-Indexes"]
    assert print_file(config) == text


def test_a_utf8_bom_is_part_of_the_first_word_as_in_apache() -> None:
    """Apache on Unix does not skip a BOM (see test_syntax_apache): 'Invalid command'."""
    config = only("\ufeff# not a comment any more\nOptions None\n")
    first = config.nodes[0]
    assert isinstance(first, Directive) and first.name == "\ufeff#"
    assert print_file(config) == "\ufeff# not a comment any more\nOptions None\n"


def test_an_unclosed_conditional_section_is_a_warning_not_an_error() -> None:
    config = parse_text("<IfModule mod_headers.c>\nHeader set X y\n", "t")
    assert config.ok and not config.nodes[0].closed
    assert [w.line for w in config.warnings] == [1]
    assert print_file(config) == "<IfModule mod_headers.c>\nHeader set X y\n"


def test_invalid_utf8_bytes_round_trip() -> None:
    data = b"# caf\xe9 (latin-1)\nOptions None\n"
    config = only(decode(data))
    assert print_file(config).encode("utf-8", "surrogateescape") == data


def test_very_long_line() -> None:
    value = "x" * 200_000
    (d,) = directives(f"Header set X-Long {value}\n")
    assert d.args[2] == value


def test_no_final_newline_and_trailing_blank() -> None:
    for text in ["Options None", "Options None\n   ", "\n\n", "# only a comment"]:
        assert print_file(only(text)) == text


def test_positions_of_nested_nodes() -> None:
    config = only("<IfModule a>\n  <IfModule b>\n      Options None\n  </IfModule>\n</IfModule>\n")
    (d,) = config.directives()
    assert (d.line, d.column) == (3, 7)
    assert config.nodes[0].children[0].close_line == 4


# --- errors ----------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("<Directory /x>\n</Files>\n", 2, 1, "Expected </Directory> but saw </Files>"),
        ("Options None\n<Directory /x>\nOptions None\n", 2, 1, "<Directory> was not closed."),
        ("<IfModule a>\n</IfModule >\n", 2, 1, "</IfModule without matching <IfModule section"),
        ("  </Directory>\n", 1, 3, "</Directory> without matching <Directory> section"),
        ("<Directory /x\n</Directory>\n", 1, 1, "<Directory> directive missing closing '>'"),
        ("<Files a>\n</Files >\n", 2, 1, "</Files> directive missing closing '>'"),
    ],
)
def test_structural_errors_have_file_line_column(text, line, column, message) -> None:
    config = parse_text(text, "site/.htaccess")
    assert [(e.file, e.line, e.column, e.message) for e in config.errors] == [
        ("site/.htaccess", line, column, message)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(
    [*list("<>/#\"'\\ \t\r\nabc\ufeff"), "</a>", "<a>", "<A b>", "Options", "\\\n"])).map("".join))
def test_random_text_never_raises_and_round_trips_when_it_parses(text: str) -> None:
    config = parse_text(text, "fuzz")
    if config.ok:
        assert print_file(config) == text
    else:
        assert all(e.line >= 1 and e.message for e in config.errors)


# --- the real-world corpus -------------------------------------------------

@needs_corpus
@pytest.mark.parametrize("path", apache_corpus_files(),
                         ids=lambda p: p.relative_to(p.parents[2]).as_posix())
def test_corpus_file_parses_and_round_trips_byte_for_byte(path) -> None:
    data = path.read_bytes()
    config = parse_text(decode(data), str(path))
    assert config.ok, config.errors
    assert print_file(config).encode("utf-8", "surrogateescape") == data
    assert config.nodes or not data


_CORPUS_TEXTS = [decode(p.read_bytes()) for p in apache_corpus_files()]


@needs_corpus
@settings(max_examples=200, deadline=None)
@given(
    index=st.integers(min_value=0, max_value=max(len(_CORPUS_TEXTS) - 1, 0)),
    cuts=st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 40),
                            st.sampled_from(["", "<", ">", "</IfModule>", "\\\n", '"', "#",
                                             "\n<Directory x>\n", "\r\n", "\ufeff"])),
                  max_size=6),
)
def test_mutated_corpus_files_never_raise(index: int, cuts) -> None:
    """Real files with random deletions and insertions: errors are collected, never raised."""
    text = _CORPUS_TEXTS[index]
    for at, length, insert in cuts:
        at = at % (len(text) + 1)
        text = text[:at] + insert + text[at + length:]
    config = parse_text(text, "mutated")
    if config.ok:
        assert print_file(config) == text
    else:
        assert all(e.line >= 1 and e.column >= 1 and e.message for e in config.errors)

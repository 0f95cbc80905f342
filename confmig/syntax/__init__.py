"""Stage 1 of the pipeline: text → typed, lossless syntax tree (and back)."""

from confmig.syntax.ast import (
    Blank,
    Comment,
    ConfigFile,
    Directive,
    Node,
    ParseError,
    ReadLimitError,
    Section,
)
from confmig.syntax.parser import logical_text, parse_bytes, parse_file, parse_text
from confmig.syntax.printer import print_file, print_nodes
from confmig.syntax.words import split_words

__all__ = [
    "Blank", "Comment", "ConfigFile", "Directive", "Node", "ParseError", "ReadLimitError",
    "Section", "logical_text", "parse_bytes", "parse_file", "parse_text", "print_file",
    "print_nodes", "split_words",
]

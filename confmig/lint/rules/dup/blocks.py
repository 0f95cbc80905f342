"""A rewrite block's identity, independent of where it lives.

Two blocks are the same when their RewriteCond/RewriteRule lines are, once
white space is collapsed and the section's own URL prefix (its RewriteBase, or the
URL of the .htaccess directory) is replaced by a placeholder in the targets — so a
block copied into ``/blog/.htaccess`` and ``/shop/.htaccess`` with ``RewriteBase
/blog/`` and ``/shop/`` still counts as one block.
"""

from __future__ import annotations

from confmig.lint.scopes import Scope
from confmig.model.rewrite.parse import parse_arg_line

BLOCK_DIRECTIVES = ("rewritecond", "rewriterule")
BASE = "{base}/"


def block_key(scope: Scope, url_prefix: str | None = None) -> tuple[str, ...] | None:
    """The normalised lines of a scope's rewrite block; None when it has no RewriteRule."""
    prefix = scope.rewrite.base if scope.rewrite.base_set else url_prefix
    if prefix is not None and not prefix.endswith("/"):
        prefix += "/"
    lines: list[str] = []
    for d in scope.directives:
        if d.lname not in BLOCK_DIRECTIVES:
            continue
        parsed = parse_arg_line(d.args_text or " ".join(d.args))
        if parsed is None:
            return None
        first, second, flags = parsed
        if d.lname == "rewriterule" and prefix and prefix != "/" and second.startswith(prefix):
            second = BASE + second[len(prefix):]
        lines.append(" ".join(w for w in (d.lname, first, second, flags or "") if w))
    if not any(line.startswith("rewriterule") for line in lines):
        return None
    return tuple(lines)

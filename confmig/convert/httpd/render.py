"""Turn a :class:`~confmig.convert.httpd.plan.FilePlan` into the text of its ``<Directory>``
block, keeping every line of the ``.htaccess`` (moved as written, re-indented, or commented
out with the reason), and remembering which source node each output line came from so an
error Apache reports for a line of the block can be traced back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from confmig.console import printable
from confmig.convert.httpd.denied import DENY_LINES, listing_lines
from confmig.convert.httpd.judge import Verdict
from confmig.convert.httpd.plan import EMPTY_CONFIG, FilePlan, FileStatus
from confmig.convert.httpd.templating import render
from confmig.convert.httpd.text import (
    as_read,
    comment_lines,
    comment_out,
    directory_arg,
    ensure_newline,
    indent_first_line,
)
from confmig.syntax import Blank, Comment, Node, Section, print_nodes

INDENT = "    "

#: Keeping a 500 (the default; not with ``--serve-500``): an authorization rule whose
#: expression cannot be evaluated makes mod_authz_core answer 500 (AH02320) for every request
#: of the directory and below, in the same phase for all of them — unlike
#: ``RewriteRule ^ - [R=500]``, which runs only in the fixup phase, after a 403 from access
#: control and after mod_dir's trailing-slash redirect (both verified on Apache 2.4.71).
#: ``file('')`` always fails to open.  The same rule in a ``<FilesMatch "^">`` inside the
#: block is merged after every server-wide ``<Files>`` section (Debian's
#: ``<FilesMatch "^\.ht">``), whose own ``Require`` would otherwise win; in an ``<If "true">``
#: it is merged after every ``<Location>``/``<LocationMatch>`` and server-level ``<If>`` too
#: (``ap_if_walk`` runs last), which would otherwise authorize the requests themselves.  Only
#: an ``<If>`` inside a server ``<Location>`` comes later still (all checked on Apache 2.4.71).
KEEP_500_REQUIRE = "Require expr \"-z file('')\""
KEEP_500_LINES = (KEEP_500_REQUIRE, '<FilesMatch "^">', f"    {KEEP_500_REQUIRE}",
                  "</FilesMatch>", '<If "true">', f"    {KEEP_500_REQUIRE}", "</If>")


@dataclass
class Block:
    """Rendered text, line by line, with the source node of each line (None: generated)."""

    lines: list[str] = field(default_factory=list)
    sources: list[Node | None] = field(default_factory=list)

    def add(self, text: str, source: Node | None = None) -> None:
        for line in ensure_newline(text).splitlines(keepends=True):
            self.lines.append(line)
            self.sources.append(source)

    def extend(self, other: Block) -> None:
        self.lines += other.lines
        self.sources += other.sources

    @property
    def text(self) -> str:
        return "".join(self.lines)


def render_block(plan: FilePlan, *, keep_500: bool, indent: str = "") -> Block:
    """The ``<Directory>`` block of one access file (header comment included)."""
    block = Block()
    access = plan.access
    origin = f"{access.path}"
    if access.link:
        origin += f" (reached through the symlink {access.link})"
    block.add(f"{indent}# {printable(origin)}")  # (a name may hold a line break)
    block.add(f"{indent}<Directory {directory_arg(access.directory)}>")
    block.extend(render_body(plan, keep_500=keep_500, indent=indent + INDENT))
    block.add(f"{indent}</Directory>")
    lines = listing_lines(plan.blocked_listing) if plan.blocked_listing else None
    if plan.blocked_listing and lines:
        block.add(comment_lines(
            f"Apache's listing of {plan.blocked_listing}/ never answers: mod_autoindex looks "
            f"{access.directory}/ up with a sub-request, which blocks on the FIFO. Not "
            "listed here (403).", indent))
        block.add(f"{indent}<Directory {directory_arg(plan.blocked_listing)}>")
        for line in lines:
            block.add(indent + INDENT + line)
        block.add(f"{indent}</Directory>")
    return block


def render_body(plan: FilePlan, *, keep_500: bool, indent: str = INDENT) -> Block:
    body = Block()
    config = plan.config
    status = plan.status
    if status is FileStatus.DENIED:
        body.add(comment_lines(f"Denied: {plan.denied_reason}.", indent))
        for line in DENY_LINES:
            body.add(indent + line)
        return body
    if status is FileStatus.DENIED_BELOW:
        body.add(comment_lines(f"Apache never read this file ({plan.denied_reason}); kept "
                               "as comments.", indent))
        _all_commented(plan, body, indent)
        return body
    if status is FileStatus.IGNORED:
        body.add(comment_lines(f"Apache never read this file ({plan.in_force.describe()}, "
                               f"{plan.in_force.source}); kept as comments.", indent))
        _all_commented(plan, body, indent)
        return body
    if status is FileStatus.FATAL and (keep_500 or plan.syntax_error):
        _fatal_header(plan, body, indent, keep_500)
        _all_commented(plan, body, indent)
        return body
    if status is FileStatus.DEAD:
        parent = plan.dead_because.path if plan.dead_because else "a parent .htaccess"
        if keep_500:
            body.add(comment_lines(f"Apache never read this file: {parent} answers 500 first "
                                   "(kept above); kept as comments.", indent))
            _all_commented(plan, body, indent)
            return body
        body.add(comment_lines(f"Apache never read this file ({parent} answered 500 first);"
                               " moved as if it had (--serve-500).", indent))
    if config is not None:
        for node in config.nodes:
            _node(plan, node, body, indent)
    for module, ignored in plan.empty_configs:
        body.add(comment_lines(
            f"{ignored.name} (line {ignored.line}) was ignored (Nonfatal=Override), but Apache "
            f"still gave this directory an empty {module} configuration of its own, which "
            f"replaces the parent's; this directive does the same and nothing else.", indent))
        body.add(indent + EMPTY_CONFIG[module])
    return body


def _fatal_header(plan: FilePlan, body: Block, indent: str, keep_500: bool) -> None:
    reasons = [f"line {node.line}: {j.reason}" for node, j in plan.fatal()]
    if plan.syntax_error:
        reasons.insert(0, plan.syntax_error)
    text = "Apache answered 500 for every request here and below: " + "; ".join(reasons)
    if keep_500:
        body.add(comment_lines(text + ". Kept: the Require below fails to evaluate its "
                               "expression, which Apache answers with 500 (--serve-500 would "
                               "serve these requests instead).", indent))
        for line in KEEP_500_LINES:
            body.add(indent + line)
    else:
        body.add(comment_lines(text + ". The file could not be read at all; kept as comments "
                               "(--serve-500).", indent))


def _all_commented(plan: FilePlan, body: Block, indent: str) -> None:
    config = plan.config
    if config is None or not config.nodes:
        body.add(comment_out(plan.text, indent) if plan.text.strip() else "")
        return
    for node in config.nodes:
        if isinstance(node, Blank):  # a run of blank lines (syntax.ast.Blank): one each
            body.add("\n" * (node.end_line - node.line + 1), node)
        elif isinstance(node, Comment) and node.end_line > node.line:
            # a run of comment lines (syntax.ast.Comment): each commented out as its own
            for one in node.lines():
                body.add(comment_out(_printed(one), indent), node)
        else:
            body.add(comment_out(_printed(node), indent), node)


def _printed(node: Node) -> str:
    """``print_nodes([node])``, each node's lines as Apache read them (:func:`as_read`: no
    NUL byte, nothing Apache dropped after one)."""
    if isinstance(node, Section):
        text = as_read(node.raw) + "".join(_printed(child) for child in node.children)
        return text + (as_read(node.close_raw) if node.closed and node.close_raw else "")
    return as_read(node.raw) if node.raw else print_nodes([node])


def _node(plan: FilePlan, node: Node, body: Block, indent: str) -> None:
    judgement = plan.decisions.get((node.line, node.column))
    if judgement is not None and judgement.verdict is not Verdict.OK:
        label = "Apache answered 500" if judgement.verdict is Verdict.FATAL else "ignored"
        body.add(comment_lines(f"{label}: {judgement.reason}", indent), node)
        body.add(comment_out(_printed(node), indent), node)
        return
    if isinstance(node, Section):
        body.add(indent_first_line(as_read(node.raw), indent), node)
        for child in node.children:
            _node(plan, child, body, indent)
        body.add(indent_first_line(as_read(node.close_raw) or f"</{node.name}>", indent), node)
        return
    if isinstance(node, Blank) and node.end_line > node.line:
        # a run of blank lines, each one whole physical line (syntax.ast.Blank): one each
        body.add("\n" * (node.end_line - node.line + 1), node)
        return
    if isinstance(node, Comment) and node.end_line > node.line:
        # a run of comment lines (syntax.ast.Comment): each line indented as its own
        for one in node.lines():
            body.add(indent_first_line(as_read(one.raw), indent), node)
        return
    body.add(indent_first_line(as_read(node.raw), indent), node)


def render_group(root: str, plans: list[FilePlan], *, keep_500: bool, indent: str = "") -> Block:
    """``AllowOverride None`` for the document root, then one block per access file."""
    group = Block()
    group.add(render("root_block.conf.j2", indent=indent, docroot=root,
                     root_arg=directory_arg(root)))
    for plan in plans:
        group.add("\n")
        group.extend(render_block(plan, keep_500=keep_500, indent=indent))
    return group

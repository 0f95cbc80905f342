"""Recognise a document root that confmig has converted before, so that converting the
configuration again is "nothing to do" instead of a second copy of every block.

A tree counts as converted when both hold:

* **the converter's own marker** is there: the block :func:`render_group` writes first for the
  tree (``root_block.conf.j2``: its comment lines, then ``<Directory ROOT>`` setting
  ``AllowOverride None``), as a ``<Directory>`` section the tree's server context applies, with
  the comment lines exactly as rendered for that path right above it (compared node by node in
  the lossless tree, not searched for in the text);
* **nothing is left to fold**: under the AllowOverride the configuration now puts in force,
  Apache reads none of the tree's access files — every one is planned
  :attr:`FileStatus.IGNORED` by the same planner the conversion uses.

A marker with access files Apache reads again (someone turned ``AllowOverride`` back on below
the tree) is an error: folding again would repeat every block already there.
"""

from __future__ import annotations

from confmig.convert.httpd.layout import Layout, ServerContext
from confmig.convert.httpd.plan import FileStatus
from confmig.convert.httpd.templating import render
from confmig.convert.httpd.text import directory_arg
from confmig.convert.result import ConvertError
from confmig.load import LoadedConfig
from confmig.syntax import Comment


def marker_comments(root: str) -> list[str]:
    """The text of the comment lines the converter writes above ``<Directory ROOT>``."""
    text = render("root_block.conf.j2", indent="", docroot=root, root_arg=directory_arg(root))
    header: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("#"):
            break
        header.append(stripped[1:].strip())
    return header


def find_marker(config: LoadedConfig, layout: Layout, context: ServerContext,
                root: str) -> Comment | None:
    """The first marker comment of an earlier conversion of *root* in *context*, or None."""
    header = marker_comments(root)
    if not header:
        return None
    for section in layout.sections_for(context):
        if section.path != root:
            continue
        allow = section.directive("allowoverride")
        if allow is None or [a.lower() for a in allow.args] != ["none"]:
            continue
        comments = _comments_by_line(config, section.node.file)
        first = section.node.line - len(header)
        found = [comments.get(first + i) for i in range(len(header))]
        if all(c is not None and c.text == want for c, want in zip(found, header, strict=True)):
            return found[0]
    return None


def already_converted(marker: Comment | None, root: str, statuses: list[tuple[str, FileStatus,
                                                                              str]]) -> bool:
    """True when *root* was converted before and nothing is left to fold; False when there is
    no marker.  *statuses* are ``(access file, status, what is in force)`` for the tree.
    Raises :class:`ConvertError` for a marked tree with access files Apache reads again."""
    if marker is None:
        return False
    read = [(path, why) for path, status, why in statuses if status is not FileStatus.IGNORED]
    if read:
        path, why = read[0]
        raise ConvertError(
            f"{marker.file}:{marker.line}: {root} was converted by confmig before, but Apache "
            f"reads {path} again ({why}); converting again would repeat every block: start "
            "from the configuration's backup (NAME.~N~) or fold that file by hand")
    return True


def _comments_by_line(config: LoadedConfig, file: str) -> dict[int, Comment]:
    """The file's comment lines, a node each (a run of comment lines is one node in the
    tree: :meth:`Comment.lines` gives its lines)."""
    parsed = config.files.get(file)
    if parsed is None:
        return {}
    return {one.line: one for node in parsed.walk() if isinstance(node, Comment)
            for one in node.lines()}

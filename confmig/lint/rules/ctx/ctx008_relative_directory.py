"""CTX008: a relative ``<Directory>`` path, which Apache does not take from ServerRoot.

``dirsection`` (server/core.c) canonicalises a non-regex ``<Directory>`` path with
``apr_filepath_merge(&newpath, NULL, path, APR_FILEPATH_TRUENAME, …)``: no root given, so
APR merges a relative path with the process's *working directory* (lexically: ``.`` and
``..`` folded, ``..`` above ``/`` stays at ``/``) and Apache appends a ``/``.  A daemonised
Apache re-reads its configuration after ``apr_proc_detach`` has done ``chdir("/")``, so
``<Directory demo-site>`` is ``/demo-site/``, while ``DocumentRoot demo-site`` goes through
``ap_server_root_relative`` and is ``<ServerRoot>/demo-site``
(tests/convert/test_relative_directory_apache.py and tests/lint/rules/test_ctx008.py check
it on a real daemonised Apache).

What is flagged, per path form (after ``${VAR}`` expansion — the rule reads the effective
tree, so a ``Define``d variable is already resolved):

* ``/``, ``/var/www``, ``/var/www/*``: absolute, fine;
* ``demo-site``, ``"my site"``, ``../htdocs``, ``.``: relative, flagged, with the path Apache
  really matches once daemonised (``.`` is ``/``: the section applies everywhere);
* ``*``, ``sites/*``: wildcards go through the same merge (APR_EPATHWILD is accepted, not
  special-cased), so ``<Directory "*">`` is ``/*/``: every directory below a top-level one;
  flagged like any relative path;
* ``<Directory ~ re>`` and ``<DirectoryMatch re>``: regexes are compiled as written and matched
  against the absolute file name, never merged with a directory: not flagged;
* a path still holding an undefined ``${VAR}`` (Apache's environment may define it) and a
  Windows drive path (``C:/…``, absolute on Windows): not flagged.

Severity, kept simple: **error** when the ServerRoot-relative reading of the path (what the
author most likely meant, by analogy with DocumentRoot) is exactly a DocumentRoot of the
same configuration — that site's ``<Directory>`` settings (AllowOverride, Require…) then
never apply to it; otherwise **warning**.  ServerRoot is the configuration's own
``ServerRoot`` directive or, without one, the directory of the main config file (as the
loader assumes); the hint spells out the ServerRoot-joined absolute path only when the
configuration sets ``ServerRoot`` itself.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator

from confmig.apache.paths import directory_section_path, server_root_relative
from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.syntax import Directive, Node, Section

_DRIVE = re.compile(r"^[A-Za-z]:[/\\]")
_QUOTE = re.compile(r"[\s\"'<>]")


@register
class RelativeDirectory(Rule):
    code = "CTX008"
    name = "relative-directory-path"
    summary = "<Directory> with a relative path: Apache takes it from its working directory " \
              "(/ once daemonised), not from ServerRoot"
    rationale = (
        "DocumentRoot, Include, ErrorLog… resolve a relative path against ServerRoot, but a "
        "<Directory> path is merged with the working directory of the Apache process "
        "(core.c dirsection: apr_filepath_merge with no root). A daemonised Apache — "
        "`apachectl start`, `apache2 -k start`, systemd — reads its configuration after "
        "chdir(\"/\"), so `<Directory htdocs>` is /htdocs/, not <ServerRoot>/htdocs like "
        "`DocumentRoot htdocs`; in the foreground (-DFOREGROUND, -X) it depends on where "
        "Apache was started. `apache2 -t` says Syntax OK and nothing is logged: the section "
        "simply never applies to the site, so its AllowOverride, Options and Require are "
        "not the ones in force there. `<Directory \"*\">` becomes /*/ and `<Directory .>` "
        "becomes /. Regex sections (<DirectoryMatch>, <Directory ~>) are not affected."
    )
    bad = "ServerRoot /srv/site\nDocumentRoot htdocs\n<Directory htdocs>\n" \
          "    AllowOverride FileInfo\n</Directory>\n"
    good = "ServerRoot /srv/site\nDocumentRoot htdocs\n<Directory /srv/site/htdocs>\n" \
           "    AllowOverride FileInfo\n</Directory>\n"
    severity = Severity.warning
    example_kind = "server"
    fix = "write the <Directory> path as an absolute path"

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        if ctx.kind != "server":
            return
        relative = [node for node in ctx.walked_nodes()
                    if isinstance(node, Section) and _relative_directory(node)]
        if not relative:
            return
        server_root = str(ctx.loaded.state.server_root)
        everything = list(_all_nodes(ctx.loaded.nodes))
        root_known = any(isinstance(n, Directive) and n.lname == "serverroot" and n.args
                         for n in everything)
        document_roots = {server_root_relative(n.args[0], server_root) for n in everything
                          if isinstance(n, Directive) and n.lname == "documentroot"
                          and n.args}
        for node in relative:
            path = node.args[0]
            matched = directory_section_path(path)
            meant = server_root_relative(path, server_root)
            written = f"<Directory {_quoted(path)}>"
            if "${" in node.raw:
                written += " (after ${…} expansion)"
            shown_meant = meant if root_known else "<ServerRoot>/" + posixpath.normpath(path)
            message = (f"{written} is relative: Apache merges it with its working directory, "
                       f"so it matches {matched} once Apache daemonises, not {shown_meant} "
                       "like DocumentRoot")
            severity = None
            if meant in document_roots:
                message += "; this section never applies to that DocumentRoot"
                severity = Severity.error
            yield self.finding(node, message, hint=self._hint(meant, root_known),
                               severity=severity)

    def _hint(self, meant: str, root_known: bool) -> str:
        if root_known:
            return f"<Directory {_quoted(meant)}> (absolute; ServerRoot joined)"
        return "an absolute path (this config sets no ServerRoot to join it to)"


def _relative_directory(node: Section) -> bool:
    """A non-regex ``<Directory>`` whose (expanded) path is relative."""
    if node.lname != "directory" or not node.args:
        return False
    path = node.args[0]
    return not (path == "~" or not path or path.startswith("/") or "${" in path
                or _DRIVE.match(path))


def _all_nodes(nodes: list[Node]) -> Iterator[Node]:
    for node in nodes:
        yield node
        if isinstance(node, Section):
            yield from node.walk()


def _quoted(path: str) -> str:
    return f'"{path}"' if _QUOTE.search(path) else path

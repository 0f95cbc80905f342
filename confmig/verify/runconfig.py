"""Make a user's whole configuration runnable as a private, throwaway server.

The configuration is flattened (every ``Include`` inlined) and then changed only where it would
reach outside the private server ``confmig.servers`` sets up, the same way for the original and
the converted configuration so that any difference between them comes from the conversion:

* ``Listen``, ``PidFile``, logs, ``User``/``Group``, ``Mutex``, ``LoadModule`` (the modules are
  loaded by the harness from the same list) and TLS directives are commented out;
* every ``<VirtualHost>`` listens on the private port, name-based as before;
* a relative ``<Directory>`` path is written out as Apache resolves it once daemonised
  (against ``/``), because the private server runs in the foreground in a temp dir;
* ``ServerRoot`` is set first to where the configuration was read from, as the reader assumed.
"""

from __future__ import annotations

import os

from confmig.convert.httpd import print_transformed, resolve_directory
from confmig.syntax import Directive, Node, Section, parse_text
from confmig.syntax.words import quote_word

DROPPED = frozenset({
    "listen", "pidfile", "errorlog", "customlog", "transferlog", "user", "group", "mutex",
    "loadmodule", "loadfile", "defaultruntimedir", "scoreboardfile", "lockfile",
    "coredumpdirectory", "globallog", "errorlogformat",
})
HIDDEN_ACCESS_FILE = ".confmig-no-access-file"


def runnable(flat_text: str, server_root: str, *, hide_access_files: bool = False) -> str:
    """A flattened configuration (``confmig convert -o`` output, or the original flattened),
    ready for ``ApacheServer(server_config=…)``.

    ``AccessFileName`` is kept as written for the original; for the converted configuration
    (*hide_access_files*) every one becomes a name no file has — as if the ``.htaccess`` files
    had been deleted, without touching the site.
    """
    def transform(node: Node) -> str | None:
        return _transform(node, hide_access_files)

    parsed = parse_text(flat_text, "flattened.conf")
    if parsed.errors:
        raise ValueError(str(parsed.errors[0]))
    body = print_transformed(parsed.nodes, transform)
    head = f"ServerRoot {quote_word(server_root)}\n"
    tail = f"AccessFileName {HIDDEN_ACCESS_FILE}\n" if hide_access_files else ""
    return head + body + ("\n" if not body.endswith("\n") else "") + tail


def _transform(node: Node, hide: bool) -> str | None:
    indent = node.raw[: len(node.raw) - len(node.raw.lstrip(" \t"))]
    if isinstance(node, Directive):
        lname = node.lname
        if lname == "accessfilename":
            return f"{indent}AccessFileName {HIDDEN_ACCESS_FILE}\n" if hide else None
        if lname in DROPPED or lname.startswith("ssl"):
            return f"{indent}# confmig verify: {' '.join(node.raw.split())}\n"
        if lname == "typesconfig" and node.args and not os.path.isabs(node.args[0]):
            return f"{indent}# confmig verify: {' '.join(node.raw.split())}\n"
        return None
    if isinstance(node, Section):
        if node.lname == "virtualhost":
            return f"{indent}<VirtualHost *:${{CONFMIG_PORT}}>\n"
        if node.lname == "directory" and node.args and node.args[0] not in ("~", "/") \
                and not node.args[0].startswith("/"):
            return f"{indent}<Directory {quote_word(resolve_directory(node.args[0]))}>\n"
    return None

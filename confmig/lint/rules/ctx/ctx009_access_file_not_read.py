"""CTX009: an access file Apache cannot read as one, or that confmig did not read.

Apache opens ``<directory>/<AccessFileName>`` with a plain ``open()`` and refuses anything but
a regular file (``ap_pcfg_openfile``): a *directory*, socket or device named ``.htaccess``
makes every request in that directory and below answer **403**, an unreadable file (or a
symlink loop) too, and a *FIFO* blocks ``open()`` — the request hangs.  A symlinked
``.htaccess`` is read wherever it points, under any ``Options`` (symlink options apply to the
path Apache walks, not to the access file).  confmig does not read one that points outside the
root it was given (``--follow-symlinks`` to read it) and reports it here instead.  All of it is
decided by :func:`confmig.load.accessfile.check_access_file` and checked on Apache 2.4
(tests/test_access_files_apache.py).

The docroot walk finds these files; :func:`problem_findings` turns them into findings (there
is no text to lint in them).  In a server config, an ``AccessFileName`` of ``.`` or ``..`` (or
ending in ``/``) names a directory in every directory: Apache then answers 403 wherever
overrides are allowed.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from confmig.lint.context import FileContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.load.accessfile import AccessCheck, AccessState

if TYPE_CHECKING:
    from confmig.lint.context import Environment

DIRECTORY_NAMES = (".", "..")


@register
class AccessFileNotRead(Rule):
    code = "CTX009"
    name = "access-file-not-regular"
    summary = "the access file is not a regular file Apache (or confmig) can read: " \
              "Apache answers 403, or hangs on a FIFO"
    rationale = (
        "Apache opens each directory's .htaccess with open() and accepts only a regular file "
        "(ap_pcfg_openfile): a directory, socket or device named .htaccess, an unreadable one "
        "or a symlink loop make Apache answer 403 for the directory and everything below it "
        "(AH00554/AH00529), and a FIFO blocks open(): every such request hangs. A symlinked "
        ".htaccess is followed wherever it points, whatever Options say; confmig does not read "
        "one pointing outside the root it was given unless you pass --follow-symlinks, and "
        "treats its directory as denied. In a server config, AccessFileName . (or ..) names "
        "a directory everywhere: 403 wherever overrides are allowed."
    )
    bad = ("AccessFileName .\n"
           "<Directory /var/www/html>\n    AllowOverride All\n</Directory>\n")
    good = ("AccessFileName .htaccess\n"
            "<Directory /var/www/html>\n    AllowOverride All\n</Directory>\n")
    severity = Severity.error
    example_kind = "server"
    fix = "remove it or replace it with a regular, readable file (or set AllowOverride None)"

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        if ctx.kind != "server":
            return
        for node in ctx.nodes:
            if getattr(node, "lname", "") != "accessfilename":
                continue
            for name in getattr(node, "args", ()):
                if name in DIRECTORY_NAMES or name.endswith("/"):
                    yield self.finding(node, f"AccessFileName {name} names a directory in "
                                             "every directory: Apache answers 403 wherever "
                                             "overrides are allowed (not a regular file)")


def problem_findings(problems: Iterable[AccessCheck], env: Environment,
                     enabled: bool = True) -> list[Finding]:
    """A finding for each access file the docroot walk did not read (see the module
    docstring); under AllowOverride None Apache never opens it: reported as info."""
    if not enabled:
        return []
    out = []
    for check in problems:
        directory = check.path.rsplit("/", 1)[0] or "/"
        ignored = env.overrides_for(directory).none
        severity = Severity.error
        message = check.message()
        if check.state in (AccessState.OUTSIDE_ROOT, AccessState.SPECIAL):
            severity = Severity.warning
        if ignored:
            severity = Severity.info
            message = (f"{message} — but AllowOverride None is in force here, so Apache never "
                       "opens it")
        out.append(Finding(AccessFileNotRead.code, message, check.path, 0, 0, severity,
                           AccessFileNotRead.fix))
    return out

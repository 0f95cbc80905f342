"""How Apache turns the paths written in a configuration into absolute paths — two rules,
and the difference between them is a classic trap.

* ``ap_server_root_relative`` (DocumentRoot, Include, ErrorLog, TypesConfig …): a relative
  path is taken from ServerRoot.
* ``dirsection`` (server/core.c) merges a non-regex ``<Directory>`` path with
  ``apr_filepath_merge(…, NULL, path, …)``: no root, so a relative path is taken from the
  process's working directory — ``/`` once Apache daemonises (``apr_proc_detach`` does
  ``chdir("/")`` before the configuration is read for good) — *not* from ServerRoot.  ``..``
  above ``/`` stays ``/``, and the section's path gets a trailing ``/``.

Verified on a daemonised Apache 2.4 (tests/convert/test_relative_directory_apache.py,
tests/lint/rules/test_ctx008.py); lint rule CTX008 reports relative ``<Directory>`` paths.
"""

from __future__ import annotations

import posixpath

# The working directory of a daemonised Apache when it reads its configuration.
APACHE_WORKING_DIRECTORY = "/"


def server_root_relative(path: str, server_root: str) -> str:
    """``ap_server_root_relative``, normalised (no trailing ``/`` except for ``/``)."""
    return _normalised(posixpath.join(server_root, path))


def directory_section_path(path: str) -> str:
    """A non-regex ``<Directory>`` path as Apache matches it, with its trailing ``/``."""
    merged = _normalised(posixpath.join(APACHE_WORKING_DIRECTORY, path))
    return merged if merged == "/" else merged + "/"


def _normalised(path: str) -> str:
    merged = posixpath.normpath(path)
    return "/" + merged.lstrip("/") if merged.startswith("//") else merged

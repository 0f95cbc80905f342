"""``confmig convert --to httpd``: fold ``.htaccess`` files into ``<Directory>`` blocks.

* :func:`convert_docroot` — one document root's tree as a fragment to paste;
* :func:`convert_config` — a whole server configuration rewritten (every DocumentRoot tree).

Apache facts this relies on (each verified on Apache 2.4.71, see the tests): a ``<Directory>``
block and an ``.htaccess`` file are the same per-directory mechanism, merged level by level, the
``.htaccess`` after every ``<Directory>`` for its path; mod_rewrite behaves the same in both
(a directory with rewrite directives of its own replaces the parent's rules unless
``RewriteOptions Inherit``; one without any keeps them; ``RewriteEngine`` is inherited; without
``RewriteBase`` the directory's physical path is the prefix in both).
"""

from confmig.convert.httpd.configmode import convert_config, original_text
from confmig.convert.httpd.fragment import Options, convert_docroot

__all__ = ["Options", "convert_config", "convert_docroot", "original_text"]

"""``confmig convert --to httpd``: fold ``.htaccess`` files into ``<Directory>`` blocks.

* :func:`convert_docroot` — one document root's tree as a fragment to paste;
* :func:`convert_config` — a whole server configuration rewritten (every DocumentRoot tree);
* for ``confmig verify`` and the other targets: how the original is read and run
  (:func:`load_server_config`, :func:`original_text`, :func:`config_env`/:func:`assumed_env`,
  :func:`available_modules`), the trees converted (:func:`config_sites`,
  :func:`collect_access_files`) and the config printer (:func:`print_transformed`,
  :func:`resolve_directory`).

Apache facts this relies on (each verified on Apache 2.4.71, see the tests): a ``<Directory>``
block and an ``.htaccess`` file are the same per-directory mechanism, merged level by level, the
``.htaccess`` after every ``<Directory>`` for its path; mod_rewrite behaves the same in both
(a directory with rewrite directives of its own replaces the parent's rules unless
``RewriteOptions Inherit``; one without any keeps them; ``RewriteEngine`` is inherited; without
``RewriteBase`` the directory's physical path is the prefix in both).
"""

from confmig.convert.httpd.check import available_modules
from confmig.convert.httpd.configmode import ConfigSite, config_sites, convert_config, original_text
from confmig.convert.httpd.edit import print_transformed
from confmig.convert.httpd.env import Env, assumed_env, config_env
from confmig.convert.httpd.fragment import Options, convert_docroot, load_server_config
from confmig.convert.httpd.layout import resolve_directory
from confmig.convert.httpd.tree import collect as collect_access_files

# What verify and the other targets use of this converter; the modules above are its inside.
__all__ = ["ConfigSite", "Env", "Options", "assumed_env", "available_modules",
           "collect_access_files", "config_env", "config_sites", "convert_config",
           "convert_docroot", "load_server_config", "original_text", "print_transformed",
           "resolve_directory"]

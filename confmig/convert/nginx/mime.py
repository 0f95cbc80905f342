"""Content types: nginx's ``mime.types`` with Apache's differences for the site's files,
``types { }`` blocks, and ``AddCharset`` as a type with its charset (``"text/plain;
charset=utf-8" bar;``)."""

from __future__ import annotations

import os
from pathlib import Path

from confmig.convert.nginx.rewrite import q
from confmig.model.merge import ExtInfo
from confmig.model.mime import find_ct
from confmig.model.plan import Settings, SitePlan, Source

NGINX_MIME_TYPES = "/etc/nginx/mime.types"
MAX_TREE_FILES = 5000
#: The types nginx's ``charset`` adds its charset to here: its own ``charset_types`` and the
#: ``text/plain`` the server adds (:meth:`Renderer._server_lines`).
CHARSET_TYPES = frozenset({"text/html", "text/xml", "text/plain", "text/vnd.wap.wml",
                           "application/javascript", "application/rss+xml"})


def read_nginx_types(path: str) -> dict[str, str]:
    """nginx's ``mime.types``: extension → type (empty when the file is absent)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    out: dict[str, str] = {}
    inside = text.split("{", 1)[-1].rsplit("}", 1)[0]
    for statement in inside.split(";"):
        words = statement.split()
        for ext in words[1:]:
            out[ext.lower()] = words[0]
    return out


class TypeTable:
    """What the server level gives each extension, and the site's own extensions."""

    def __init__(self, plan: SitePlan, mime_types: str, notes: list[tuple[Source, str, str]],
                 php_scripts: bool = False) -> None:
        self.plan = plan
        self.nginx_types = read_nginx_types(mime_types)
        self.tree_exts: set[str] = set()  # the last extensions of the site's files
        #: the site's files with more than one extension (directory, name)
        self.multi_ext_files: list[tuple[str, str]] = []
        self.overrides = self._overrides(notes)
        self._note_multi_ext(notes, php_scripts)

    def block(self, extra: list[tuple[str, str]]) -> list[str]:
        """A complete ``types { }``: nginx's mime.types with Apache's differences and
        *extra* (AddType) applied — a ``types`` block replaces the inherited map, and
        mime.types cannot be included inside one (it is a ``types`` block itself)."""
        entries = dict(self.nginx_types)
        entries.update(self.overrides)
        for ext, mime in extra:
            entries[ext.lower().lstrip(".")] = mime
        by_type: dict[str, list[str]] = {}
        for ext, mime in sorted(entries.items()):
            by_type.setdefault(mime, []).append(ext)
        lines = ["types {"]
        for mime in sorted(by_type):
            name = q(mime) if any(c in mime for c in " ;\"'{}") else mime
            lines.append(f"    {name} {' '.join(by_type[mime])};")
        lines.append("}")
        return lines

    def server_type(self, ext: str) -> str | None:
        """The type the server level gives extension *ext*."""
        ext = ext.lower().lstrip(".")
        return self.overrides.get(ext, self.nginx_types.get(ext))

    def _overrides(self, notes: list[tuple[Source, str, str]]) -> dict[str, str]:
        """Extensions of the site's files whose type differs between Apache's TypesConfig
        and nginx's mime.types (only the last extension counts for nginx)."""
        nginx_types = self.nginx_types
        apache = self.plan.types_config
        out: dict[str, str] = {}
        count = 0
        for current, dirs, files in os.walk(self.plan.document_root):
            dirs.sort()
            for name in sorted(files):
                count += 1
                if count > MAX_TREE_FILES:
                    return out
                if "." not in name.lstrip("."):
                    continue
                ext = name.rsplit(".", 1)[1].lower()
                self.tree_exts.add(ext)
                if "." in name.lstrip(".").split(".", 1)[1]:
                    self.multi_ext_files.append((current, name))
                wanted = apache.get(ext)
                if wanted is None:
                    if ext in nginx_types:
                        notes.append((Source(os.path.join(current, name), 0),
                                      f"Apache knows no type for .{ext}; nginx sends "
                                      f"{nginx_types[ext]}", current))
                    continue
                if nginx_types.get(ext) != wanted:
                    out[ext] = wanted
        return out

    def _note_multi_ext(self, notes: list[tuple[Source, str, str]], php_scripts: bool) -> None:
        """Announce the files whose Content-Type Apache takes from an extension before the
        last one (``x.sql.php``: ``.sql``'s type, ``.php`` having none): mod_mime reads every
        extension (the model's :func:`find_ct`), nginx's ``types`` only the last.  With
        *php_scripts* (``--php-fpm``) a ``.php`` file is a script: its type is PHP's."""
        for directory, name in self.multi_ext_files:
            if php_scripts and name.lower().endswith(".php"):
                continue
            scope = self.plan.scope_for(directory)
            settings = scope.settings if scope is not None else None
            if settings is not None and settings.force_type:
                continue
            mappings = {ext.lower().lstrip("."): ExtInfo(type=mime)
                        for ext, mime in (settings.types if settings else ())}
            apache = find_ct(name, self.plan.types_config, mappings)[0]
            last = name.rsplit(".", 1)[1].lower()
            nginx = dict(mappings).get(last)
            nginx_type = nginx.type if nginx is not None else self.server_type(last)
            if _base_type(apache) != _base_type(nginx_type):
                notes.append((Source(os.path.join(directory, name), 0),
                              f"Apache sends {apache or 'no Content-Type'} for {name} (every "
                              "extension counts, the last with a type wins); nginx types a "
                              f"file by its last extension only ({nginx_type or 'none'})",
                              directory))

    def sent_types(self, settings: Settings) -> list[str]:
        """The Content-Types a location with *settings* sends for the site's files (their
        last extensions), also with the charset nginx's ``charset`` may add, and none: the
        common keys of the maps on ``$sent_http_content_type`` (for their exact rows)."""
        if settings.force_type:
            types = {settings.force_type}
        else:
            own = {ext.lower().lstrip("."): mime for ext, mime in
                   [*settings.types, *self.charset_entries(settings)]}
            types = {own.get(ext) or self.server_type(ext) or "" for ext in self.tree_exts}
        types.add("")
        if settings.default_charset:
            types |= {f"{mime}; charset={settings.default_charset}" for mime in types
                      if mime in CHARSET_TYPES}
        return sorted(types)

    def apache_type(self, settings: Settings, ext: str) -> str | None:
        return dict(settings.types).get(ext, self.plan.types_config.get(ext))

    def charset_entries(self, settings: Settings) -> list[tuple[str, str]]:
        """``AddCharset`` per extension, exactly: the ``types { }`` entries that give each
        extension the Content-Type Apache sends, charset included (the plan's
        ``charset_types``).  nginx's ``charset`` module then leaves such a type alone — it
        only adds a charset to a type listed in ``charset_types`` as it is, parameters and
        all — so ``AddDefaultCharset`` (nginx's ``charset``) still applies to the rest, as
        in Apache."""
        if settings.force_type:
            return []  # ForceType replaces the type, AddCharset's charset with it
        return list(settings.charset_types)


def _base_type(ctype: str | None) -> str:
    """A Content-Type without its parameters (a charset is compared where it is set)."""
    return (ctype or "").split(";", 1)[0].strip().lower()

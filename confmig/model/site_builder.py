"""Building a :class:`~confmig.model.site.Site` from a loaded server configuration: the main
server's and each ``<VirtualHost>``'s own directives, their ``<Directory>`` sections sorted as
``core_reorder_directories`` sorts them (non-regex by number of ``/``, then regex, config order
within), ``<Location>`` sections, server-level settings (ServerName, DocumentRoot, Alias…), and
each vhost merged onto the main server (``merge_server_configs``; mod_rewrite's own rules for
the server context: :func:`confmig.model.rewrite.merge_server`)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from confmig.apache.paths import directory_section_path
from confmig.load import LoadedConfig
from confmig.model.mapping import AliasEntry, RegexError, StatCache, compile_config_regex
from confmig.model.merge import SectionBuilder, merge_configs
from confmig.model.merge.checks import registered_methods
from confmig.model.protocol import DEFAULT_LIMITS, ProtocolLimits
from confmig.model.rewrite import RewriteConfig, server_dir_defaults
from confmig.model.rewrite import merge_server as merge_rewrite_server
from confmig.model.rewrite.uri import atoi
from confmig.model.sections import (
    ConfigSection,
    SectionCollector,
    finish_section,
    section_label,
)
from confmig.model.site import DEFAULT_DOCUMENT_ROOT, Site, VirtualServer
from confmig.model.wildcard import count_dirs, fnmatch_regex, is_fnmatch
from confmig.syntax import Directive, Node, Section

DEFAULT_TYPES_CONFIG = "/etc/mime.types"


class _SiteBuilder:
    """One pass over a loaded configuration, collecting its errors."""

    def __init__(self, loaded: LoadedConfig, filesystem: StatCache | None) -> None:
        self.loaded = loaded
        self.filesystem = filesystem
        self.state = loaded.state
        self.server_root = str(self.state.server_root)
        self.errors: list[tuple[Node, str]] = []
        self.types_config: str | None = None

    def has_module(self, name: str) -> bool:
        return self.state.modules.has_module(name)

    def build(self) -> Site:
        main = self.server(self.loaded.nodes, None)
        vhosts = [self.server(node.children, node, main, self.main_port_before(index))
                  for index, node in enumerate(self.loaded.nodes)
                  if isinstance(node, Section) and node.lname == "virtualhost"]
        types = load_types(self.types_config or DEFAULT_TYPES_CONFIG, self.server_root)
        site = Site(main, vhosts, self.state, types, self.errors, self.filesystem)
        site.access_files.methods = registered_methods(self.loaded.nodes, self.has_module)
        return site

    def main_port_before(self, index: int) -> int:
        """The main server's ``s->port`` when the ``<VirtualHost>`` at *index* is read
        (``ap_init_virtual_host`` copies it): the port of the last ServerName before it."""
        port = 0
        for node in self.loaded.nodes[:index]:
            if isinstance(node, Directive) and node.lname == "servername" and node.args:
                port = parse_server_name(node.args[0])[1]
        return port

    def server(self, nodes: Sequence[Node], vhost: Section | None,
               main: VirtualServer | None = None, main_port: int = 0) -> VirtualServer:
        """The main server (*main* None) or a ``<VirtualHost>`` merged onto *main*
        (*main_port*: the main server's port when the vhost was read)."""
        builder = SectionBuilder("server", None, loaded_modules=self.has_module)
        directories: list[ConfigSection] = []
        locations: list[ConfigSection] = []
        server_dirs: list[Directive] = []
        collector = SectionCollector(builder, "server", None, [])
        for node in nodes:
            if isinstance(node, Directive):
                server_dirs.append(node)
                collector.feed([node])
                continue
            if not isinstance(node, Section) or node.lname == "virtualhost":
                continue
            if node.lname in ("directory", "directorymatch"):
                section = self.directory(node)
                if section is not None:
                    directories.append(section)
            elif node.lname in ("location", "locationmatch"):
                section = self.location(node)
                if section is not None:
                    locations.append(section)
            else:
                collector.section(node, None)
        own = finish_section("server", section_label(vhost) if vhost else "server config",
                             vhost, builder, [], file=self.loaded.main, line=0)
        self.errors.extend(own.errors)
        own_rw = own.config.get("rewrite") or RewriteConfig(context="server")
        settings = self.settings(server_dirs)
        settings["protocol"] = protocol_limits(server_dirs) if main is None else main.protocol
        if main is None:
            rewrite, dir_root = own_rw, server_dir_defaults(own_rw, own_rw)
            defaults_config = dict(own.config)
            inherited: dict[str, Any] = {"name": "localhost",
                                         "document_root": DEFAULT_DOCUMENT_ROOT}
        else:
            main_rw = main.rewrite or RewriteConfig(context="server")
            rewrite = merge_rewrite_server(main_rw, own_rw)
            dir_root = server_dir_defaults(main_rw, own_rw)
            defaults_config = merge_configs(main.defaults.config, own.config)
            directories = [*main.directories, *directories]
            locations = [*main.locations, *locations]
            settings["aliases_list"] = [*settings["aliases_list"], *main.aliases_list]
            inherited = {"name": main.name, "document_root": main.document_root,
                         "access_names": main.access_names,
                         "encoded_slashes": main.encoded_slashes,
                         "merge_slashes": main.merge_slashes,
                         "recursion_limit": main.recursion_limit,
                         "server_admin": main.server_admin}
        redirects = [*builder.server_redirects, *(main.redirects if main else ())]
        defaults_config["rewrite"] = dir_root
        defaults = ConfigSection("server", own.label, own.file, own.line,
                                 config=defaults_config, directives=own.directives,
                                 inherited=main.defaults.applied if main else ())
        for key, value in inherited.items():
            if settings.get(key) is None:
                settings[key] = value
        settings = {k: v for k, v in settings.items() if v is not None}
        addresses: tuple[tuple[str, str], ...] = ()
        label = "main server"
        if vhost is not None:
            addresses = tuple(parse_address(a) for a in vhost.args)
            label = f"{section_label(vhost)} ({vhost.file}:{vhost.line})"
            if "name_port" not in settings:
                # ap_parse_vhost_addrs: the first address's port overrides the inherited one.
                first = addresses[0][1] if addresses else "*"
                settings["name_port"] = atoi(first) if first.isdigit() else main_port
        return VirtualServer(addresses=addresses, label=label, defaults=defaults,
                             directories=sort_directories(directories), locations=locations,
                             redirects=redirects, rewrite=rewrite,
                             server_directives=server_dirs, **settings)

    def settings(self, directives: list[Directive]) -> dict[str, Any]:
        """The server-level settings of one server's own directives (None: not set)."""
        out: dict[str, Any] = {"name": None, "aliases": [], "document_root": None,
                               "aliases_list": [], "access_names": None,
                               "encoded_slashes": None, "merge_slashes": None,
                               "recursion_limit": None, "name_port": None,
                               "server_admin": None}
        for d in directives:
            low, args = d.lname, d.args
            if low == "servername" and args:
                out["name"], out["name_port"] = parse_server_name(args[0])
            elif low == "serveradmin" and args:
                out["server_admin"] = args[0]
            elif low == "serveralias":
                out["aliases"].extend(args)  # (a tuple rebuilt a line was quadratic)
            elif low == "documentroot" and args:
                root = args[0]
                if not root.startswith("/"):
                    root = os.path.join(self.server_root, root)
                out["document_root"] = root.rstrip("/") or "/"
            elif low in ("alias", "scriptalias", "aliasmatch", "scriptaliasmatch") \
                    and len(args) == 2:
                entry = self.alias(d)
                if entry is not None:
                    out["aliases_list"].append(entry)
            elif low == "accessfilename" and args:
                out["access_names"] = tuple(args)
            elif low == "allowencodedslashes" and args:
                value = args[0].lower()
                out["encoded_slashes"] = value if value in ("on", "nodecode") else "off"
            elif low == "mergeslashes" and args:
                out["merge_slashes"] = args[0].lower() != "off"
            elif low == "limitinternalrecursion" and args:
                out["recursion_limit"] = atoi(args[0]) or 10
            elif low == "typesconfig" and args:
                self.types_config = args[0]
        out["aliases"] = tuple(out["aliases"])
        return out

    def alias(self, d: Directive) -> AliasEntry | None:
        fake, real = d.args
        regex = None
        if d.lname.endswith("match"):
            try:
                regex = compile_config_regex(fake)
            except RegexError:
                self.errors.append((d, "Regular expression could not be compiled."))
                return None
        handler = "cgi-script" if d.lname.startswith("script") else None
        return AliasEntry("alias", fake, real, regex, 0, d, handler)

    def _pattern(self, node: Section, match_name: str) -> tuple[bool, str] | None:
        """(is it a regex, the pattern) of ``<X pattern>``, ``<X ~ regex>`` or
        ``<XMatch regex>``; None, with Apache's error recorded, when it is missing."""
        args = list(node.args)
        is_regex = node.lname == match_name
        if args and args[0] == "~":
            is_regex, args = True, args[1:]
        if not args:
            self.errors.append((node, f"<{node.name}> directive requires additional "
                                      "arguments"))
            return None
        return is_regex, args[0]

    def directory(self, node: Section) -> ConfigSection | None:
        found = self._pattern(node, "directorymatch")
        if found is None:
            return None
        is_regex, pattern = found
        # mod_rewrite's per-directory prefix is the section's path: canonical for <Directory>,
        # the regex itself for <DirectoryMatch> (as in Apache).
        path = pattern if is_regex else directory_section_path(pattern)  # not ServerRoot
        b = SectionBuilder("directory", path, loaded_modules=self.has_module)
        SectionCollector(b, "directory", None, []).feed(node.children)
        self.errors.extend(b.errors)
        if is_regex:
            try:
                regex = compile_config_regex(pattern)
            except RegexError:
                self.errors.append((node, "Regex could not be compiled"))
                return None
            return finish_section("directorymatch", section_label(node), node, b, [],
                                  match=pattern, regex=regex, components=count_dirs(pattern))
        fn = fnmatch_regex(path) if is_fnmatch(path) else None
        return finish_section("directory", section_label(node), node, b, [], match=path,
                              fnmatch=fn, components=0 if path == "/" else count_dirs(path),
                              relative_path="" if pattern.startswith("/") else pattern)

    def location(self, node: Section) -> ConfigSection | None:
        found = self._pattern(node, "locationmatch")
        if found is None:
            return None
        is_regex, pattern = found
        b = SectionBuilder("location", pattern, loaded_modules=self.has_module)
        SectionCollector(b, "location", None, []).feed(node.children)
        self.errors.extend(b.errors)
        regex = fn = None
        try:
            if is_regex:
                regex = compile_config_regex(pattern)
            elif is_fnmatch(pattern):
                fn = fnmatch_regex(pattern)
        except RegexError:
            self.errors.append((node, "Regex could not be compiled"))
            return None
        return finish_section("locationmatch" if is_regex else "location",
                              section_label(node), node, b, [], match=pattern, regex=regex,
                              fnmatch=fn)


def parse_server_name(text: str) -> tuple[str, int]:
    """``server_hostname_port``: ``[scheme://]name[:port]`` → (name, port; 0 without one)."""
    name = text.split("://", 1)[-1]
    if name.count(":") == 1:
        name, _, port = name.partition(":")
        return name, atoi(port)
    return name, 0


def sort_directories(sections: Iterable[ConfigSection]) -> list[ConfigSection]:
    """``core_reorder_directories``: non-regex before regex, then by number of components
    (``/`` is 0), config order within (a stable sort)."""
    return sorted(sections, key=lambda s: (s.regex is not None, s.components))


def parse_address(text: str) -> tuple[str, str]:
    """``<VirtualHost addr[:port]>`` → (address, port or ``*``)."""
    if text.startswith("["):
        end = text.find("]")
        host, rest = text[1:end], text[end + 1:]
        return host, rest[1:] if rest.startswith(":") else "*"
    host, sep, port = text.rpartition(":")
    if not sep:
        return text, "*"
    return host, port


def load_types(path: str, server_root: str) -> dict[str, str]:
    """``TypesConfig``: extension (lower-cased) → type, later lines overriding earlier ones."""
    full = path if path.startswith("/") else os.path.join(server_root, path)
    types: dict[str, str] = {}
    try:
        text = Path(full).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return types
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        words = line.split()
        if len(words) < 2:
            continue
        mime = words[0].lower()
        for ext in words[1:]:
            types[ext.lower()] = mime
    return types


def protocol_limits(directives: Sequence[Directive]) -> ProtocolLimits:
    """LimitRequestLine, LimitRequestFieldSize, LimitRequestFields and HttpProtocolOptions
    among a server's directives (the last of each wins; Apache's defaults otherwise)."""
    found: dict[str, Any] = {}
    for d in directives:
        low, args = d.lname, d.args
        if low in _LIMIT_NAMES and args and atoi(args[0]) >= 0:
            found[_LIMIT_NAMES[low]] = atoi(args[0])
        elif low == "httpprotocoloptions":
            for arg in args:
                if arg.lower() in ("strict", "unsafe"):
                    found["strict"] = arg.lower() == "strict"
    return ProtocolLimits(**found) if found else DEFAULT_LIMITS


_LIMIT_NAMES = {"limitrequestline": "request_line", "limitrequestfieldsize": "field_size",
                "limitrequestfields": "fields"}


def build_site(loaded: LoadedConfig, filesystem: StatCache | None = None) -> Site:
    """Turn a loaded server configuration into a :class:`Site` whose requests see
    ``filesystem`` (default: the disk, through a :class:`StatCache`)."""
    return _SiteBuilder(loaded, filesystem).build()


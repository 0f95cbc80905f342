"""The target-neutral site plan: for each URL space of a document root, what Apache does there.

A :class:`SitePlan` is computed by the model (:mod:`confmig.model.plan.build`) and rendered by
thin per-target emitters (``confmig.convert.nginx``, later Flask).  Each :class:`Scope` is a
directory that has its own configuration (an access file or a ``<Directory>``) and everything
below it that has none; its :class:`Settings` are what is *in force* there after Apache's merge
(inheritance already applied), so an emitter never merges anything itself.  ``<Files>`` and
``<FilesMatch>`` sections in force are :class:`FilesScope` entries with their own merged
settings.  What the plan cannot express is a :class:`PlanNote` with its source ``file:line``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from confmig.model.merge import HeaderEntry
from confmig.model.rewrite.maps import RewriteMap
from confmig.model.rewrite.rules import RewriteRule

AccessDecision = Literal["granted", "denied", "conditional", "by-address"]

#: What a note is about, in the names ``confmig verify`` compares (``"status"``,
#: ``"location"``, ``"body"``, ``"expires"``, lower-case header names).  Another answer than
#: Apache's changes these: its status, where it sends, its page and the page's type.
ANSWER_FIELDS = frozenset({"status", "location", "body", "content-type"})


@dataclass(frozen=True)
class Source:
    """Where a setting comes from."""

    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass(frozen=True)
class PlanNote:
    """Something in force that the plan (or an emitter) cannot express faithfully."""

    source: Source
    directive: str
    reason: str
    scope: str  # absolute directory whose requests may be affected
    changes_behaviour: bool = True
    #: a SetHandler/AddHandler/RemoveHandler line, which the settings carry: an emitter
    #: that runs handlers announces what it leaves out itself and drops this note
    handler: bool = False
    #: the fields of an answer it may change (None: any) — confmig.convert.result.Note
    fields: frozenset[str] | None = None
    #: the status a target answers instead (a denial's 403) — confmig.convert.result.Note
    answer: int = 0
    #: the settings carry the line exactly (``FileETag``: Settings.etag): an emitter that
    #: expresses them drops this note, one that does not announces it as it stands
    carried: bool = False


@dataclass(frozen=True)
class LoginEntry:
    """One user of a password file, as Apache reads it."""

    user: str
    scheme: str  # confmig.model.passwords.scheme of the stored hash
    marker: str  # a ``{…}`` prefix of the stored hash (``{SHA}``, ``{PLAIN}``…), else ""
    #: white space Apache trimmed off the file's line: "", "leading", "trailing" or "both"
    trimmed: str


@dataclass(frozen=True)
class BasicLogin:
    """``AuthType Basic`` checked against one ``AuthUserFile`` (the ``file`` provider) with
    ``Require valid-user``, ``Require user …`` or ``Require group …`` alone: what a target
    needs to ask for the same login.  ``users`` None: any user of the file."""

    realm: str
    user_file: str  # absolute
    users: tuple[str, ...] | None
    entries: tuple[LoginEntry, ...]
    joined: bool  # a backslash-newline joins lines of the file (Apache reads them as one)
    source: Source | None = None
    #: ``Require group`` lines: the groups named (their members are in ``users``, read from
    #: the ``AuthGroupFile`` when the plan was made)
    groups: tuple[str, ...] = ()


@dataclass(frozen=True)
class Access:
    """The access decision for a scope: ``status`` is what Apache answers when it denies
    (403, 401, 500); ``conditional`` when it depends on the client, method, environment or
    credentials (an emitter must then deny and announce)."""

    decision: AccessDecision
    status: int = 0
    source: Source | None = None
    why: str = ""
    #: "by-address": granted exactly to clients in these networks (CIDR), else ``status``
    networks: tuple[str, ...] = ()
    #: denied with 401: the login that grants it, when it is a plain Basic one
    login: BasicLogin | None = None


@dataclass(frozen=True)
class RewritePlan:
    """The per-directory ruleset in force (after ``RewriteOptions Inherit*`` and "the deepest
    directory with rewrite directives wins").

    ``strip`` is the URL prefix Apache removes before matching (the directory of the config
    the rules run with, as a URL-path); ``base`` the ``RewriteBase`` (None: unset);
    ``relative_to`` is what a relative substitution is prefixed with once the pass is over
    (``base`` when set, else the directory as a URL-path)."""

    directory: str
    strip: str
    base: str | None
    relative_to: str
    rules: tuple[RewriteRule, ...]
    options: frozenset[str]
    source: Source | None = None
    #: the server's RewriteMaps, which the rules look up with ``${name:key|default}``
    maps: tuple[RewriteMap, ...] = ()


@dataclass(frozen=True)
class Redirect:
    """A mod_alias ``Redirect``/``RedirectMatch`` in force (tried in this order)."""

    regex: bool
    pattern: str  # URL-path prefix, or the regex
    status: int
    target: str | None  # None for 410 Gone
    source: Source


@dataclass(frozen=True)
class EnvCondition:
    """A ``Header … env=VAR`` condition stated on the request alone: VAR is set exactly when
    the request header ``header`` matches ``pattern`` (``SetEnvIf``: Apache's regex,
    searched; a header that is not there is matched as the empty string)."""

    header: str
    pattern: str
    nocase: bool
    present: bool  # env=VAR (the header is sent when it matches); env=!VAR: when it does not
    source: Source  # the SetEnvIf line


@dataclass(frozen=True)
class Header:
    """One mod_headers entry in force, in Apache's order (``always`` first, then
    ``onsuccess`` — as ``err_headers_out`` precedes ``headers_out``)."""

    entry: HeaderEntry
    source: Source
    #: The value Apache sends, as a literal: mod_headers' escapes (``\\n``, ``\\t``…)
    #: resolved and a folded line undone as ``check_headers`` does.  None when it depends on
    #: the request (``%{VAR}e``, ``expr=``) or the action sends no value of its own.
    value: str | None = None
    #: Apache's complaint (``check_headers``: a name that is not a token, a control character
    #: in the value): a response that would carry this header is a 500 instead.
    refused: str = ""
    #: ``env=``: the condition on the request when the model can state it (None: none, or
    #: the variable depends on more than one request header)
    env_condition: EnvCondition | None = None

    @property
    def always(self) -> bool:
        return self.entry.always


@dataclass(frozen=True)
class Expires:
    """mod_expires in force: codes such as ``A3600`` (access plus) or ``M60`` (modification)."""

    default: str | None
    by_type: tuple[tuple[str, str], ...]
    source: Source | None


@dataclass(frozen=True)
class Settings:
    """What Apache does for requests in a URL space (everything already merged)."""

    access: Access
    rewrite: RewritePlan | None = None
    redirects: tuple[Redirect, ...] = ()
    error_documents: tuple[tuple[int, str, Source], ...] = ()
    index: tuple[str, ...] = ()
    index_source: Source | None = None
    indexes: bool = False  # Options Indexes
    multiviews: bool = False
    follow_symlinks: bool = True
    #: Options SymLinksIfOwnerMatch (matters when FollowSymLinks is off): a link is followed
    #: when it and its target have one owner; mod_rewrite's per-directory rules need either
    symlinks_if_owner: bool = False
    slash: bool = True  # DirectorySlash
    fallback: str | None = None  # FallbackResource
    headers: tuple[Header, ...] = ()
    force_type: str | None = None
    handler: str | None = None
    default_charset: str | None = None  # AddDefaultCharset in force (None: off)
    types: tuple[tuple[str, str], ...] = ()  # AddType: (extension, type), sorted
    charsets: tuple[tuple[str, str], ...] = ()  # AddCharset
    #: (extension, Content-Type) for each AddCharset extension: what Apache sends for a
    #: file whose only extension it is, charset included (the model's mod_mime)
    charset_types: tuple[tuple[str, str], ...] = ()
    handlers: tuple[tuple[str, str], ...] = ()  # AddHandler
    #: mod_deflate through mod_filter's ``AddOutputFilterByType DEFLATE``: the media types
    #: (lower case) whose 200 answers Apache compresses for a client that accepts gzip
    deflate_types: tuple[str, ...] = ()
    deflate_source: Source | None = None
    expires: Expires | None = None
    #: ``FileETag``: whether a file Apache sends gets an ETag (False: ``FileETag None`` in
    #: force); ``etag_source`` the FileETag line that decides it (None: Apache's default)
    etag: bool = True
    etag_source: Source | None = None
    #: ``handler`` is a name no loaded module provides (Drupal's
    #: ``Drupal_Security_Do_Not_Remove_See_SA_2006_006``): Apache's default handler answers,
    #: as for ``SetHandler default-handler`` — the file as it is, a directory without an
    #: index file 404 (the model's :mod:`confmig.model.handler`; checked on real Apache)
    handler_unknown: bool = False


@dataclass(frozen=True)
class FilesScope:
    """A ``<Files>``/``<FilesMatch>`` section in force in a scope, with the settings a file
    it matches gets (the scope's merged with the section's).  ``basename_regex`` is a PCRE
    for the last path component (wildcards translated)."""

    label: str
    basename_regex: str
    source: Source
    settings: Settings
    only_access: bool  # the section sets access control and nothing else
    #: the section has a ``SetHandler`` of its own: for a file it matches, the handler is
    #: ``settings.handler`` (None: ``SetHandler none``, mod_mime's AddHandler decides), not
    #: an earlier ``<Files>`` section's (the server's PHP one: sections merge in order)
    sets_handler: bool = False
    #: the section also applies to a request for the directory itself (Apache's file walk
    #: matches it against the empty name after the directory's slash: ``<Files *>``)
    matches_directory: bool = False


@dataclass
class Scope:
    """A directory with configuration of its own, as a URL space (``url`` ends with ``/``)."""

    directory: str
    url: str
    sources: list[Source]
    settings: Settings
    files: list[FilesScope] = field(default_factory=list)


@dataclass(frozen=True)
class SymLink:
    """A symlink in the tree: Apache's walk answers 403 for it and every path below it
    unless :meth:`followed`."""

    path: str  # absolute
    target_missing: bool
    same_owner: bool  # the link's owner (lstat) owns what it leads to

    def followed(self, settings: Settings) -> bool:
        """``resolve_symlink`` (confmig.model.walk): a link to nothing never; else with
        FollowSymLinks, or SymLinksIfOwnerMatch and one owner."""
        if self.target_missing:
            return False
        return settings.follow_symlinks or (settings.symlinks_if_owner and self.same_owner)


@dataclass
class SitePlan:
    """One site (a document root served by one server)."""

    document_root: str
    server_name: str
    server_aliases: tuple[str, ...]
    scopes: list[Scope]
    types_config: dict[str, str]  # Apache's TypesConfig: extension → type
    notes: list[PlanNote] = field(default_factory=list)
    label: str = "main server"  # the <VirtualHost> it came from
    #: the symlinks under the document root (when it was planned)
    links: tuple[SymLink, ...] = ()

    def scope_for(self, directory: str) -> Scope | None:
        """The deepest scope holding *directory* (absolute)."""
        best = None
        for scope in self.scopes:
            root = scope.directory.rstrip("/")
            inside = directory == root or directory.startswith(root + "/")
            if inside and (best is None or len(scope.directory) > len(best.directory)):
                best = scope
        return best

"""One ``request_rec`` as the model carries it through the phases: a request, an internal
redirect of it, or a sub-request (DirectoryIndex candidates, look-ahead)."""

from __future__ import annotations

from confmig.model.merge import DirConfig
from confmig.model.sections import ConfigSection

DIR_MAGIC_TYPE = "httpd/unix-directory"
REDIRECT_HANDLER = "redirect-handler"


class Round:
    """One request_rec: what processing left.

    A plain class with class-level defaults rather than a dataclass: one is made per round and
    per sub-request, and an instance then only stores what a phase sets (a few µs a request).
    """

    uri: str = ""
    query: str | None = None
    status: int = 0  # 0: OK so far; else the status the request dies with (ap_die)
    # r->status left at a 3xx by an [R] rule that a later local rewrite overrode (or inherited
    # through an internal redirect): the file is then served with it, and an error in a
    # round reached by an internal redirect is then a "recursive error" (see Evaluation.run).
    carried: int = 0
    # The carried status of the first request of the internal-redirect chain that still
    # carried one when this round began (0: none): what a recursive error reports.
    inherited: int = 0
    internal: bool = False  # reached by an internal redirect (ap_internal_redirect)
    location: str | None = None
    filename: str | None = None
    path_info: str = ""
    kind: str | None = None  # "file", "dir", None (nothing there)
    content_type: str | None = None
    handler: str | None = None
    redirect_to: str | None = None  # the handler's internal redirect (URL-path?query)
    redirect_pending: str | None = None  # a per-directory rewrite's, done by the handler
    served: bool = False
    listing: bool = False
    # mod_rewrite's [T]/[H] as its r->notes keep them (the last rule's wins), applied by
    # hook_mimetype at the end of the fixups (rewriting.apply_forced_type)
    rewrite_mime: str | None = None
    rewrite_handler: str | None = None
    context: tuple[str, str] | None = None  # Alias (prefix, directory) for mod_rewrite
    # r->user and r->ap_auth_type once a login was checked (REMOTE_USER, AUTH_TYPE)
    user: str | None = None
    auth_type: str | None = None
    # r->main->uri of an expression's -U/-A sub-request (op_url_subr's recursion guard)
    main_uri: str | None = None

    def __init__(self, config: DirConfig, sections: list[ConfigSection],
                 env: dict[str, str] | None = None, *, uri: str = "",
                 query: str | None = None, status: int = 0) -> None:
        self.config = config
        self.sections = sections
        self.env = {} if env is None else env
        self.vary: list[str] = []  # mod_rewrite's Vary (headers_out)
        if uri:
            self.uri = uri
        if query is not None:
            self.query = query
        if status:
            self.status = status

"""A request with a character outside ASCII (``GET /café`` in a --requests file, or a probe
generated from a pattern written in UTF-8) reaches Apache as the bytes a browser and curl
send: the path percent-encoded UTF-8, a header value raw UTF-8.  It used to die in
``http.client`` with UnicodeEncodeError and count as "neither server answered"."""

from __future__ import annotations

import pytest

from confmig.servers import ApacheServer, http_get
from tests.conftest import SiteMaker

pytestmark = pytest.mark.apache

HTACCESS = ("RewriteEngine On\n"
            "RewriteRule ^café$ - [F]\n"
            "RewriteCond %{HTTP:X-Word} ^naïve€$\n"
            "RewriteRule ^word$ - [G]\n")


def test_non_ascii_path_and_header_reach_apache_as_utf8(apache_binary: object,
                                                        make_site: SiteMaker) -> None:
    root = make_site({".htaccess": HTACCESS, "word": "w\n", "café": "c\n"})
    with ApacheServer(root, binary=apache_binary) as srv:  # type: ignore[arg-type]
        assert http_get(srv.base_url, "/café").status == 403
        assert http_get(srv.base_url, "/caf%C3%A9").status == 403
        assert http_get(srv.base_url, "/word", {"X-Word": "naïve€"}).status == 410
        assert http_get(srv.base_url, "/word", {"X-Word": "naive"}).status == 200

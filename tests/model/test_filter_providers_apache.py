"""mod_filter's refusals on real Apache against the model (issue 10: the model answered 200
where Apache answers 500).  Every output filter :mod:`confmig.apache.filters` lists for the
modules loaded here must be a provider Apache accepts (any case), and a name it does not
list one Apache refuses; FilterProtocol and FilterProvider's expression as mod_filter.c
reads them."""

from __future__ import annotations

import pytest

from confmig.apache.filters import CORE_OUTPUT_FILTERS, MODULE_OUTPUT_FILTERS
from confmig.lint.testing import ApacheCases, HtaccessCase
from confmig.servers import ApacheBinary
from tests.model.apache_model import model_statuses

pytestmark = pytest.mark.apache

# Debian's defaults and every module of httpd's that registers an output filter, which Debian
# ships and which loads without further configuration (mod_ssl, mod_http2, mod_proxy_ftp
# and mod_session are left out: they need more than a LoadModule)
MODULES = ["mpm_event", "authz_core", "authz_host", "mime", "dir", "alias", "rewrite",
           "filter", "headers", "expires", "deflate", "brotli", "bucketeer", "buffer",
           "cache", "case_filter", "charset_lite", "data", "dumpio", "include", "logio",
           "ratelimit", "reqtimeout", "sed", "substitute", "xml2enc", "proxy_html"]
LOADED = {"mod_" + m for m in MODULES}

KNOWN = [*CORE_OUTPUT_FILTERS, *(name for module, names in MODULE_OUTPUT_FILTERS.items()
                                 if module in LOADED for name in names)]
# Connection filters as a content type's filter: Apache takes the line, then drops every
# connection it serves (no status to compare); they are checked as FilterProvider only.
CONNECTION_FILTERS = ("DUMPIO_OUT", "reqtimeout")
BY_TYPE = [name for name in KNOWN if name not in CONNECTION_FILTERS]
EXPR = "\"%{CONTENT_TYPE} = 'text/html'\""
TEXTS = {
    **{f"bytype-{i}": f"AddOutputFilterByType {name} text/x-confmig\n"
       for i, name in enumerate(BY_TYPE)},
    **{f"lower-{i}": f"AddOutputFilterByType {name.lower()} text/x-confmig\n"
       for i, name in enumerate(BY_TYPE)},
    **{f"provider-{i}": f"FilterProvider f {name} {EXPR}\n" for i, name in enumerate(KNOWN)},
    "bytype-bogus": "AddOutputFilterByType BOGUS text/html\n",
    "bytype-second-bogus": "AddOutputFilterByType DEFLATE;BOGUS text/html\n",
    "bytype-empty-parts": "AddOutputFilterByType ;DEFLATE;; text/html\n",
    "bytype-unloaded": "AddOutputFilterByType 'SSL/TLS Filter' text/html\n",
    "bytype-http2-unloaded": "AddOutputFilterByType H2_C2_NET_OUT text/html\n",
    "provider-bogus": f"FilterProvider f BOGUS {EXPR}\n",
    "provider-bad-expr": "FilterProvider f DEFLATE \"%{CONTENT_TYPE} =\"\n",
    "protocol-undeclared": "FilterProtocol f change=yes\n",
    "protocol-declared": "FilterDeclare f\nFilterProtocol f change=yes\n",
    "protocol-by-provider": f"FilterProvider f DEFLATE {EXPR}\nFilterProtocol f change=yes\n",
    "protocol-provider": f"FilterProvider f DEFLATE {EXPR}\n"
                         "FilterProtocol f deflate change=yes\n",
    "protocol-other-provider": f"FilterProvider f DEFLATE {EXPR}\n"
                               "FilterProtocol f INCLUDES change=yes\n",
    "protocol-redeclared": f"FilterProvider f DEFLATE {EXPR}\nFilterDeclare f\n"
                           "FilterProtocol f DEFLATE change=yes\n",
    "protocol-bytype": "AddOutputFilterByType DEFLATE text/html\n"
                       "FilterProtocol BYTYPE:DEFLATE DEFLATE change=yes\n",
    "protocol-in-files": "FilterDeclare f\n<Files index.html>\nFilterProtocol f change=yes\n"
                         "</Files>\n",
    "protocol-bad-word": "FilterDeclare f\nFilterProtocol f bogus=yes\n",
}


def test_filter_lines_answer_as_apache(apache_binary: ApacheBinary) -> None:
    cases = [HtaccessCase(name, text) for name, text in TEXTS.items()]
    with ApacheCases(cases, modules=MODULES) as apache:
        real = {c.name: apache.status(c.name) for c in cases}
        model = dict(zip(real, model_statuses(apache, [f"/{n}/index.html" for n in real]),
                         strict=True))
    listed = [k for k in TEXTS if k.split("-")[-1].isdigit()]
    assert all(real[k] == 200 for k in listed), {k: real[k] for k in listed if real[k] != 200}
    assert real["bytype-bogus"] == 500 and real["protocol-undeclared"] == 500
    differ = {TEXTS[k]: (real[k], model[k]) for k in real if real[k] != model[k]}
    assert differ == {}, differ  # line -> (Apache, model)

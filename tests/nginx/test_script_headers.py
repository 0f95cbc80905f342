"""``Header always unset NAME`` with ``--php-fpm``: Apache's mod_headers takes the header out
of what the script sent (h5bp's ``X-Powered-By``), and nginx must hide it from the FastCGI
answer (``fastcgi_hide_header``); a plain ``Header unset`` leaves a script's header in
place on Apache (mod_proxy_fcgi keeps it in the table only ``always`` works on), and nginx
must leave it too.  Real Apache, nginx and php-fpm.  The difference used to be excused by
an unrelated note of the same directory (here ``SetEnv``, which only scripts read) until a
note excused only the fields it names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify

pytestmark = [pytest.mark.apache]


def test_a_script_header_apache_unsets_is_hidden(apache_binary: object, nginx_binary: object,
                                                 php_fpm_binary: Path) -> None:
    root = make_docroot(prefix="confmig-ngsh-", files={
        "always/.htaccess": "Header always unset X-Powered-By\nSetEnv CONFMIG_FOO bar\n",
        "plain/.htaccess": "Header unset X-Powered-By\nSetEnv CONFMIG_FOO bar\n",
        "always/index.php": "<?php echo 'x';\n", "plain/index.php": "<?php echo 'x';\n",
        "always/a.txt": "a\n"})
    try:
        report = verify(VerifyRequest(target="nginx", docroot=root, php_fpm=True,
                                      max_requests=400, timeout=300))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert report.compared > 0 and report.exit_code == 0, report.summary()
    powered = [r for r in report.differing if any(d.field == "x-powered-by" for d in r.diffs)]
    assert not powered, report.summary()
    text = report.conversion.text
    assert text.count("fastcgi_hide_header") >= 1 and "X-Powered-By" in text

"""RW010 asks the model how mod_rewrite merges a directory's configuration with its parent's
(confmig.model.rewrite.merge, checked against httpd by tests/test_rewrite_apache.py) instead of
deciding inheritance itself.  Its own reading diverged in two ways, both checked here on Apache:

* a child that inherits the parent's ``RewriteOptions Inherit`` (it sets no RewriteOptions of
  its own, so it takes the parent's) keeps the parent's rules: RW010 said they were dropped;
* a child saying ``RewriteOptions IgnoreInherit`` under a parent's ``InheritDown`` drops them:
  RW010 said nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from confmig.lint.engine import lint_paths
from confmig.lint.testing import write_tree
from confmig.servers import ApacheBinary, ApacheServer, http_get, make_docroot

ON = "RewriteEngine On\n"

# case -> (files, parent's rules dropped below sub/)
CASES: dict[str, tuple[dict[str, str], bool]] = {
    "optinherited": ({".htaccess": ON + "RewriteOptions Inherit\n"
                                        "RewriteRule (^|/)a$ /optinherited/t.txt [L]\n",
                      "t.txt": "T\n", "sub/.htaccess": ON}, False),
    "ignoreinherit": ({".htaccess": ON + "RewriteOptions InheritDown\n"
                                         "RewriteRule (^|/)a$ /ignoreinherit/t.txt [L]\n",
                       "t.txt": "T\n", "sub/.htaccess": ON + "RewriteOptions IgnoreInherit\n"},
                      True),
    "inheritdown": ({".htaccess": ON + "RewriteOptions InheritDown\n"
                                       "RewriteRule (^|/)a$ /inheritdown/t.txt [L]\n",
                     "t.txt": "T\n", "sub/.htaccess": ON}, False),
    "dropped": ({".htaccess": ON + "RewriteRule (^|/)a$ /dropped/t.txt [L]\n",
                 "t.txt": "T\n", "sub/.htaccess": ON}, True),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_rw010_follows_the_models_merge(case: str, tmp_path: Path) -> None:
    files, dropped = CASES[case]
    write_tree(tmp_path, files)
    found = [f for f in lint_paths([tmp_path], use_cache=False).findings if f.code == "RW010"]
    assert bool(found) is dropped, found
    if found:
        assert Path(found[0].file).parent.name == "sub"


@pytest.mark.apache
def test_on_apache(apache_binary: ApacheBinary) -> None:
    root = make_docroot(prefix="confmig-rw010-")
    try:
        write_tree(root, {f"{case}/{rel}": text for case, (files, _) in CASES.items()
                          for rel, text in files.items()})
        with ApacheServer(root, allow_override="All") as server:
            answers = {case: http_get(server.base_url, f"/{case}/sub/a").status
                       for case in CASES}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert answers == {case: 404 if dropped else 200 for case, (_, dropped) in CASES.items()}

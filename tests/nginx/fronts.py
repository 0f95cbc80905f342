"""What the converted front controller looks like (a rule's or FallbackResource's)."""

from __future__ import annotations

import re


def assert_front_controller(text: str, target: str) -> None:
    """*text* sends what nginx finds neither as a file nor as a directory to *target* (with
    the query string) through ``try_files $uri $uri/ $ROUTE``: a map on ``$uri`` whose row
    for a path of one component is the target, and whose other answers are named locations
    that walk the path first and end in ``rewrite ^ TARGET last``."""
    found = re.search(r"try_files \$uri \$uri/ (\$\w+);", text)
    assert found, "no front controller's try_files"
    route = found.group(1)
    block = re.search(rf"map \$uri {re.escape(route)} \{{\n(.*?)\n\}}", text, re.S)
    assert block, route
    rows = block.group(1)
    assert re.search(rf'"~\^[^"]*\[\^/\]\*\\z" "{re.escape(target)}\$is_args\$args";', rows), rows
    walks = re.findall(r"(@confmig_fc\d+d?)", rows)
    assert walks, rows
    for walk in walks:
        body = re.search(rf"location {walk} \{{\n(.*?)\n    \}}", text, re.S)
        assert body and f'rewrite ^ "{target}" last;' in body.group(1), walk

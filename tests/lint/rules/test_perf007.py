"""PERF007: access by host name."""

from __future__ import annotations

import pytest

from confmig.lint.testing import finds


@pytest.mark.parametrize("text", [
    "Require host example.org\n", "Require not host .bad.example\n",
    "Require forward-dns dyn.example.net\n", "Order deny,allow\nDeny from all\n"
    "Allow from example.org 10.0.0.1\n", "Deny from spam.example\n",
])
def test_host_names_are_found(text: str) -> None:
    assert len(finds("PERF007", text)) == 1


@pytest.mark.parametrize("text", [
    "Require ip 10.0.0.0/8\n", "Allow from 10.1 192.168.0.0/16 ::1\n", "Allow from all\n",
    "Deny from env=bad_bot\n", "Require host\n",
])
def test_addresses_are_quiet(text: str) -> None:
    assert finds("PERF007", text) == []

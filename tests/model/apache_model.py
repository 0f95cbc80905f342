"""The model's answers on the server an ``ApacheCases`` runs, reading that server's own
configuration (its LoadModule lines, its <Directory> blocks): what the tests that compare
the model with real Apache, case by case, ask of it."""

from __future__ import annotations

from confmig.lint.testing import ApacheCases
from confmig.load import load_config
from confmig.model.evaluate import evaluate
from confmig.model.request import Request, RequestHeaders
from confmig.model.site_builder import build_site


def model_statuses(apache: ApacheCases, paths: list[str]) -> list[int]:
    """The status the model answers for each URL-path of *paths* (a GET to the main server)."""
    site = build_site(load_config(apache.conf_path))
    host = RequestHeaders([("Host", "127.0.0.1")])  # one server: the main one answers
    return [evaluate(site, Request(path, "GET", host)).status for path in paths]
